// The runner's verdict and how the console and CSV show it, on synthetic points (no GPU): a disturbed
// point makes the result untrustworthy, the verdict records the policy and what could not be checked,
// and the console table marks the point and ends with the verdict line.
#include <gtest/gtest.h>

#include <sstream>

#include "divbench/core/fit.hpp"
#include "harness/measure.hpp"
#include "harness/report.hpp"

namespace divbench {
namespace {

TimedPoint point(double k, bool disturbed) {
  TimedPoint p;
  p.k = k;
  p.cycles.median = p.cycles.min = p.cycles.max = 1000 * k;
  p.cycles.n = 264;
  p.launches = 2;
  p.extra["disturbed"] = disturbed;
  p.extra["disturbed_reasons"] = disturbed ? json::array({"co_tenant: 1 other process(es) on the GPU (9)"}) : json::array();
  p.extra["attempts"] = disturbed ? 3 : 1;
  p.extra["conditions"] = {{"available", true},
                           {"processes", {{"before", {{"read", false}, {"reason", "DIVBENCH_NVML_PROCESSES=off"}}},
                                          {"after", {{"read", false}, {"reason", "DIVBENCH_NVML_PROCESSES=off"}}}}}};
  return p;
}

ResultRecord record(bool with_disturbed) {
  ResultRecord r;
  r.experiment = "kway";
  r.device.name = "SYNTHETIC";
  r.config = {{"body", "fma_chain"}};
  r.points = {point(1, false), point(2, with_disturbed)};
  r.fit = fit_linear({1, 2}, {1000, 2000});  // a k-way result over two k is judged by its fit
  r.has_fit = true;
  return r;
}

TEST(Verdict, DisturbedPointMakesTheResultUntrustworthy) {
  ResultRecord r = record(true);
  const RetryPolicy policy{3, 4, &noise_criterion()};
  const json q = add_verdict(r, to_json(r), policy);
  EXPECT_FALSE(q["trustworthy"].get<bool>());
  EXPECT_EQ(q["disturbed_points"].get<int>(), 1);
  EXPECT_EQ(q["points_remeasured"].get<int>(), 1);
  EXPECT_EQ(q["criterion"]["max_attempts"].get<int>(), 3);
  ASSERT_EQ(q["notes"].size(), 1u);
  EXPECT_NE(q["notes"][0].get<std::string>().find("DIVBENCH_NVML_PROCESSES=off"), std::string::npos);
  EXPECT_EQ(r.quality, q);
}

TEST(Verdict, AnIdleCoTenantsNoteReachesTheFile) {
  // judge_result's note on an idle co-tenant is kept beside the runner's own notes (it was overwritten
  // once: the H200's idle case passed with no note in its file).
  ResultRecord r = record(false);
  for (auto& p : r.points)
    p.extra["conditions"] = {
        {"available", true},
        {"processes",
         {{"before", {{"read", true}, {"others", {77}}, {"others_count", 1}}},
          {"after",
           {{"read", true},
            {"others", {77}},
            {"others_count", 1},
            {"activity",
             {{"read", true}, {"since_us", 1796362774438234LL}, {"samples_total", 6},
              {"pids", {{"77", {{"samples", 0}, {"sm_max", 0}, {"mem_max", 0}}}}}}}}}}}};
  const json q = add_verdict(r, to_json(r), RetryPolicy{3, 4, &noise_criterion()});
  EXPECT_TRUE(q["trustworthy"].get<bool>()) << q.dump();
  ASSERT_EQ(q["notes"].size(), 1u) << q.dump();
  EXPECT_NE(q["notes"][0].get<std::string>().find("idle_co_tenant: process 77"), std::string::npos) << q["notes"];
}

TEST(Verdict, ConsoleMarksThePointAndEndsWithTheVerdict) {
  ResultRecord r = record(true);
  add_verdict(r, to_json(r), RetryPolicy{3, 4, &noise_criterion()});
  std::ostringstream os;
  report_result(os, "console", false, r, to_json(r));
  const std::string out = os.str();
  EXPECT_NE(out.find("DISTURBED"), std::string::npos) << out;
  EXPECT_NE(out.find("verdict: NOT TRUSTWORTHY: 1 disturbed point(s)"), std::string::npos) << out;
  EXPECT_NE(points_csv(r).find(",true,3\n"), std::string::npos) << points_csv(r);

  ResultRecord quiet = record(false);
  add_verdict(quiet, to_json(quiet), RetryPolicy{3, 4, &noise_criterion()});
  std::ostringstream os2;
  report_result(os2, "console", false, quiet, to_json(quiet));
  EXPECT_NE(os2.str().find("verdict: trustworthy (0 point(s) re-measured)"), std::string::npos) << os2.str();
}

// The table's columns are the experiment's declared axes (point.axes, in declaration order), whatever
// they are: a string axis shows bare, a number as written; the CSV has one column per axis.
TEST(Console, ColumnsComeFromThePointsAxes) {
  ResultRecord r = record(false);
  r.points[0].axes = json{{"body", "fma_chain"}, {"placement", 0}, {"n", 1000}, {"k", 1}};
  r.points[1].axes = json{{"body", "int_alu"}, {"placement", 3}, {"n", 0}, {"k", 2}};
  std::ostringstream os;
  report_result(os, "console", false, r, to_json(r));
  const std::string out = os.str();
  const auto header = out.substr(out.find('\n', out.find("==")) + 1);
  const std::string first = header.substr(0, header.find('\n'));
  EXPECT_LT(first.find("body"), first.find("placement")) << out;
  EXPECT_LT(first.find("placement"), first.find(" n ")) << out;
  EXPECT_LT(first.find(" n "), first.find(" k ")) << out;
  EXPECT_LT(first.find(" k "), first.find("median cyc")) << out;
  EXPECT_NE(out.find("int_alu"), std::string::npos) << out;
  const std::string csv = points_csv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "experiment,device,body,placement,n,k,median_cycles,min_cycles,max_cycles,cv,launches,throttled,"
            "clock_mhz,samples,disturbed,attempts");
  EXPECT_NE(csv.find("kway,\"SYNTHETIC\",int_alu,3,0,2,2000,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace divbench
