// Host wrapper of the bounded peer-wait (deadlock) probe (experiments/peer_wait/peer_wait.cu), every
// wait bounded (ProbeCaps, divbench/kernels/progress.hpp). Each call runs ONE launch synchronously and
// returns what every lane recorded.
#pragma once
#include <cstdint>
#ifndef __CUDACC_RTC__  // NVRTC (tests/sass/nvrtc/) sees the types the kernels use only
#include <vector>
#endif

#include "divbench/cuda/region_sample.hpp"
#include "divbench/kernels/progress.hpp"

namespace divbench {

// The peer-wait probe: even lanes (side 0) and odd lanes (side 1) of one warp, in the two arms of one
// divergent if/else, hand a token back and forth `rounds` times: side 0 waits for pong >= r and then
// lane 0 sets ping = r + 1; side 1 waits for ping >= r + 1 and then lane 1 sets pong = r + 1. Every
// round needs the scheduler to switch paths; a SIMT stack that runs one arm to completion deadlocks
// at round 0 (here: reaches the cap).
struct PeerWaitLane {
  std::uint32_t side;         // 0 or 1
  std::uint32_t rounds_done;  // rounds this lane saw through
  std::uint32_t capped;       // 1: gave up at the cap
  std::uint32_t max_spins;    // longest single wait
  std::uint64_t total_spins;
  std::uint64_t enter_clk;    // clock64 at the arm's first instruction
};

#ifndef __CUDACC_RTC__
struct PeerWaitRun {
  std::vector<PeerWaitLane> lanes;
  std::uint32_t ping = 0, pong = 0;
  RegionSample region{};
};

PeerWaitRun run_peer_wait_probe(std::uint32_t rounds, const ProbeCaps& caps);
#endif

}  // namespace divbench
