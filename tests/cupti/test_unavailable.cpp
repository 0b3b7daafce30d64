// The paths that need no GPU: loading libcupti, and "metrics unavailable" without a device or when
// switched off. The launches still run once each (the launch sequence ncu counts on).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

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

TEST(CollectMetrics, DefaultMetricsAreTheThreeCounters) {
  const auto& m = default_metrics();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], kMetricRatio);
  EXPECT_EQ(m[1], kMetricInst);
  EXPECT_EQ(m[2], kMetricThreadInst);
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

}  // namespace
}  // namespace divbench
