#include "divbench/core/hex.hpp"

#include <cstdio>

namespace divbench {

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string hex128(std::uint64_t lo, std::uint64_t hi) {
  char b[40];
  std::snprintf(b, sizeof b, "0x%016llx%016llx", static_cast<unsigned long long>(hi), static_cast<unsigned long long>(lo));
  return b;
}

}  // namespace divbench
