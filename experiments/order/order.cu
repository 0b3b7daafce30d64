// Path-scheduling-order probe: which side of a two-sided branch does one warp run first? See
// experiments/order/launcher.hpp.
#include "order_arm.cuh"

namespace divbench {
namespace progress {

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
namespace {

// What each form is, in one place: its name, the reconvergence form of its SASS, whether its taken side
// lies below the fall-through side, and the symbol substring of its kernel.
struct OrderFormFacts {
  OrderForm form;
  const char* name;
  const char* reconvergence;
  bool taken_below;
  const char* symbol;
};
constexpr OrderFormFacts kOrderForms[] = {
    {OrderForm::bssy, "bssy", "bssy", false, "order_kernelILb0E"},
    {OrderForm::warpsync, "warpsync", "warpsync", false, "order_kernelILb1E"},
    {OrderForm::bssy_backward, "bssy_backward", "bssy", true, "order_backward_kernel"},
    {OrderForm::bssy_loop, "bssy_loop", "bssy", true, "order_loop_kernelILb0E"},
    {OrderForm::warpsync_loop, "warpsync_loop", "warpsync", true, "order_loop_kernelILb1E"},
};

const OrderFormFacts& facts_of(OrderForm f) {
  for (const auto& x : kOrderForms)
    if (x.form == f) return x;
  static constexpr OrderFormFacts unknown{OrderForm::bssy, "?", "bssy", false, "?"};  // not an enumerator
  return unknown;
}

}  // namespace

const char* order_form_name(OrderForm f) { return facts_of(f).name; }

const std::vector<OrderForm>& all_order_forms() {
  static const std::vector<OrderForm> v = [] {
    std::vector<OrderForm> forms;
    for (const auto& x : kOrderForms) forms.push_back(x.form);
    return forms;
  }();
  return v;
}

const char* order_form_reconvergence(OrderForm f) { return facts_of(f).reconvergence; }

bool order_form_taken_below(OrderForm f) { return facts_of(f).taken_below; }

const char* order_kernel_symbol(OrderForm f) { return facts_of(f).symbol; }

OrderRun run_order_probe(OrderForm form, std::uint32_t then_mask, const ProbeCaps& caps) {
  progress::ProbeBuffers<OrderLane> mem(1);
  mem.words.upload({1u});  // the flag, set before the launch: no arm waits
  if (form == OrderForm::bssy_loop || form == OrderForm::warpsync_loop)
    launch_order_loop(form == OrderForm::warpsync_loop, mem.words.get(), then_mask, caps, mem.lanes.get(), mem.sample.get());
  else if (form == OrderForm::bssy_backward)
    launch_order_backward(mem.words.get(), then_mask, caps, mem.lanes.get(), mem.sample.get());
  else if (form == OrderForm::bssy)
    progress::order_kernel<false><<<1, kWarpLanes>>>(mem.words.get(), then_mask, caps.max_spins, caps.max_ns,
                                                      mem.lanes.get(), mem.sample.get());
  else
    progress::order_kernel<true><<<1, kWarpLanes>>>(mem.words.get(), then_mask, caps.max_spins, caps.max_ns,
                                                     mem.lanes.get(), mem.sample.get());
  return mem.read_back<OrderRun>("order_kernel").first;
}
#endif

}  // namespace divbench
