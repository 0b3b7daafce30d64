// Host wrapper of the path-scheduling-order probe (experiments/order/order.cu): one warp, one
// divergent if/else whose arms are two distinct __noinline__ functions, `then` = order_arm<0>,
// `else` = order_arm<1>; a lane mask (a launch parameter) says which lanes take the `then` arm,
// so both layouts of any lane group (in the fall-through arm, in the taken arm) run from one
// binary. Each arm records clock64 and %globaltimer at its first instruction. Three kernels (forms),
// fixed at compile time:
//   bssy      each arm reads a flag once; ptxas guards the branch with BSSY/BSYNC;
//   warpsync  each arm waits for that flag in a (bounded) loop; a wait in the arms makes ptxas
//             reconverge at the region timer's __syncwarp (WARPSYNC) with no BSSY, the shape of
//             the producer/consumer kernel;
//   bssy_backward  the bssy arms, but the `then` arm's call lies ABOVE the branch and is reached by
//             a backward branch, so the taken side is at the lower address and the fall-through side
//             (the `else` arm) at the higher one (experiments/order/order_backward.cu: inline-PTX
//             labels, that translation unit compiled with ptxas -O0, which keeps the PTX block order).
//             In bssy and warpsync the fall-through side is the lower address; this form is what
//             tells "ties go to the fall-through side" from "ties go to the lower address".
//   bssy_loop, warpsync_loop  the taken side below at ptxas's default optimisation level: the `then`
//             arm is the body of a loop whose latch is the divergent branch (experiments/order/
//             order_loop.cu); every lane runs the body once with the whole warp, then the lanes of
//             then_mask repeat it (the backward, taken side) while the others fall through to `else`.
//             Plain arms (BSSY form) and waiting arms (WARPSYNC form): two more branch sites with the
//             taken side below, independent of bssy_backward's (another kernel, another compiler level).
// The flag is set before the launch, so no lane ever spins. The binary's SASS says which arm is
// the fall-through, which side is at the lower address and which reconvergence form each kernel
// has (model/arm_side.hpp).
#pragma once
#include <cstdint>
#ifndef __CUDACC_RTC__
#include <vector>
#endif

#include "divbench/cuda/region_sample.hpp"
#include "divbench/kernels/progress.hpp"

namespace divbench {

enum class OrderForm { bssy, warpsync, bssy_backward, bssy_loop, warpsync_loop };

struct OrderLane {
  std::uint32_t arm;        // 0 then, 1 else
  std::uint32_t flag_seen;  // the flag value the arm read (1: set before the launch)
  std::uint32_t spins;      // warpsync form: polls before the flag was seen (0 expected)
  std::uint32_t capped;     // 1: gave up at the cap
  std::uint64_t enter_clk;  // clock64 at the arm's first instruction
  std::uint64_t enter_ns;   // %globaltimer right after it
};

#ifndef __CUDACC_RTC__
const char* order_form_name(OrderForm f);  // "bssy", "warpsync", "bssy_backward", "bssy_loop", "warpsync_loop"
const std::vector<OrderForm>& all_order_forms();
// The reconvergence form the kernel is meant to have ("bssy" | "warpsync"), what the SASS's BSSY
// guard is compared with; and whether its taken side is meant to lie below the fall-through side.
const char* order_form_reconvergence(OrderForm f);
bool order_form_taken_below(OrderForm f);

struct OrderRun {
  std::vector<OrderLane> lanes;  // 32
  RegionSample region{};
};

// One launch: lanes whose bit is set in then_mask take the `then` arm, the others the `else` arm.
OrderRun run_order_probe(OrderForm form, std::uint32_t then_mask, const ProbeCaps& caps);

// Symbol substrings of the kernels and their arms, for the SASS facts (model/arm_side.hpp).
// "order_kernelILb0E" (bssy), "order_kernelILb1E" (warpsync), "order_backward_kernel" (bssy_backward),
// "order_loop_kernelILb0E" (bssy_loop), "order_loop_kernelILb1E" (warpsync_loop)
const char* order_kernel_symbol(OrderForm f);
inline constexpr const char* kOrderThenArm = "order_armILi0E";
inline constexpr const char* kOrderElseArm = "order_armILi1E";

// experiments/order/order_backward.cu: one launch of the bssy_backward kernel (run_order_probe calls it).
void launch_order_backward(const std::uint32_t* flag, std::uint32_t then_mask, const ProbeCaps& caps, OrderLane* lanes,
                           RegionSample* sample);
// experiments/order/order_loop.cu: one launch of the bssy_loop (wait false) or warpsync_loop (wait true) kernel.
void launch_order_loop(bool wait, const std::uint32_t* flag, std::uint32_t then_mask, const ProbeCaps& caps,
                       OrderLane* lanes, RegionSample* sample);
#endif

}  // namespace divbench
