// Options of the dynamic experiments (the top-level divbench command line).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace divbench {

struct RunOptions {
  std::string sweep;             // --sweep NAME
  std::string probe;             // --probe NAME
  bool all = false;              // --all
  bool list = false;             // --list
  std::vector<int> ks;           // --k (empty: the experiment's default)
  int reps = 201;                // --reps
  int warmup = 3;                // --warmup
  int iters = 10000;             // --iters: work per path
  std::string map = "modulo";    // --map
  std::string body = "fma_chain";  // --body
  std::string device = "0";      // --device N|all
  std::string out;               // --out FILE|DIR
  std::string format = "console";  // --format console|json|csv
  bool quiet = false;            // --quiet
  bool metrics = false;          // --metrics
  std::uint64_t seed = 20260729; // --seed (random lane permutations)
  std::string command_line;      // for provenance
};

// Parse a --k list: "1-32", "1,2,4,8", "1-4,8,16-32". Throws UsageError for anything outside 1..32,
// empty items, reversed ranges or junk.
std::vector<int> parse_k_list(const std::string& spec);

}  // namespace divbench
