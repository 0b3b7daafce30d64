// The paths that need no GPU: loading libcupti, and "metrics unavailable" without a device or when
// switched off. The launches still run once each (the launch sequence ncu counts on).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "cupti_api.hpp"
#include "divbench/cupti/metrics.hpp"
#include "divbench/cupti/region.hpp"

namespace divbench {
namespace {

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

TEST(CuptiLoader, MissingLibraryIsAReasonNotACrash) {
  std::string why;
  EXPECT_EQ(cupti::open_api({"/nonexistent/libcupti.so.13"}, &why), nullptr);
  EXPECT_NE(why.find("cannot load libcupti"), std::string::npos) << why;
  EXPECT_EQ(cupti::open_api({}, &why), nullptr);
}

TEST(CuptiLoader, LibraryWithoutCuptiIsRejected) {
  std::string why;
  EXPECT_EQ(cupti::open_api({"libm.so.6"}, &why), nullptr);
  EXPECT_NE(why.find("lacks cupti"), std::string::npos) << why;
}

TEST(CuptiLoader, ToolkitLibraryResolvesEveryFunction) {
  std::string found;
  for (const auto& c : cupti::library_candidates())
    if (c.find('/') != std::string::npos && std::filesystem::exists(c)) {
      found = c;
      break;
    }
  if (found.empty()) GTEST_SKIP() << "no libcupti.so.13 at a known path on this machine";
  std::string why;
  const auto api = cupti::open_api({found}, &why);
  ASSERT_NE(api, nullptr) << why;
  EXPECT_EQ(api->path, found);
  const char* text = nullptr;
  EXPECT_EQ(api->cuptiGetResultString(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, &text), CUPTI_SUCCESS);
  ASSERT_NE(text, nullptr);
}

TEST(CuptiLoader, EnvironmentOverridesTheSearch) {
  setenv("DIVBENCH_CUPTI_LIB", "/opt/x/libcupti.so.13", 1);
  const auto c = cupti::library_candidates();
  unsetenv("DIVBENCH_CUPTI_LIB");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], "/opt/x/libcupti.so.13");
  const auto d = cupti::library_candidates();
  ASSERT_GE(d.size(), 3u);
  EXPECT_EQ(d.front(), "libcupti.so.13");  // LD_LIBRARY_PATH first, then fixed places
  for (std::size_t i = 1; i < d.size(); ++i) EXPECT_EQ(d[i].front(), '/') << d[i];
}

TEST(CollectMetrics, DefaultMetricsKeepTheThreeCountersFirst) {
  const auto& m = default_metrics();
  ASSERT_EQ(m.size(), 8u);
  EXPECT_EQ(m[0], kMetricRatio);
  EXPECT_EQ(m[1], kMetricInst);
  EXPECT_EQ(m[2], kMetricThreadInst);
  for (const char* n : {kMetricPredOnRatio, kMetricThreadInstPredOn, kMetricBranchUniformPct, kMetricBranchTargets,
                        kMetricBranchTargetsUniform})
    EXPECT_NE(std::find(m.begin(), m.end(), n), m.end()) << n;
  // The names (a contract of the results): kept exactly.
  EXPECT_EQ(std::string(kMetricPredOnRatio), "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio");
  EXPECT_EQ(std::string(kMetricBranchUniformPct), "smsp__sass_average_branch_targets_threads_uniform.pct");
  EXPECT_EQ(required_metrics(), std::vector<std::string>(m.begin(), m.begin() + 3));
}

TEST(CollectMetrics, UnavailableWithoutGpuStillLaunchesOnce) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present: the profiler may be available here (see the gpu tests)";
  int full = 0, twin = 0;
  const json m = collect_point_metrics([&] { ++full; }, [&] { ++twin; });
  EXPECT_EQ(full, 1);
  EXPECT_EQ(twin, 1);
  EXPECT_FALSE(m.at("available").get<bool>());
  EXPECT_FALSE(m.at("reason").get<std::string>().empty());
  EXPECT_FALSE(m.contains("region"));
  EXPECT_FALSE(m.contains("values"));
}

