// Measured time per instruction of one program run: CUPTI PC sampling as libdivbench_pcsample.so
// (src/attribute/inject/pcsample.cpp) writes it, in a run separate from the counts' (the SASS metrics
// API and PC sampling exclude each other in one process).
//
// A sample: every period_cycles cycles the sampler of each SM picks one of the warps active on it and
// records its pc and stall reason. With one warp per SM, samples x period_cycles at a pc is that warp's
// cycles at the pc; with W active warps, it estimates the warp-cycles at the pc divided by W.
//
// Document "divbench.attribute_pcsamples/1" (the library's header comment gives every field):
//   {"schema", "pid", "device", "period_exponent", "period_cycles": 2^k (k in 5..31),
//    "total_samples": the sum of every pc's samples, "dropped_samples", "hardware_buffer_full",
//    "cupti_total_samples", "non_user_samples", "record_samples_all_reasons",
//    "record_samples_without_not_issued", "sample_rule",
//    "stall_reasons": [names],
//    "functions": [{"crc", "name", "pcs": [[pc, samples, {"<index into stall_reasons>": samples, ...}], ...]}],
//    "errors": [lines]}
// A pc's samples follow the document's sample_rule: on the H200 each stall reason has a "_not_issued"
// twin counting a subset of the same samples again, so the samples are the sum without the twins (the
// twins stay in `stalls`).
// The reader requires schema, period_cycles, total_samples, dropped_samples, stall_reasons and functions
// (the per-reason object of a pc row is optional: [pc, samples] is accepted), checks every count is an
// unsigned integer in range (crc: 32 bits) and that total_samples is the sum of the pcs' samples.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace divbench::attribute {

inline constexpr const char* kPcSamplesSchema = "divbench.attribute_pcsamples/1";

struct PcSamples {
  using Key = std::pair<std::uint32_t, std::string>;  // (cubin CRC, mangled function name)
  std::uint64_t period_cycles = 0;  // cycles between two samples of one SM
  std::uint64_t total = 0;          // samples of every pc below
  std::uint64_t dropped = 0;        // samples the hardware dropped
  bool hardware_buffer_full = false;  // some samples were lost (the hardware buffer overflowed)
  std::uint64_t hardware_buffer_mib = 0;  // CUPTI's device buffer the run had (0: the document does not say)
  std::vector<std::string> reasons;   // stall reason names; the index of `stalls`
  std::map<Key, std::map<std::uint64_t, std::uint64_t>> samples;  // (crc, name) -> pc -> samples
  std::map<Key, std::map<std::uint64_t, std::map<std::size_t, std::uint64_t>>> stalls;  // -> pc -> reason -> samples
  std::vector<std::string> errors;  // the library's CUPTI failures
  int processes = 0;                // documents merged

  // The pc -> samples of one function, or nullptr when it was never sampled.
  const std::map<std::uint64_t, std::uint64_t>* function(std::uint32_t crc, const std::string& name) const;
};

// Reads one document; UsageError naming the file on a malformed one.
PcSamples read_pcsamples(const std::string& path);
// Adds `more` into `into` (a second process of the same program): samples summed per (crc, name, pc),
// stall reasons matched by name. UsageError when the two periods differ.
void merge_pcsamples(PcSamples& into, const PcSamples& more);

}  // namespace divbench::attribute
