// The occupancy sweep without a GPU: its configuration (launches per point, no raw samples) and its
// summary from synthetic points (penalty from launch-overhead-corrected kernel times, the steady-
// state flag of the per-warp region time, waves, the series).
#include <gtest/gtest.h>

#include "harness/experiment.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"

using namespace divbench;

namespace {

constexpr double kMhz = 2000;  // cycles per microsecond: 2000

// One point: the region's median in ms (at 2 GHz), the kernel's event time and the empty kernel's.
TimedPoint pt(int k, int w, int waves, double region_ms, double kernel_ms, double overhead_ms,
              const std::string& series = "resident") {
  TimedPoint p;
  p.k = k;
  p.clock_mhz = kMhz;
  p.cycles.median = p.cycles.min = p.cycles.max = p.cycles.mean = region_ms * kMhz * 1e3;
  p.cycles.n = 1;
  p.extra = json{{"residency", {{"series", series}, {"warps_per_sm", w}, {"waves", waves}, {"total_warps", w * 132 * waves},
                                {"sms_used", 132}, {"every_sm_at_target", true}, {"achieved_occupancy", w / 64.0}}},
                 {"kernel_ms", {{"median", kernel_ms}}},
                 {"launch_overhead_ms", {{"median", overhead_ms}}}};
  return p;
}

ResultRecord finalize(std::vector<TimedPoint> pts) {
  ResultRecord r;
  r.points = std::move(pts);
  synthetic::prepare("sweep", "occupancy", CommandLine{}).finalize(r);
  return r;
}

}  // namespace

TEST(OccupancySummary, PenaltyFromCorrectedKernelTimes) {
  // Region 0.145 ms vs kernel 0.150 - 0.005: steady. k = 32: 4.64 of 4.645 - 0.005.
  const ResultRecord r = finalize({pt(1, 1, 1, 0.145, 0.150, 0.005), pt(32, 1, 1, 4.64, 4.645, 0.005)});
  const json& s = r.summary;
  EXPECT_NEAR(s["penalty_min"].get<double>(), 4.64 / 0.145, 1e-9);
  EXPECT_NEAR(s["penalty_max"].get<double>(), 4.64 / 0.145, 1e-9);
  EXPECT_NEAR(s["kernel_penalty_raw_min"].get<double>(), 4.645 / 0.150, 1e-9);  // launch overhead biases it low
  EXPECT_LT(s["kernel_penalty_raw_max"].get<double>(), s["penalty_min"].get<double>());
  ASSERT_EQ(s["series"].size(), 1u);
  const json& p = s["series"][0];
  EXPECT_TRUE(p["steady_state"].get<bool>());
  EXPECT_NEAR(p["penalty"].get<double>(), 4.64 / 0.145, 1e-9);
  EXPECT_NEAR(p["region_penalty"].get<double>(), 4.64 / 0.145, 1e-9);
  EXPECT_EQ(p["warps_per_sm_launched"].get<int>(), 1);
  EXPECT_NEAR(r.points[0].extra["kernel_ms_corrected"]["median"].get<double>(), 0.145, 1e-12);
  EXPECT_NEAR(s["launch_overhead_ms"].get<double>(), 0.005, 1e-12);
  EXPECT_NE(s["steady_state_test"].get<std::string>().find("0.9"), std::string::npos);
}

TEST(OccupancySummary, RegionNotCoveringTheKernelIsNotSteady) {
  // The H200 audit's 64 warps per SM: median region 873,906 cycles in a kernel of about 1,178,000.
  const double region = 873906.0 / (kMhz * 1e3), kernel = 1178000.0 / (kMhz * 1e3);
  const ResultRecord r = finalize({pt(1, 64, 1, region / 32, kernel / 32 + 0.004, 0.004),
                                   pt(32, 64, 1, region, kernel + 0.004, 0.004),
                                   pt(1, 1, 1, 0.145, 0.149, 0.004), pt(32, 1, 1, 4.64, 4.644, 0.004)});
  EXPECT_FALSE(r.points[1].extra["steady_state"].get<bool>());
  EXPECT_NEAR(r.points[1].extra["region_share"].get<double>(), 873906.0 / 1178000.0, 1e-9);
  const json& s = r.summary;
  EXPECT_NEAR(s["penalty_min"].get<double>(), 32.0, 1e-9);
  EXPECT_NEAR(s["region_penalty_steady_min"].get<double>(), 4.64 / 0.145, 1e-9);  // the steady pair only
  EXPECT_NEAR(s["region_penalty_steady_max"].get<double>(), 4.64 / 0.145, 1e-9);
  EXPECT_EQ(s["series"].size(), 2u);
  int unsteady = 0;
  for (const auto& p : s["series"]) unsteady += p["steady_state"].get<bool>() ? 0 : 1;
  EXPECT_EQ(unsteady, 1);
}

TEST(OccupancySummary, WavesCountInTheRegionShare) {
  // 4 waves: each warp's region is a quarter of the kernel; that is steady state per wave.
  const ResultRecord r = finalize({pt(1, 64, 4, 0.5, 2.005, 0.005, "oversubscribed"),
                                   pt(32, 64, 4, 16.0, 64.005, 0.005, "oversubscribed")});
  EXPECT_TRUE(r.points[0].extra["steady_state"].get<bool>());
  EXPECT_NEAR(r.points[1].extra["region_share"].get<double>(), 1.0, 1e-9);
  const json& p = r.summary["series"][0];
  EXPECT_EQ(p["series"], "oversubscribed");
  EXPECT_EQ(p["waves"].get<int>(), 4);
  EXPECT_EQ(p["warps_per_sm_launched"].get<int>(), 256);
  EXPECT_EQ(p["total_warps"].get<int>(), 64 * 132 * 4);
  EXPECT_NEAR(p["penalty"].get<double>(), 32.0, 1e-9);
}

