// Lock probe: the 32 lanes of one warp contend for one spin lock in global memory. Each acquirer
// runs a critical section (FMA work, plus a plain read-modify-write of a counter that only mutual
// exclusion keeps exact) and releases. Two code shapes; every spin is capped. Each lane records
// clock64 on entering the critical section and on its first failed attempt: in the first round one
// lane wins the CAS and 31 fail, and those clocks say which side of that branch ran first.
#include "bodies/fma_chain.cuh"
#include "progress/bounded.cuh"
#include "experiments/lock/launcher.hpp"

namespace divbench {
namespace progress {

// words[0] = lock, words[1] = counter.
__device__ __forceinline__ void critical_section(std::uint32_t* words, std::uint32_t cs_iters, int lane,
                                                 LockLane& r) {
  r.cs_enter_clk = static_cast<std::uint64_t>(clock64());
  __threadfence();
  const std::uint32_t order = ld_volatile(words + 1);
  r.value = bodies::FmaChain::run<0>(lane_seed(lane), cs_iters, nullptr, 0);
  st_volatile(words + 1, order + 1);
  r.order = order;
  r.acquired = 1;
  r.acquired_clk = static_cast<std::uint64_t>(clock64());
  __threadfence();
  atomicExch(words, 0u);
}

// A failed CAS: counts the spin (the first one's clock recorded); true when the cap is reached.
__device__ __forceinline__ bool failed_attempt(LockLane& r, const Cap& cap) {
  if (r.spins == 0) r.first_fail_clk = static_cast<std::uint64_t>(clock64());
  return cap.reached(++r.spins);
}

// Form::release_in_branch: while (!done) { if (CAS == 0) { critical; release; done = true; } }
// Form::release_after_loop: while (CAS != 0) spin; critical; release.
template <LockForm Form>
__global__ void lock_kernel(std::uint32_t* words, std::uint32_t cs_iters, std::uint32_t max_spins,
                            std::uint64_t max_ns, LockLane* out, RegionSample* sample) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const Cap cap{max_spins, dev::globaltimer() + max_ns};
  LockLane r{0u, ~0u, 0u, 0u, 0.0f, 0u, 0ull, 0ull, 0ull};
  dev::RegionTimer timer;
  timer.start();
  if constexpr (Form == LockForm::release_in_branch) {
    bool done = false;
    while (!done) {
      if (atomicCAS(words, 0u, 1u) == 0u) {
        critical_section(words, cs_iters, lane, r);
        done = true;
      } else if (failed_attempt(r, cap)) {
        r.capped = 1;
        done = true;
      }
    }
  } else {
    while (atomicCAS(words, 0u, 1u) != 0u) {
      if (failed_attempt(r, cap)) {
        r.capped = 1;
        break;
      }
    }
    if (!r.capped) critical_section(words, cs_iters, lane, r);
  }
  timer.stop(sample, 0);
  out[lane] = r;
}

}  // namespace progress

#ifndef __CUDACC_RTC__  // host side: NVRTC (tests/sass/nvrtc/) compiles the kernels only
const char* lock_form_name(LockForm f) {
  return f == LockForm::release_in_branch ? "release_in_branch" : "release_after_loop";
}

LockRun run_lock_probe(LockForm form, std::uint32_t cs_iters, const ProbeCaps& caps) {
  progress::ProbeBuffers<LockLane> mem(2);
  if (form == LockForm::release_in_branch)
    progress::lock_kernel<LockForm::release_in_branch>
        <<<1, kWarpLanes>>>(mem.words.get(), cs_iters, caps.max_spins, caps.max_ns, mem.lanes.get(), mem.sample.get());
  else
    progress::lock_kernel<LockForm::release_after_loop>
        <<<1, kWarpLanes>>>(mem.words.get(), cs_iters, caps.max_spins, caps.max_ns, mem.lanes.get(), mem.sample.get());
  auto [run, w] = mem.read_back<LockRun>("lock_kernel");
  run.lock_after = w[0];
  run.counter = w[1];
  return run;
}

#endif  // __CUDACC_RTC__

}  // namespace divbench
