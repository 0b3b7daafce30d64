// The order probe's arm, shared by its two translation units (order.cu: the branch at -O3, the taken
// side above; order_backward.cu: the taken side below). See experiments/order/launcher.hpp.
#pragma once
#include "progress/bounded.cuh"
#include "experiments/order/launcher.hpp"

namespace divbench {
namespace progress {

// One arm. Arm is baked in (0: then, 1: else) so the two arms are different functions, each one
// call site in the kernel. Both forms read the flag once; Wait makes it a volatile read in a
// bounded wait loop, after which ptxas (sm_90 on) drops the branch's BSSY and reconverges at the
// timer's __syncwarp only. Without Wait it is a plain load and the BSSY stays.
template <int Arm, bool Wait>
__device__ __noinline__ void order_arm(const std::uint32_t* flag, Cap cap, OrderLane* out) {
  OrderLane r{};
  r.enter_clk = static_cast<std::uint64_t>(clock64());
  r.enter_ns = dev::globaltimer();
  r.arm = Arm;
  std::uint32_t seen = 0;
  if constexpr (!Wait) {
    seen = *flag;
  } else {
    seen = ld_volatile(flag);
    while (seen == 0u) {
      if (cap.reached(++r.spins)) {
        r.capped = 1;
        break;
      }
      seen = ld_volatile(flag);
    }
  }
  r.flag_seen = seen;
  *out = r;
}

}  // namespace progress
}  // namespace divbench
