// The producer/consumer probe's kernel on a real GPU: one producer or 31 publish, in both arm orders,
// and the consumers read the host reference's values.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

#include "divbench/kernels/progress.hpp"
#include "experiments/producer_consumer/launcher.hpp"
#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

TEST(Progress, ProducerConsumerBothOrders) {
  for (bool in_then : {true, false}) {
    SCOPED_TRACE(in_then ? "producer in then-arm" : "producer in else-arm");
    const PcRun run = run_producer_consumer_probe(in_then, 1u, 1000, ProbeCaps{});  // producer: lane 0
    const float want = probe_work_reference(0, 1000);
    ASSERT_EQ(run.lanes.size(), 32u);
    EXPECT_EQ(run.published, 1u);
    EXPECT_EQ(run.lanes[0].role, 1u);
    EXPECT_EQ(run.lanes[0].side, in_then ? 0u : 1u);
    EXPECT_EQ(0, std::memcmp(&want, &run.lanes[0].value, sizeof want));
    for (int lane = 1; lane < 32; ++lane) {
      const PcLane& c = run.lanes[lane];
      EXPECT_EQ(c.role, 2u);
      EXPECT_EQ(c.side, in_then ? 1u : 0u);
      if (test::cc_major() >= 7) {
        EXPECT_EQ(c.capped, 0u) << "lane " << lane;
        EXPECT_EQ(0, std::memcmp(&want, &c.value, sizeof want)) << "lane " << lane;
      }
    }
  }
}

TEST(ProducerConsumer, MajorityProducersPublishAndTheConsumerReadsTheirSum) {
  const std::uint32_t producers = 0x7fffffffu;  // lanes 0..30; lane 31 consumes
  for (bool in_then : {true, false}) {
    SCOPED_TRACE(in_then ? "producers in then-arm" : "producers in else-arm");
    const PcRun run = run_producer_consumer_probe(in_then, producers, 500, ProbeCaps{});
    EXPECT_EQ(run.published, 31u);
    float sum = 0;
    for (int lane = 0; lane < 31; ++lane) {
      const float want = probe_work_reference(lane, 500);
      EXPECT_EQ(run.lanes[lane].role, 1u);
      EXPECT_EQ(0, std::memcmp(&want, &run.lanes[lane].value, sizeof want)) << "lane " << lane;
      sum = lane == 0 ? want : sum + want;
    }
    const PcLane& c = run.lanes[31];
    EXPECT_EQ(c.role, 2u);
    EXPECT_EQ(c.side, in_then ? 1u : 0u);
    if (test::cc_major() >= 7) {
      EXPECT_EQ(c.capped, 0u);
      EXPECT_EQ(0, std::memcmp(&sum, &c.value, sizeof sum));
    }
  }
  EXPECT_THROW(run_producer_consumer_probe(true, 0u, 10, ProbeCaps{}), std::invalid_argument);
}


}  // namespace
}  // namespace divbench
