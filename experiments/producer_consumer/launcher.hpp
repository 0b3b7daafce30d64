// Host wrapper of the producer/consumer probe (experiments/producer_consumer/producer_consumer.cu): one
// warp, every spin bounded (ProbeCaps, divbench/kernels/progress.hpp). Each call runs ONE launch
// synchronously and returns what every lane recorded.
#pragma once
#include <cstdint>
#ifndef __CUDACC_RTC__  // NVRTC (tests/sass/nvrtc/) sees the types the kernels use only
#include <vector>
#endif

#include "divbench/cuda/region_sample.hpp"
#include "divbench/kernels/progress.hpp"

namespace divbench {

// ---- producer/consumer: the producer lanes (a mask: one lane, or the majority) each run `work`
// iterations of the FMA chain, publish the result and count themselves published; the other lanes
// spin until every producer has published, then read the producers' results summed in lane order.
// The producers and the consumers sit in the two arms of one divergent if/else whose arms are two
// distinct __noinline__ functions (side 0 = the `then` arm pc_arm<0>, side 1 = the `else` arm
// pc_arm<1>). producer_in_then puts the producers in side 0, so both structural orders run from one
// binary; which side is the fall-through is read from the SASS (model/arm_side.hpp).
struct PcLane {
  std::uint32_t role;    // 1 producer, 2 consumer
  std::uint32_t side;    // 0 then-arm, 1 else-arm
  std::uint32_t spins;   // consumer: polls before every producer had published
  std::uint32_t capped;  // consumer: 1 if it gave up at the cap
  float value;           // producer: its result; consumer: the sum of the producers' results it read
  std::uint32_t pad;
  std::uint64_t enter_clk;  // clock64 on entering its arm
  std::uint64_t done_clk;   // clock64 when done (producer: after publishing; consumer: after reading)
};

#ifndef __CUDACC_RTC__
struct PcRun {
  std::vector<PcLane> lanes;
  std::uint32_t published = 0;  // producers that published
  RegionSample region{};
};

// producers: neither empty nor all 32 lanes (std::invalid_argument).
PcRun run_producer_consumer_probe(bool producer_in_then, std::uint32_t producers, std::uint32_t work,
                                  const ProbeCaps& caps);
#endif

}  // namespace divbench
