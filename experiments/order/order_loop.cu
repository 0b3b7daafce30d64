// The order probe with the TAKEN side of its branch below the fall-through side, at ptxas's default
// optimisation level: the branch is the latch of a loop. See experiments/order/launcher.hpp.
//
// ptxas -O3 lays an acyclic if/else out with the taken side after the fall-through side
// (order_backward.cu says what was tried), but it keeps a loop's body above its latch. So the `then`
// arm is the body of a loop and the divergent branch is the latch that repeats it:
//
//       bra.uni DECIDE                   (x = 1 on every lane: the first pass is uniform)
//   THEN:   call order_arm<0>            <- the taken side, at the lower address
//           visits += 1; @(visits == 2) bra JOIN   (a lane's second pass ends the loop)
//           x = then_arm
//   DECIDE: @(x != 0) bra THEN           <- the divergent branch: backward, the loop's latch
//           call order_arm<1>            <- the fall-through side
//   JOIN:   (the region timer's __syncwarp)
//
// Every lane runs the `then` arm once with the whole warp (the first pass, whose record the second
// overwrites), and then the warp splits at the latch: lanes whose then_mask bit is set take the
// backward branch and run the `then` arm again, the others fall through to the `else` arm. Which of
// the two ran first is the question the probe asks, as in the other kernels. The loop is real (a
// lane can repeat the body), so ptxas keeps the body above the latch at -O3 on every architecture
// built (SM 7.5-12.0, nvcc 13.0); the build's SASS says so per architecture (model/arm_side.hpp,
// `taken_below_fallthrough`) and the SASS check (tests/sass/test_probe_layout.cpp) holds it.
// Both arm forms: plain (BSSY at the loop, BSYNC at JOIN: the bssy form) and waiting (WARPSYNC at the
// timer only: the warpsync form), one kernel each.
#include "order_arm.cuh"

namespace divbench {
namespace progress {

template <bool Wait>
__global__ void order_loop_kernel(const std::uint32_t* flag, std::uint32_t then_mask, std::uint32_t max_spins,
                                  std::uint64_t max_ns, OrderLane* out, RegionSample* sample) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const Cap cap{max_spins, dev::globaltimer() + max_ns};
  std::uint32_t then_arm = (then_mask >> lane) & 1u;
  std::uint32_t x = 1u, visits = 0u;
  OrderLane* mine = out + lane;
  dev::RegionTimer timer;
  timer.start();
  asm volatile("" : "+l"(flag), "+l"(mine), "+r"(then_arm), "+r"(x), "+r"(visits) : : "memory");
  asm volatile("bra.uni $divbench_order_loop_decide;\n$divbench_order_loop_then:" : : : "memory");
  order_arm<0, Wait>(flag, cap, mine);
  asm volatile(
      "{\n\t.reg .pred q;\n\tadd.u32 %0, %0, 1;\n\tsetp.eq.u32 q, %0, 2;\n\t@q bra $divbench_order_loop_join;\n\t}\n\t"
      "mov.u32 %1, %2;\n"
      "$divbench_order_loop_decide:\n\t"
      "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\t@p bra $divbench_order_loop_then;\n\t}"
      : "+r"(visits), "+r"(x)
      : "r"(then_arm)
      : "memory");
  order_arm<1, Wait>(flag, cap, mine);
  asm volatile("$divbench_order_loop_join:" : : : "memory");
  timer.stop(sample, 0);
}

}  // namespace progress

#ifndef __CUDACC_RTC__  // host side
void launch_order_loop(bool wait, const std::uint32_t* flag, std::uint32_t then_mask, const ProbeCaps& caps,
                       OrderLane* lanes, RegionSample* sample) {
  if (wait)
    progress::order_loop_kernel<true><<<1, kWarpLanes>>>(flag, then_mask, caps.max_spins, caps.max_ns, lanes, sample);
  else
    progress::order_loop_kernel<false><<<1, kWarpLanes>>>(flag, then_mask, caps.max_spins, caps.max_ns, lanes, sample);
}
#endif

}  // namespace divbench
