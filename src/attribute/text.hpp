// Number formatting shared by the printers of `divbench attribute` (report.cpp, html.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

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

// The lines of a source file a line table names, read once per printer (`cache` keeps them; a file not
// readable here has none), at most `max_lines` of them.
using SourceFiles = std::map<std::string, std::vector<std::string>>;
inline const std::vector<std::string>& source_lines(const std::string& path, SourceFiles& cache,
                                                    std::size_t max_lines = std::numeric_limits<std::size_t>::max()) {
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; lines.size() < max_lines && in && std::getline(in, line);) lines.push_back(line);
  return cache.emplace(path, std::move(lines)).first->second;
}

}  // namespace divbench::attribute::text
