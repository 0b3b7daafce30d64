// Path-scheduling-order probe: which side of a two-sided branch does one warp run first? See
// include/divbench/kernels/order.hpp.
#include "bounded.cuh"
#include "divbench/kernels/order.hpp"

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

template <bool Wait>
__global__ void order_kernel(const std::uint32_t* flag, std::uint32_t then_mask, std::uint32_t max_spins,
                             std::uint64_t max_ns, OrderLane* out, RegionSample* sample) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const Cap cap{max_spins, dev::globaltimer() + max_ns};
  const bool then_arm = ((then_mask >> lane) & 1u) != 0u;
  dev::RegionTimer timer;
  timer.start();
  if (then_arm)
    order_arm<0, Wait>(flag, cap, out + lane);
  else
    order_arm<1, Wait>(flag, cap, out + lane);
  timer.stop(sample, 0);
}

}  // namespace progress

#ifndef __CUDACC_RTC__  // host side
const char* order_form_name(OrderForm f) { return f == OrderForm::bssy ? "bssy" : "warpsync"; }

const std::vector<OrderForm>& all_order_forms() {
  static const std::vector<OrderForm> v{OrderForm::bssy, OrderForm::warpsync};
  return v;
}

const char* order_kernel_symbol(OrderForm f) {
  return f == OrderForm::bssy ? "order_kernelILb0E" : "order_kernelILb1E";
}

OrderRun run_order_probe(OrderForm form, std::uint32_t then_mask, const ProbeCaps& caps) {
  progress::ProbeBuffers<OrderLane> mem(1);
  mem.words.upload({1u});  // the flag, set before the launch: no arm waits
  if (form == OrderForm::bssy)
    progress::order_kernel<false><<<1, kWarpLanes>>>(mem.words.get(), then_mask, caps.max_spins, caps.max_ns,
                                                      mem.lanes.get(), mem.sample.get());
  else
    progress::order_kernel<true><<<1, kWarpLanes>>>(mem.words.get(), then_mask, caps.max_spins, caps.max_ns,
                                                     mem.lanes.get(), mem.sample.get());
  check_launch("order_kernel");
  OrderRun run;
  mem.read_back(run);
  return run;
}
#endif

}  // namespace divbench
