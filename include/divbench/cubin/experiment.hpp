// The bit-flip experiment of the paper (Section V-C) as one command: for a flip-test cubin, a
// positive control (each matched store predicated off: guard bits 12-15 := !PT) and, for every
// instruction matching a pattern (default BSSY/BSYNC), every value of a bit field (default 72:2, the
// Blackwell barrier-class field). Each variant is patched, verified by disassembly, run through the
// driver API in its own process and compared with the unpatched baseline.
// Output: one JSON document, schema "divbench.bitflip/2" (docs/bitflip.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/cubin/patch.hpp"
#include "divbench/cubin/runner.hpp"

namespace divbench::cubin {

inline constexpr const char* kBitflipSchema = "divbench.bitflip/2";

struct ExperimentConfig {
  std::string cubin;                     // path
  std::string function = "flip_test";
  std::string match = "BSSY*,BSYNC*";    // instructions whose field is flipped
  std::string control = "STG*";          // stores disabled one at a time by the positive control
  BitField field{72, 2};
  bool all_at_once = true;               // also: every matched instruction set to the same value
  bool execute = true;                   // false: plan + patch + verify only (no GPU needed)
  std::string nvdisasm;                  // "" = do not verify by disassembly
  std::string keep_dir;                  // write each patched cubin here when not empty
  RunConfig run;
  bool quiet = false;                    // no progress lines on stderr
  const DriverApi* driver = nullptr;     // nullptr: libcuda.so.1; tests pass a double
};

json run_flip_experiment(const ExperimentConfig& cfg, const std::string& command_line);

}  // namespace divbench::cubin
