// The host's value of a probe lane's work, shared by the probes that check it: FmaChain's arm 0 from
// the lane's seed for `iters` iterations (the lock probe's critical section, a producer's payload).
#include "bodies/fma_chain.cuh"
#include "divbench/core/warp.hpp"
#include "divbench/kernels/progress.hpp"

namespace divbench {

#ifndef __CUDACC_RTC__
float probe_work_reference(int lane, std::uint32_t iters) {
  return bodies::FmaChain::run<0>(lane_seed(lane), iters, nullptr, 0);
}
#endif

}  // namespace divbench
