// Number formatting shared by the printers of `divbench attribute` (report.cpp, html.cpp).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace divbench::attribute::text {

// printf of one double into a string.
inline std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A pc as the reports print it: at least four hex digits, no prefix ("01d0").
inline std::string hex4(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "%04llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace divbench::attribute::text