TEST(OccupancySummary, KernelNotAboveItsOverheadGetsNoPenalty) {
  const ResultRecord r = finalize({pt(1, 1, 1, 0.001, 0.004, 0.005), pt(32, 1, 1, 0.032, 0.036, 0.005),
                                   pt(1, 2, 1, 0.145, 0.150, 0.005), pt(32, 2, 1, 4.64, 4.645, 0.005)});
  EXPECT_TRUE(r.points[0].extra["kernel_ms_corrected"].is_null());
  EXPECT_FALSE(r.points[0].extra["steady_state"].get<bool>());
  const json& s = r.summary;
  ASSERT_EQ(s["series"].size(), 1u);  // the other shape only
  EXPECT_EQ(s["series"][0]["warps_per_sm"].get<int>(), 2);
  ASSERT_EQ(s["shapes_without_penalty"].size(), 1u);
  EXPECT_EQ(s["shapes_without_penalty"][0]["warps_per_sm"].get<int>(), 1);
  EXPECT_NEAR(s["penalty_min"].get<double>(), 4.64 / 0.145, 1e-9);
}

TEST(OccupancyConfig, LaunchesPerPointAndNoRawSamples) {
  const json c = synthetic::prepare("sweep", "occupancy", CommandLine{}).config;
  EXPECT_EQ(c["reps"].get<int>(), 21);
  EXPECT_FALSE(c["samples_kept"].get<bool>());
  EXPECT_EQ(c["oversubscribed_waves"], json({2, 4}));
  EXPECT_NEAR(c["steady_state_min_share"].get<double>(), 0.9, 1e-12);
  CommandLine o;
  o.set("--reps", "201");
  EXPECT_EQ(synthetic::prepare("sweep", "occupancy", o).config["reps"].get<int>(), 201);
}

TEST(OccupancySummary, TheBoundedPenaltyNeverExceedsK) {
  // The H200's shape at 1 warp per SM: T(1) = 0.1456, T(32) = 4.534 (raw 31.14), empty kernel 0.0041 ms.
  // T = k s + c gives c_hat = (32 * 0.1456 - 4.534) / 31 = 0.00403 < 0.0041: subtracting the empty
  // kernel over-corrects (penalty 32.02 > 32); subtracting c_hat would give 32 by construction, so the
  // shape has no bounded penalty (null, uninformative), never 32.
  const ResultRecord r = finalize({pt(1, 1, 1, 0.14, 0.1456, 0.0041), pt(32, 1, 1, 4.5, 4.534, 0.0041),
                                   pt(1, 2, 1, 0.14, 0.1500, 0.0040), pt(32, 2, 1, 4.5, 4.6000, 0.0040)});
  const json& s = r.summary;
  EXPECT_GT(s["penalty_max"].get<double>(), 32.0);  // the empty-kernel correction exceeds the ceiling
  EXPECT_LE(s["penalty_bounded_max"].get<double>(), 32.0 + 1e-12);
  EXPECT_EQ(s["shapes_empty_kernel_exceeds_fixed_cost"].get<int>(), 1);
  const json& over = s["series"][0];
  EXPECT_TRUE(over["empty_kernel_exceeds_fixed_cost"].get<bool>());
  EXPECT_NEAR(over["fixed_cost_ms"].get<double>(), (32 * 0.1456 - 4.534) / 31, 1e-12);
  EXPECT_TRUE(over["penalty_bounded"].is_null());
  EXPECT_FALSE(over["correction_informative"].get<bool>());
  EXPECT_FALSE(over["why_uninformative"].get<std::string>().empty());
  // The summary's bounded range is over the informative shape alone.
  EXPECT_DOUBLE_EQ(s["penalty_bounded_max"].get<double>(), s["series"][1]["penalty_bounded"].get<double>());
  EXPECT_DOUBLE_EQ(s["penalty_bounded_min"].get<double>(), s["series"][1]["penalty_bounded"].get<double>());
  // At 2 warps per SM c_hat = (4.8 - 4.6) / 31 = 0.00645 > 0.004: the empty kernel is subtracted as is.
  const json& under = s["series"][1];
  EXPECT_FALSE(under["empty_kernel_exceeds_fixed_cost"].get<bool>());
  EXPECT_NEAR(under["penalty_bounded"].get<double>(), (4.6 - 0.004) / (0.15 - 0.004), 1e-9);
  EXPECT_NEAR(under["penalty_bounded"].get<double>(), under["penalty"].get<double>(), 1e-12);
  EXPECT_LT(under["penalty_bounded"].get<double>(), 32.0);
  EXPECT_TRUE(under["correction_informative"].get<bool>());
  EXPECT_TRUE(under["why_uninformative"].is_null());
}

TEST(OccupancySummary, NoInformativeShapeGivesNoBoundedRange) {
  // Both shapes over-corrected: no bounded penalty at all (null range), none reported as K.
  const ResultRecord r = finalize({pt(1, 1, 1, 0.14, 0.1456, 0.0041), pt(32, 1, 1, 4.5, 4.534, 0.0041)});
  EXPECT_TRUE(r.summary["penalty_bounded_min"].is_null());
  EXPECT_TRUE(r.summary["penalty_bounded_max"].is_null());
  EXPECT_EQ(r.summary["shapes_empty_kernel_exceeds_fixed_cost"].get<int>(), 1);
  EXPECT_TRUE(r.summary["series"][0]["penalty_bounded"].is_null());
}
