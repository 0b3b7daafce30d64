// Host wrappers of the forward-progress probes (kernels/progress/): one warp each, every spin loop
// bounded by a spin count and a %globaltimer deadline, so a GPU without independent thread
// scheduling (or a scheduler that never switches paths) reports "cap reached" instead of hanging.
// Each call runs ONE launch synchronously and returns what every lane recorded. ProbeCaps is shared
// by every probe; each probe declares its wrapper in its own folder (experiments/lock/launcher.hpp,
// experiments/order/launcher.hpp, experiments/peer_wait/launcher.hpp,
// experiments/producer_consumer/launcher.hpp).
#pragma once
#include <cstdint>
#ifndef __CUDACC_RTC__  // NVRTC (tests/sass/nvrtc/) sees the types the kernels use only
#include <vector>
#endif

#include "divbench/cuda/region_sample.hpp"

namespace divbench {

struct ProbeCaps {
  std::uint32_t max_spins = 1u << 22;        // per wait
  std::uint64_t max_ns = 1'000'000'000ull;   // per launch: no lane waits past start + max_ns
};

#ifndef __CUDACC_RTC__
// What a probe lane's FMA work (FmaChain arm 0 from lane_seed(lane), `iters` iterations) leaves,
// computed on the host: the lock probe's critical section and a producer's payload are checked
// against it (kernels/progress/work_reference.cu).
float probe_work_reference(int lane, std::uint32_t iters);
#endif

}  // namespace divbench
