// `divbench flip patch` as a library call: select instructions of a cubin's function (by offset, or by
// opcode pattern through nvdisasm), set a bit field in each, verify the edit by disassembly, optionally
// run original and patched cubin through the driver API, and build the "divbench.flip/2" report.
// Nothing is written here: the caller writes the patched bytes and the report once this returned, so
// a refusal or a failed run leaves no output behind.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/cubin/patch.hpp"
#include "divbench/cubin/runner.hpp"

namespace divbench::cubin {

inline constexpr const char* kFlipSchema = "divbench.flip/2";

struct PatchConfig {
  std::string cubin;                     // input path (never modified)
  std::string function;
  std::optional<std::uint64_t> offset;   // one instruction by offset, or
  std::string match;                     // by opcode pattern(s), with
  int nth = -1;                          //   the nth match only, or
  bool all = false;                      //   every match (neither: exactly one must match)
  BitField field;
  std::uint64_t value = 0;
  bool verify = true;                    // verify by disassembly
  std::string nvdisasm;                  // needed for verify and match
  bool run = false;                      // also run both cubins (needs a GPU)
  RunConfig run_cfg;
  const DriverApi* driver = nullptr;     // nullptr: libcuda.so.1
  std::string out;                       // recorded in the report as where the patched cubin goes
};

struct PatchOutcome {
  json report;                           // divbench.flip/2
  std::vector<std::uint8_t> patched;     // the patched cubin's bytes
  std::string failure;                   // non-empty: verification failed (report and cubin still written)
};

// Throws UsageError for a bad selection, field, value or file; NoDeviceError when --run finds no GPU.
PatchOutcome flip_patch(const PatchConfig& cfg, const std::string& command_line);

}  // namespace divbench::cubin
