// Producer/consumer probe: a group of producer lanes works and publishes, the other lanes spin until
// every producer has published. The two roles sit in the two arms of one divergent if/else, each
// arm a distinct __noinline__ function, so the SASS shows which arm is the branch's fall-through,
// and a launch parameter decides which arm holds the producers: both structural orders run from the
// same binary. The producer group is a lane mask: one producer (the paper's shape: the producers
// are the minority) or 31 (the producers are the majority).
#include <cmath>
#include <limits>
#ifndef __CUDACC_RTC__
#include <stdexcept>  // host side only
#endif

#include "bodies/fma_chain.cuh"
#include "progress/bounded.cuh"
#include "experiments/producer_consumer/launcher.hpp"

namespace divbench {
namespace progress {

struct PcArgs {
  std::uint32_t* words;    // [0] producers published so far, [1 + lane] each producer's result (float bits)
  std::uint32_t producers; // the producer lanes
  std::uint32_t work;
  Cap cap;
};

// One arm. Side is baked in (0: then, 1: else) so the two arms are different functions.
template <int Side>
__device__ __noinline__ void pc_arm(const PcArgs& a, bool producer, int lane, PcLane* out) {
  PcLane r{};
  r.side = Side;
  r.enter_clk = static_cast<std::uint64_t>(clock64());
  if (producer) {
    const float x = bodies::FmaChain::run<0>(lane_seed(lane), a.work, nullptr, 0);
    st_volatile(a.words + 1 + lane, __float_as_uint(x));
    __threadfence();
    atomicAdd(a.words, 1u);
    r.role = 1;
    r.value = x;
  } else {
    const std::uint32_t all = static_cast<std::uint32_t>(__popc(a.producers));
    std::uint32_t spins = 0;
    while (ld_volatile(a.words + 0) < all) {
      if (a.cap.reached(++spins)) {
        r.capped = 1;
        break;
      }
    }
    __threadfence();
    r.role = 2;
    r.spins = spins;
    // The producers' results summed in lane order (one producer: its result, exactly).
    float sum = __uint_as_float(0x7fc00000u);
    if (!r.capped) {
      bool first = true;
      for (std::uint32_t m = a.producers; m != 0u; m &= m - 1u) {
        const float v = __uint_as_float(ld_volatile(a.words + 1 + (__ffs(m) - 1)));
        sum = first ? v : sum + v;
        first = false;
      }
    }
    r.value = sum;
  }
  r.done_clk = static_cast<std::uint64_t>(clock64());
  *out = r;
}

__global__ void producer_consumer_kernel(std::uint32_t* words, std::uint32_t work, std::uint32_t producers,
                                         int producer_in_then, std::uint32_t max_spins, std::uint64_t max_ns,
                                         PcLane* out, RegionSample* sample) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const PcArgs a{words, producers, work, Cap{max_spins, dev::globaltimer() + max_ns}};
  const bool producer = ((producers >> lane) & 1u) != 0u;
  const bool then_arm = producer == (producer_in_then != 0);
  dev::RegionTimer timer;
  timer.start();
  if (then_arm)
    pc_arm<0>(a, producer, lane, out + lane);
  else
    pc_arm<1>(a, producer, lane, out + lane);
  timer.stop(sample, 0);
}

}  // namespace progress

#ifndef __CUDACC_RTC__  // host side: NVRTC (tests/sass/nvrtc/) compiles the kernels only
PcRun run_producer_consumer_probe(bool producer_in_then, std::uint32_t producers, std::uint32_t work,
                                  const ProbeCaps& caps) {
  if (producers == 0u || producers == ~0u)
    throw std::invalid_argument("run_producer_consumer_probe: the producer mask leaves one role without lanes");
  progress::ProbeBuffers<PcLane> mem(1 + kWarpLanes);
  progress::producer_consumer_kernel<<<1, kWarpLanes>>>(mem.words.get(), work, producers, producer_in_then ? 1 : 0,
                                                        caps.max_spins, caps.max_ns, mem.lanes.get(), mem.sample.get());
  auto [run, w] = mem.read_back<PcRun>("producer_consumer_kernel");
  run.published = w[0];
  return run;
}

#endif  // __CUDACC_RTC__

}  // namespace divbench
