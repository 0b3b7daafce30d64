// GPU test (label gpu): the range profiler on the calibration kernels. Exits 77 with a message when
// there is no GPU or the counters cannot be read here.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <functional>
#include <vector>
#include <string>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"
#include "divbench/cupti/metrics.hpp"
#include "divbench/cupti/region.hpp"
#include "experiments/calibration/launcher.hpp"

namespace divbench {
namespace {

constexpr std::uint32_t kIters = 2000;

constexpr std::size_t kLanes = 32;  // the calibration kernels write one float per lane

std::function<void()> launch(const DeviceBuffer<float>& b, int k, std::uint32_t iters) {
  return [&b, k, iters] {
    launch_calibration(k, iters, b.get());
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  };
}

TEST(GpuMetrics, ConvergedKernelIsExactlyThirtyTwo) {
  const DeviceBuffer<float> b(kLanes);
  const json m = collect_metrics(launch(b, 1, kIters));
  ASSERT_TRUE(m["available"].get<bool>()) << m.dump();
  EXPECT_DOUBLE_EQ(m["values"][kMetricRatio].get<double>(), 32.0);
  EXPECT_GT(m["values"][kMetricInst].get<double>(), 4.0 * kIters);
  EXPECT_DOUBLE_EQ(m["values"][kMetricThreadInst].get<double>(), 32.0 * m["values"][kMetricInst].get<double>());
}

TEST(GpuMetrics, RegionRatioIsThirtyTwoOverK) {
  const DeviceBuffer<float> b(kLanes);
  for (int k : {2, 32}) {
    const json m = collect_point_metrics(launch(b, k, kIters), launch(b, k, 0));
    ASSERT_TRUE(m["available"].get<bool>()) << m.dump();
    ASSERT_FALSE(m["region"]["ratio"].is_null()) << m.dump();
    EXPECT_NEAR(m["region"]["ratio"].get<double>(), 32.0 / k, 0.01 * 32.0 / k) << "k=" << k << " " << m.dump();
    // The whole kernel includes converged prologue/epilogue: never below the region's value.
    EXPECT_GE(m["values"][kMetricRatio].get<double>(), m["region"]["ratio"].get<double>() * 0.999);
  }
}

TEST(GpuMetrics, CountsGrowWithWork) {
  const DeviceBuffer<float> b(kLanes);
  const json small = collect_metrics(launch(b, 2, kIters));
  const json big = collect_metrics(launch(b, 2, 2 * kIters));
  ASSERT_TRUE(small["available"].get<bool>() && big["available"].get<bool>());
  EXPECT_GT(big["values"][kMetricInst].get<double>(), 1.9 * small["values"][kMetricInst].get<double>());
}

// The batch is what --metrics uses (one session for many launches): every value equals the one a
// session of its own gives. Counts are exact, so equal means equal.
TEST(GpuMetrics, OneSessionForManyLaunchesGivesTheSameValues) {
  const DeviceBuffer<float> b(kLanes);
  std::vector<std::function<void()>> launches;
  for (int k : {1, 2, 32})
    for (std::uint32_t iters : {kIters, 0u}) launches.push_back(launch(b, k, iters));
  ProfileStats stats;
  const std::vector<json> batch = collect_launch_metrics(launches, default_metrics(), &stats);
  EXPECT_EQ(stats.sessions, 1u);
  EXPECT_EQ(stats.launches, launches.size());
  ASSERT_EQ(batch.size(), launches.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const json one = collect_metrics(launches[i]);
    ASSERT_TRUE(batch[i]["available"].get<bool>() && one["available"].get<bool>()) << batch[i].dump() << one.dump();
    EXPECT_EQ(batch[i]["session_launches"], launches.size());
    for (const auto& name : default_metrics())
      EXPECT_DOUBLE_EQ(batch[i]["values"][name].get<double>(), one["values"][name].get<double>()) << i << " " << name;
  }
}

TEST(GpuMetrics, SessionsOfAtMost256Launches) {
  const DeviceBuffer<float> b(kLanes);
  std::vector<std::function<void()>> launches(260, launch(b, 2, 10));
  ProfileStats stats;
  const std::vector<json> m = collect_launch_metrics(launches, default_metrics(), &stats);
  EXPECT_EQ(stats.sessions, 2u);
  EXPECT_EQ(stats.launches, 260u);
  for (const auto& x : m) {
    ASSERT_TRUE(x["available"].get<bool>()) << x.dump();
    EXPECT_DOUBLE_EQ(x["values"][kMetricInst].get<double>(), m[0]["values"][kMetricInst].get<double>());
  }
}

TEST(GpuMetrics, PredicatedOnAndBranchUniformity) {
  const DeviceBuffer<float> b(kLanes);
  for (int k : {1, 2, 32}) {
    const json m = collect_point_metrics(launch(b, k, kIters), launch(b, k, 0));
    ASSERT_TRUE(m["available"].get<bool>()) << m.dump();
    const json& v = m["values"];
    ASSERT_TRUE(v.contains(kMetricPredOnRatio) && v.contains(kMetricBranchUniformPct)) << m.dump();
    // A thread with a false guard predicate is active but does no work: never more than the active ones.
    EXPECT_LE(v[kMetricThreadInstPredOn].get<double>(), v[kMetricThreadInst].get<double>());
    EXPECT_LE(v[kMetricPredOnRatio].get<double>(), v[kMetricRatio].get<double>() + 1e-9);
    EXPECT_GT(v[kMetricPredOnRatio].get<double>(), 0.0);
    const double pct = v[kMetricBranchUniformPct].get<double>();
    EXPECT_GE(pct, 0.0);
    EXPECT_LE(pct, 100.0);
    EXPECT_NEAR(pct, 100.0 * v[kMetricBranchTargetsUniform].get<double>() / v[kMetricBranchTargets].get<double>(), 1e-6);
    if (k == 1) EXPECT_DOUBLE_EQ(pct, 100.0) << "a converged kernel has only uniform branches";
    else EXPECT_LT(v[kMetricBranchTargetsUniform].get<double>(), v[kMetricBranchTargets].get<double>()) << "k=" << k;
    const json& r = m["region"];
    ASSERT_FALSE(r["pred_on_ratio"].is_null()) << m.dump();
    EXPECT_LE(r["pred_on_ratio"].get<double>(), r["ratio"].get<double>() + 1e-9);
  }
}

}  // namespace
}  // namespace divbench

int main(int argc, char** argv) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("SKIP: no CUDA GPU on this machine\n");
    return 77;
  }
  {
    const divbench::DeviceBuffer<float> b(divbench::kLanes);
    const divbench::json probe = divbench::collect_metrics(divbench::launch(b, 1, 1));
    if (!probe["available"].get<bool>()) {
      std::printf("SKIP: counters unavailable here: %s\n", probe["reason"].get<std::string>().c_str());
      return 77;
    }
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
