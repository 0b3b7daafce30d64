// The order probe with the TAKEN side of its branch below the fall-through side:
// the `then` arm's call is placed above the branch and reached by a backward branch, so that "ties go
// to the fall-through side" and "ties go to the lower address" predict different sides. See
// experiments/order/launcher.hpp.
//
// How the layout is had. The branch and its labels are inline PTX, laid out in the order they are
// written:
//
//       bra.uni DECIDE
//   THEN:   call order_arm<0>          <- the taken side, at the lower address
//       bra.uni JOIN
//   DECIDE: @p bra THEN                <- the divergent branch, backward (p: the lane takes `then`)
//           call order_arm<1>          <- the fall-through side
//   JOIN:
//
// ptxas at its default -O3 re-lays an acyclic if/else out in its own canonical order (the taken side
// after the fall-through; it also merges a guarding uniform branch into the divergent one), whatever
// the PTX order: tried with this PTX, with a guard branch, and with C++ loops whose latch is the
// divergent branch (nvcc -O3 and ptxas peel or rotate them back into a forward branch). So this
// translation unit alone is compiled with `-Xptxas -O0` (kernels/CMakeLists.txt), where ptxas keeps
// the PTX block order. NVVM still optimizes (-O3); the arms are the same order_arm<Arm, false> source as
// the bssy kernel's, compiled at ptxas -O0 here. One form only, BSSY-guarded: ptxas -O0 guards every
// divergent branch with a BSSY, also with the waiting arms that make the -O3 warpsync form, so a
// "warpsync_backward" kernel would be a BSSY kernel under another name. The layout is never assumed: the build's SASS
// (model/arm_side.hpp, `taken_below_fallthrough`) says where each side is, per architecture.
//
// The compiler sees straight-line code between the asm statements (two calls in a row), so every
// value the arms need is made an output of one asm statement before the first jump: nothing computed
// between the labels (on one path only) is reused on the other.
#include "order_arm.cuh"

namespace divbench {
namespace progress {

__global__ void order_backward_kernel(const std::uint32_t* flag, std::uint32_t then_mask, std::uint32_t max_spins,
                                      std::uint64_t max_ns, OrderLane* out, RegionSample* sample) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  Cap cap{max_spins, dev::globaltimer() + max_ns};
  std::uint32_t then_arm = (then_mask >> lane) & 1u;
  OrderLane* mine = out + lane;
  dev::RegionTimer timer;
  timer.start();
  asm volatile("" : "+l"(flag), "+r"(cap.max_spins), "+l"(cap.deadline_ns), "+l"(mine), "+r"(then_arm) : : "memory");
  asm volatile(
      "bra.uni $divbench_order_decide;\n"
      "$divbench_order_then:" : : : "memory");
  order_arm<0, false>(flag, cap, mine);
  asm volatile(
      "bra.uni $divbench_order_join;\n"
      "$divbench_order_decide:\n\t"
      "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t@p bra $divbench_order_then;\n\t}"
      :
      : "r"(then_arm)
      : "memory");
  order_arm<1, false>(flag, cap, mine);
  asm volatile("$divbench_order_join:" : : : "memory");
  timer.stop(sample, 0);
}

}  // namespace progress

#ifndef __CUDACC_RTC__  // host side
void launch_order_backward(const std::uint32_t* flag, std::uint32_t then_mask, const ProbeCaps& caps, OrderLane* lanes,
                           RegionSample* sample) {
  progress::order_backward_kernel<<<1, kWarpLanes>>>(flag, then_mask, caps.max_spins, caps.max_ns, lanes, sample);
}
#endif

}  // namespace divbench
