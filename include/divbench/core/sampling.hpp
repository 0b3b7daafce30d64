// How a timed point collects its samples (one sample = one warp's clock64 region):
//   single       one warp per launch, on whatever SM the scheduler picks: `reps` launches;
//   warp_per_sm  one warp on every SM per launch (one block per SM, pinned by shared memory):
//                ceil(reps / SMs) launches, every warp's region a sample.
// Host-only, so configurations are parsed and tested without the CUDA runtime.
#pragma once
#include <string>

namespace divbench {

enum class Sampling { single, warp_per_sm };

const char* sampling_name(Sampling s);
// Throws UsageError naming the valid modes.
Sampling parse_sampling(const std::string& name);

}  // namespace divbench