TEST(CollectMetrics, SwitchedOffByEnvironment) {
  setenv("DIVBENCH_CUPTI", "off", 1);
  int n = 0;
  const json m = collect_metrics([&] { ++n; });
  unsetenv("DIVBENCH_CUPTI");
  EXPECT_EQ(n, 1);
  EXPECT_FALSE(m.at("available").get<bool>());
  // Sticky for the process: a second point reports the same and still launches.
  const json again = collect_metrics([&] { ++n; });
  EXPECT_EQ(n, 2);
  EXPECT_EQ(again.at("reason"), m.at("reason"));
}

TEST(CollectMetrics, UnavailableBatchRunsEveryLaunchOnceInOrder) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present: the profiler may be available here (see the gpu tests)";
  std::vector<int> order;
  std::vector<PointLaunches> points;
  for (int p = 0; p < 3; ++p) {
    std::function<void()> twin;
    if (p != 1) twin = [&order, p] { order.push_back(10 * p + 1); };
    points.push_back({[&order, p] { order.push_back(10 * p); }, twin});
  }
  ProfileStats stats;
  const std::vector<json> m = collect_points_metrics(points, &stats);
  // Full then twin, point by point (point 1 has no twin): the sequence ncu sees.
  EXPECT_EQ(order, (std::vector<int>{0, 1, 10, 20, 21}));
  ASSERT_EQ(m.size(), 3u);
  for (const auto& x : m) {
    EXPECT_FALSE(x.at("available").get<bool>());
    EXPECT_FALSE(x.contains("region"));
  }
  EXPECT_EQ(stats.launches, 0u);
  EXPECT_EQ(stats.sessions, 0u);
}

TEST(CollectMetrics, PointsWithOneKeyLaunchOnceAndShareTheObject) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present: the profiler may be available here (see the gpu tests)";
  std::vector<int> order;
  std::vector<PointLaunches> points;
  const char* keys[] = {"a", "", "a", "b", "a"};
  for (int p = 0; p < 5; ++p)
    points.push_back({[&order, p] { order.push_back(10 * p); }, [&order, p] { order.push_back(10 * p + 1); }, keys[p]});
  const std::vector<json> m = collect_points_metrics(points);
  // Points 2 and 4 share point 0's launches: they never run.
  EXPECT_EQ(order, (std::vector<int>{0, 1, 10, 11, 30, 31}));
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].at("launch_key"), "a");
  EXPECT_EQ(m[0].at("points_sharing_launch"), 3);
  EXPECT_EQ(m[4].at("launch_key"), "a");
  EXPECT_EQ(m[4].at("points_sharing_launch"), 3);
  EXPECT_EQ(m[3].at("points_sharing_launch"), 1);
  EXPECT_FALSE(m[1].contains("launch_key"));
  for (const auto& x : m) EXPECT_FALSE(x.at("available").get<bool>());
}

TEST(DeferredMetrics, DeliversEachPointItsObjectAfterTheRun) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present: the profiler may be available here (see the gpu tests)";
  std::vector<int> selected;
  DeferredMetrics d([&selected](int dev) { selected.push_back(dev); });
  EXPECT_TRUE(d.run(nullptr).is_null());  // nothing queued: no device touched
  EXPECT_TRUE(selected.empty());
  std::vector<std::string> order;
  std::vector<json> got(3);
  const int device_of[] = {1, 0, 1};
  for (int p = 0; p < 3; ++p)
    d.add(device_of[p], {[&order, p] { order.push_back("full" + std::to_string(p)); },
                         [&order, p] { order.push_back("twin" + std::to_string(p)); }},
          [&got, p](json m) { got[p] = std::move(m); });
  EXPECT_EQ(d.size(), 3u);
  EXPECT_TRUE(order.empty());  // queued, not run
  std::vector<std::string> notes;
  const json t = d.run([&notes](const std::string& n) { notes.push_back(n); });
  // Devices in the order first queued; within a device the points in queue order.
  EXPECT_EQ(selected, (std::vector<int>{1, 0}));
  EXPECT_EQ(order, (std::vector<std::string>{"full0", "twin0", "full2", "twin2", "full1", "twin1"}));
  for (const auto& m : got) {
    ASSERT_TRUE(m.is_object());
    EXPECT_FALSE(m.at("available").get<bool>());
  }
  EXPECT_EQ(t.at("points"), 3);
  EXPECT_EQ(t.at("launches"), 0);  // none profiled
  EXPECT_EQ(notes.size(), 4u);     // before and after each device's pass
  EXPECT_EQ(d.size(), 0u);
}

}  // namespace
}  // namespace divbench
