// Every dynamic-suite kernel on a real GPU, small: outputs match the host references, probes finish.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include <cmath>
#include <cstring>
#include <limits>

#include "divbench/core/errors.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/launch.hpp"
#include "experiments/kway/launcher.hpp"
#include "experiments/predication/launcher.hpp"
#include "divbench/kernels/progress.hpp"
#include "experiments/lock/launcher.hpp"
#include "experiments/peer_wait/launcher.hpp"
#include "experiments/producer_consumer/launcher.hpp"
#include "divbench/cuda/device_info.hpp"
#include "gpu_fixture.hpp"
#include "divbench/cuda/occupancy.hpp"
#include "harness/timed_point.hpp"

namespace divbench {
namespace {

using test::device;

TimedKernel small_kernel(Body body, int k, LaneMap map) {
  const LaneAssignment lanes = assign_lanes(map, k, body == Body::mem_divergent ? 20u : 50u, 7);
  return kway_timed_kernel(body, make_kway_params(body, k, lanes), 0);
}

PointResult run_small(const TimedKernel& kernel, std::optional<LaunchShape> shape, bool events = false) {
  TimedRun run;
  run.timing.reps = 3;
  run.timing.warmup = 1;
  run.timing.sampling = Sampling::single;
  run.shape = shape;
  run.kernel_events = events;
  return run_timed_point(kernel, run, device(), 1);
}

TEST(KwayBodies, EveryBodyVerifiesAtSeveralK) {
  for (Body b : all_bodies())
    for (int k : {1, 2, 7, 32}) {
      SCOPED_TRACE(std::string(body_name(b)) + " k=" + std::to_string(k));
      const PointResult r = run_small(small_kernel(b, k, LaneMap::modulo), LaunchShape{2, 64, 0});  // throws on a mismatch
      EXPECT_TRUE(r.point.extra["verified"].get<bool>());
      EXPECT_EQ(r.point.launches, 3u);
      EXPECT_GT(r.point.cycles.median, 0);
    }
}

TEST(KwayBodies, BodiesDiffer) {
  // Sanity of the references themselves: different bodies give different lane results.
  const LaneAssignment lanes = assign_lanes(LaneMap::modulo, 2, 50, 7);
  const KwayParams p = make_kway_params(Body::fma_chain, 2, lanes);
  const float a = kway_reference(Body::fma_chain, p, 3);
  EXPECT_NE(a, kway_reference(Body::fma_indep, p, 3));
  EXPECT_NE(a, kway_reference(Body::int_alu, p, 3));
  EXPECT_TRUE(std::isfinite(kway_reference(Body::sfu, p, 3)));
  EXPECT_THROW(kway_reference(Body::mem_divergent, p, 3), std::invalid_argument);  // table_words of another body
  EXPECT_TRUE(std::isfinite(kway_reference(Body::mem_divergent, make_kway_params(Body::mem_divergent, 2, lanes), 3)));
}

TEST(KwayMaps, EveryMapVerifies) {
  for (LaneMap m : all_lane_maps()) {
    SCOPED_TRACE(lane_map_name(m));
    EXPECT_NO_THROW(run_small(small_kernel(Body::fma_chain, 5, m), std::nullopt));
  }
}

TEST(Occupancy, SharedMemoryPinsBlocksPerSm) {
  const int sms = device().sm_count;
  const TimedKernel kernel = small_kernel(Body::fma_chain, 32, LaneMap::modulo);
  const std::size_t one = smem_to_pin_blocks_per_sm(device().index, 1);
  EXPECT_EQ(kernel.blocks_per_sm(LaunchShape{sms, 64, one}), 1);
  const std::size_t two = smem_to_pin_blocks_per_sm(device().index, 2);
  EXPECT_EQ(kernel.blocks_per_sm(LaunchShape{sms, 64, two}), 2);
  const PointResult r = run_small(kernel, LaunchShape{sms, 64, one}, true);
  int warps = 0, max_per_sm = 0;
  for (const auto& v : r.point.extra["sm_warps"]) {
    warps += v.get<int>();
    max_per_sm = std::max(max_per_sm, v.get<int>());
  }
  EXPECT_EQ(warps, 2 * sms);
  EXPECT_EQ(max_per_sm, 2);  // one 2-warp block per SM
  EXPECT_GT(r.point.extra["kernel_ms"]["median"].get<double>(), 0.0);
}

TEST(Predication, EveryVariantVerifies) {
  struct V {
    PredVariant v;
    int arms;
  };
  std::vector<V> vs{{PredVariant::single, 1}, {PredVariant::branchy, 2}};
  for (int a : predicated_arm_counts()) vs.push_back({PredVariant::predicated, a});
  for (const auto& v : vs) {
    SCOPED_TRACE(std::string(pred_variant_name(v.v)) + " arms=" + std::to_string(v.arms));
    EXPECT_NO_THROW(run_small(predication_timed_kernel(v.v, v.arms, 40), LaunchShape{2, 64, 0}));  // bit-exact check
  }
}


TEST(Progress, LockServesAllLanesInBothForms) {
  for (LockForm f : {LockForm::release_in_branch, LockForm::release_after_loop}) {
    SCOPED_TRACE(lock_form_name(f));
    const LockRun run = run_lock_probe(f, 10, ProbeCaps{});
    ASSERT_EQ(run.lanes.size(), 32u);
    std::vector<int> seen(32, 0);
    int served = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const LockLane& l = run.lanes[lane];
      if (l.acquired != 1) continue;
      ++served;
      ASSERT_LT(l.order, 32u);
      ++seen[l.order];
      const float want = probe_work_reference(lane, 10);
      EXPECT_EQ(0, std::memcmp(&want, &l.value, sizeof want));
    }
    EXPECT_EQ(run.counter, static_cast<std::uint32_t>(served));
    EXPECT_EQ(run.lock_after, 0u);
    if (test::cc_major() >= 7 || f == LockForm::release_in_branch) {
      EXPECT_EQ(served, 32);
      for (int o = 0; o < 32; ++o) EXPECT_EQ(seen[o], 1) << "order " << o;
    }
  }
}

TEST(Progress, PeerWaitCompletesUnderIts) {
  const PeerWaitRun run = run_peer_wait_probe(4, ProbeCaps{});
  ASSERT_EQ(run.lanes.size(), 32u);
  if (test::cc_major() < 7) GTEST_SKIP() << "pre-ITS GPU: the cap is the expected outcome";
  for (int lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(run.lanes[lane].capped, 0u) << "lane " << lane;
    EXPECT_EQ(run.lanes[lane].rounds_done, 4u) << "lane " << lane;
    EXPECT_EQ(run.lanes[lane].side, static_cast<std::uint32_t>(lane & 1));
  }
  EXPECT_EQ(run.ping, 4u);
  EXPECT_EQ(run.pong, 4u);
}

TEST(Progress, PeerWaitCapBoundsTheWait) {
  // With a zero-length deadline every wait gives up at once: the probe returns, it does not hang.
  ProbeCaps caps;
  caps.max_ns = 0;
  caps.max_spins = 1;
  const PeerWaitRun run = run_peer_wait_probe(4, caps);
  bool any_capped = false;
  for (const auto& l : run.lanes) any_capped = any_capped || l.capped == 1;
  EXPECT_TRUE(any_capped);
}

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

}  // namespace
}  // namespace divbench
