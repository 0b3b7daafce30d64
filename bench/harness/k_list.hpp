// The list values of the command line: path counts (--k) and iteration counts (--n), as the shared
// settings parse them (common_settings.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace divbench {

// Parse a --k list: "1-32", "1,2,4,8", "1-4,8,16-32". Throws UsageError for anything outside 1..32,
// empty items or an empty list, reversed ranges or junk.
std::vector<int> parse_k_list(const std::string& spec);

// Parse a --n list of iteration counts: "0,1000,3000,10000" (each 0..100000000, sorted, unique).
std::vector<std::uint32_t> parse_n_list(const std::string& spec);

}  // namespace divbench
