// The occupancy sweep on a real GPU, small: shared memory pins the blocks per SM, the empty kernel's
// launch overhead, and the sweep end to end (every SM at its target, corrected for launch overhead).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "divbench/cuda/occupancy.hpp"
#include "experiments/occupancy/launcher.hpp"
#include "harness/timed_point.hpp"
#include "tests/gpu/gpu_fixture.hpp"

namespace divbench {
namespace {

using namespace test;

TEST(Occupancy, SharedMemoryPinsBlocksPerSm) {
  const int sms = device().sm_count;
  const TimedKernel kernel = small_kway_kernel(Body::fma_chain, 32, LaneMap::modulo);
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

TEST(OccupancyGpu, EmptyKernelLaunchOverhead) {
  const auto one = empty_kernel_launch_ms(LaunchShape{1, 32, 0}, 1, 5);
  ASSERT_EQ(one.size(), 5u);
  for (double ms : one) {
    EXPECT_TRUE(std::isfinite(ms));
    EXPECT_GT(ms, 0.0);
    EXPECT_LT(ms, 50.0);
  }
  const auto big = empty_kernel_launch_ms(LaunchShape{device().sm_count * 2, 1024, 64 * 1024}, 1, 3);
  EXPECT_EQ(big.size(), 3u);
}

TEST(OccupancyGpu, SweepPinsEverySmAndCorrectsForLaunchOverhead) {
  CommandLine o = small_options();
  o.set("--iters", "2000");  // long enough that every shape's kernel outlasts the empty kernel (100 did not at 1 warp/SM)
  o.set("--k", "8");
  const ResultRecord r = run_sweep("occupancy", o);
  const json& s = r.summary;
  ASSERT_TRUE(s.contains("series"));
  EXPECT_FALSE(s.contains("shapes_without_penalty"));
  int per_sm = 0, waves = 0;
  for (const auto& p : s["series"]) {
    SCOPED_TRACE(p.dump());
    if (p["waves"].get<int>() == 1) {
      ++per_sm;
      EXPECT_TRUE(p["every_sm_at_target"].get<bool>());  // pinned: every SM held exactly w warps
    } else {
      ++waves;
    }
    EXPECT_GT(p["launch_overhead_ms_k"].get<double>(), 0);
    EXPECT_GT(p["region_penalty"].get<double>(), 1.0);
  }
  const int max_w = device().max_threads_per_sm / 32;
  EXPECT_EQ(per_sm, static_cast<int>(std::ceil(std::log2(max_w))) + 1);  // 1, 2, 4, ... max
  EXPECT_EQ(waves, 2);
  EXPECT_GT(s["penalty_min"].get<double>(), 1.0);
  EXPECT_GT(s["launch_overhead_ms"].get<double>(), 0);
}

TEST(OccupancyGpu, MetricLaunchesAreTheKSweepsAtPlacementZero) {
  // Under --all the occupancy points' metric launches (one warp of the k-way kernel at k = 1 and 32)
  // are the k sweep's at placement 0: equal launch keys, so the run profiles them once.
  const std::vector<PointSpec> kway = prepared("sweep", "kway", {}).plan(device());
  const std::vector<PointSpec> occupancy = prepared("sweep", "occupancy", {}).plan(device());
  std::set<std::string> keys;
  for (const auto& p : kway) keys.insert(p.launch_key);
  ASSERT_FALSE(occupancy.empty());
  for (const auto& p : occupancy) EXPECT_EQ(keys.count(p.launch_key), 1u) << p.launch_key;
}

}  // namespace
}  // namespace divbench
