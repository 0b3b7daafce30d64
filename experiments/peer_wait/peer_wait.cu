// Bounded peer-wait (deadlock) probe: the two arms of one divergent if/else wait for each other in
// turn. See experiments/peer_wait/launcher.hpp.
#include "progress/bounded.cuh"
#include "experiments/peer_wait/launcher.hpp"

namespace divbench {
namespace progress {

// words[0] = ping (written by lane 0 of side 0), words[1] = pong (written by lane 1 of side 1).
// Side 0 waits for pong >= round and publishes ping = round + 1; side 1 waits for ping >= round + 1
// and publishes pong = round + 1. Two distinct __noinline__ functions, so the compiler cannot merge
// the arms into one lane-parameterized path.
template <int Side>
__device__ __noinline__ void take_turns(std::uint32_t* words, bool publisher, std::uint32_t rounds, Cap cap,
                                        PeerWaitLane* out) {
  const std::uint64_t enter = static_cast<std::uint64_t>(clock64());  // which side ran first
  std::uint32_t* wait_on = words + (Side == 0 ? 1 : 0);
  std::uint32_t* publish = words + (Side == 0 ? 0 : 1);
  constexpr std::uint32_t offset = Side == 0 ? 0u : 1u;
  PeerWaitLane r{static_cast<std::uint32_t>(Side), 0u, 0u, 0u, 0ull, enter};
  for (std::uint32_t round = 0; round < rounds; ++round) {
    std::uint32_t spins = 0;
    while (ld_volatile(wait_on) < round + offset) {
      if (cap.reached(++spins)) {
        r.capped = 1;
        break;
      }
    }
    r.total_spins += spins;
    r.max_spins = spins > r.max_spins ? spins : r.max_spins;
    if (r.capped) break;
    if (publisher) {
      __threadfence();
      st_volatile(publish, round + 1);
    }
    r.rounds_done = round + 1;
  }
  *out = r;
}

__global__ void peer_wait_kernel(std::uint32_t* words, std::uint32_t rounds, std::uint32_t max_spins,
                                 std::uint64_t max_ns, PeerWaitLane* out, RegionSample* sample) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const Cap cap{max_spins, dev::globaltimer() + max_ns};
  dev::RegionTimer timer;
  timer.start();
  if ((lane & 1) == 0)
    take_turns<0>(words, lane == 0, rounds, cap, out + lane);
  else
    take_turns<1>(words, lane == 1, rounds, cap, out + lane);
  timer.stop(sample, 0);
}

}  // namespace progress

#ifndef __CUDACC_RTC__  // host side: NVRTC (tests/sass/nvrtc/) compiles the kernels only
PeerWaitRun run_peer_wait_probe(std::uint32_t rounds, const ProbeCaps& caps) {
  progress::ProbeBuffers<PeerWaitLane> mem(2);
  progress::peer_wait_kernel<<<1, kWarpLanes>>>(mem.words.get(), rounds, caps.max_spins, caps.max_ns, mem.lanes.get(),
                                                mem.sample.get());
  auto [run, w] = mem.read_back<PeerWaitRun>("peer_wait_kernel");
  run.ping = w[0];
  run.pong = w[1];
  return run;
}

#endif  // __CUDACC_RTC__

}  // namespace divbench
