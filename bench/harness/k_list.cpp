// The list options of the command line: --k (path counts) and --n (iteration counts).
#include <algorithm>
#include <sstream>

#include "divbench/core/errors.hpp"
#include "k_list.hpp"

namespace divbench {
namespace {

long long parse_whole(const std::string& s, const std::string& spec, const char* option, long long lo, long long hi,
                      const char* why_range) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (...) {
    used = 0;
  }
  if (s.empty() || used != s.size() || s[0] == '+' || s[0] == ' ')
    throw UsageError(std::string(option) + ": '" + s + "' in '" + spec + "' is not a whole number");
  if (v < lo || v > hi)
    throw UsageError(std::string(option) + ": " + s + " is outside " + std::to_string(lo) + ".." + std::to_string(hi) +
                     why_range);
  return v;
}

// Items separated by commas, each a value or a range a-b; every item non-empty.
template <class T>
std::vector<T> parse_list(const std::string& spec, const char* option, long long lo, long long hi,
                          const char* why_range) {
  if (spec.empty()) throw UsageError(std::string(option) + ": empty list");
  if (spec.back() == ',' || spec.front() == ',' || spec.find(",,") != std::string::npos)
    throw UsageError(std::string(option) + ": empty item in '" + spec + "'");
  std::vector<T> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto dash = item.find('-', 1);
    if (dash == std::string::npos) {
      out.push_back(static_cast<T>(parse_whole(item, spec, option, lo, hi, why_range)));
    } else {
      const long long a = parse_whole(item.substr(0, dash), spec, option, lo, hi, why_range);
      const long long b = parse_whole(item.substr(dash + 1), spec, option, lo, hi, why_range);
      if (b < a) throw UsageError(std::string(option) + ": range '" + item + "' runs backwards");
      if (b - a > 1000) throw UsageError(std::string(option) + ": range '" + item + "' has more than 1000 values");
      for (long long v = a; v <= b; ++v) out.push_back(static_cast<T>(v));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::vector<int> parse_k_list(const std::string& spec) {
  return parse_list<int>(spec, "--k", 1, 32, " (a warp has 32 lanes)");
}

std::vector<std::uint32_t> parse_n_list(const std::string& spec) {
  return parse_list<std::uint32_t>(spec, "--n", 0, 100000000, " (iterations per path)");
}

}  // namespace divbench
