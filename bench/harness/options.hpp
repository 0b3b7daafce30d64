// Options of the dynamic experiments as the command line gave them (bench/main.cpp fills this).
// Nothing here is what runs: each experiment parses these into its own typed configuration
// (bench/harness/experiment.hpp), and that configuration is what runs and what the result records.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace divbench {

struct RunOptions {
  std::string sweep;             // --sweep NAME
  std::string probe;             // --probe NAME
  bool all = false;              // --all
  bool list = false;             // --list
  std::vector<int> ks;           // --k (empty: the experiment's default)
  std::vector<std::uint32_t> ns; // --n: iteration counts of the cost sweep (empty: its default)
  int reps = 201;                // --reps: timed samples per point
  int warmup = 3;                // --warmup: untimed launches per point (when given; else per sampling mode)
  int iters = 10000;             // --iters: work per path
  std::string map = "modulo";    // --map
  std::string body = "fma_chain";  // --body
  std::string sampling;          // --sampling warp-per-sm|single (empty: the experiment's default)
  int placements = 1;            // --placements N: code placements 0..N-1
  bool samples = true;           // --no-samples clears it: keep raw samples in the result
  std::string device = "0";      // --device N|all
  std::string out;               // --out FILE|DIR
  std::string format = "console";  // --format console|json|csv
  bool quiet = false;            // --quiet
  bool metrics = false;          // --metrics
  std::uint64_t seed = 20260729; // --seed (random lane permutations)
  int max_attempts = 3;          // --max-attempts: measurements of a disturbed point before it is kept as disturbed
  double noise_factor = 0;       // --noise-factor: multiple of the quiet noise level allowed (0: the criterion's)
  std::string loop_cost;         // --loop-cost FILE: loop-cost constants (empty: the committed ones)
  std::string command_line;      // for provenance
  std::set<std::string> given;   // the options the user gave ("--k", "--body", ...)

  bool has(const std::string& option) const { return given.count(option) != 0; }
};

// Parse a --k list: "1-32", "1,2,4,8", "1-4,8,16-32". Throws UsageError for anything outside 1..32,
// empty items or an empty list, reversed ranges or junk.
std::vector<int> parse_k_list(const std::string& spec);

// Parse a --n list of iteration counts: "0,1000,3000,10000" (each 0..100000000, sorted, unique).
std::vector<std::uint32_t> parse_n_list(const std::string& spec);

}  // namespace divbench
