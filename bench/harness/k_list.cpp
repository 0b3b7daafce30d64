#include <algorithm>
#include <sstream>

#include "divbench/core/errors.hpp"
#include "options.hpp"

namespace divbench {
namespace {

int parse_k(const std::string& s, const std::string& spec) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(s, &used);
  } catch (...) {
    used = 0;
  }
  if (s.empty() || used != s.size()) throw UsageError("--k: '" + s + "' in '" + spec + "' is not a whole number");
  if (v < 1 || v > 32) throw UsageError("--k: " + s + " is outside 1..32 (a warp has 32 lanes)");
  return v;
}

}  // namespace

std::vector<int> parse_k_list(const std::string& spec) {
  if (spec.empty()) throw UsageError("--k: empty list");
  std::vector<int> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto dash = item.find('-', 1);
    if (dash == std::string::npos) {
      out.push_back(parse_k(item, spec));
    } else {
      const int a = parse_k(item.substr(0, dash), spec), b = parse_k(item.substr(dash + 1), spec);
      if (b < a) throw UsageError("--k: range '" + item + "' runs backwards");
      for (int k = a; k <= b; ++k) out.push_back(k);
    }
  }
  if (!spec.empty() && spec.back() == ',') throw UsageError("--k: empty item in '" + spec + "'");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace divbench
