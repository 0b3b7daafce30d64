#include "divbench/core/sampling.hpp"

#include "divbench/core/errors.hpp"

namespace divbench {

const char* sampling_name(Sampling s) { return s == Sampling::single ? "single" : "warp-per-sm"; }

Sampling parse_sampling(const std::string& name) {
  if (name == "single") return Sampling::single;
  if (name == "warp-per-sm") return Sampling::warp_per_sm;
  throw UsageError("--sampling: unknown mode '" + name + "' (valid: warp-per-sm|single)");
}

}  // namespace divbench
