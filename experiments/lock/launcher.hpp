// Host wrapper of the lock probe (experiments/lock/lock.cu): all 32 lanes of one warp contend for one
// spin lock in global memory, every spin bounded (ProbeCaps, divbench/kernels/progress.hpp). Each call
// runs ONE launch synchronously and returns what every lane recorded.
#pragma once
#include <cstdint>
#ifndef __CUDACC_RTC__  // NVRTC (tests/sass/nvrtc/) sees the types the kernels use only
#include <vector>
#endif

#include "divbench/cuda/region_sample.hpp"
#include "divbench/kernels/progress.hpp"

namespace divbench {

enum class LockForm {
  release_in_branch,   // while (!done) { if (CAS == 0) { critical; release; done } }  (the paper's lock)
  release_after_loop,  // while (CAS != 0) spin; critical; release   (the classic SIMT-stack deadlock form)
};
#ifndef __CUDACC_RTC__
const char* lock_form_name(LockForm f);
#endif

struct LockLane {
  std::uint32_t acquired;  // 1: this lane ran the critical section
  std::uint32_t order;     // its position among the acquirers (0-based); ~0u if not acquired
  std::uint32_t spins;     // failed attempts before acquiring (or before giving up)
  std::uint32_t capped;    // 1: gave up at the cap
  float value;             // result of the critical section's work (checked against the host)
  std::uint32_t pad;
  std::uint64_t acquired_clk;  // clock64 when it acquired (SM cycles; compare lanes, not launches)
  std::uint64_t cs_enter_clk;    // clock64 on entering the critical section (0: never)
  std::uint64_t first_fail_clk;  // clock64 on entering the failed-attempt side the first time (0: never)
};

#ifndef __CUDACC_RTC__
struct LockRun {
  std::vector<LockLane> lanes;  // 32
  std::uint32_t counter = 0;    // the plain (non-atomic) counter the critical sections incremented
  std::uint32_t lock_after = 0; // lock word after the launch (0: released)
  RegionSample region{};
};

LockRun run_lock_probe(LockForm form, std::uint32_t cs_iters, const ProbeCaps& caps);
#endif

}  // namespace divbench
