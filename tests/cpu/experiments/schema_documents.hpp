// The helpers of the SchemaDocuments tests, which live in the experiment folders
// (experiments/<name>/tests/, e.g. experiments/order/tests/test_order_schema_document.cpp): a divbench.result/1 document as the
// current harness writes it, over synthetic points, written to $DIVBENCH_SCHEMA_DOCS/<name>.json when that is
// set (tests/python/test_schemas.py validates the files). Included by its path from the repository root.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "divbench/core/json_io.hpp"
#include "divbench/core/lane_group.hpp"
#include "divbench/core/result.hpp"
#include "divbench/core/run_conditions.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/cupti/region.hpp"
#include "harness/experiment.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"
#include "harness/gbench.hpp"

namespace divbench::schema_docs {

inline DeviceRecord synthetic_device() {
  DeviceRecord d;
  d.name = "SYNTHETIC GPU (tests/cpu/experiments/schema_documents.hpp)";
  d.cc = "9.0";
  d.cc_major = 9;
  d.sm_count = 4;
  d.sm_clock_khz = 1000000;
  d.max_threads_per_sm = 2048;
  d.driver = d.runtime = "0.0";
  return d;
}

// What run_timed_point() records for a point sampled one warp per SM: 2 launches x 4 SMs.
inline TimedPoint timed(double k, double cycles, int placement, json extra = json::object()) {
  TimedPoint p;
  p.k = k;
  for (int launch = 0; launch < 2; ++launch)
    for (std::uint32_t sm = 0; sm < 4; ++sm) {
      p.sample_cycles.push_back(static_cast<std::uint64_t>(cycles) + sm);
      p.sample_smid.push_back(sm);
    }
  p.cycles.n = p.sample_cycles.size();
  p.cycles.min = cycles;
  p.cycles.max = cycles + 3;
  p.cycles.median = p.cycles.mean = cycles + 1.5;
  p.cycles.stddev = 1.1;
  p.cycles.cv = p.cycles.stddev / p.cycles.mean;
  p.launches = 2;
  p.clock_mhz = p.clock_before_mhz = p.clock_after_mhz = 1000;
  p.wall_ms = 0.5;
  p.gpu_ms = 0.4;
  p.region_ms = 2 * cycles / 1e6;
  p.extra = std::move(extra);
  p.extra["verified"] = true;
  p.extra["placement"] = placement;
  if (!p.extra.contains("sampling")) p.extra["sampling"] = "warp-per-sm";
  if (p.extra["sampling"] == "warp-per-sm") {
    p.extra["sms_distinct"] = 4;
    p.extra["launches_with_shared_sm"] = 0;
  }
  // The runner's NVML readings before and after the point (idle before, nothing after).
  RunConditions before, after;
  before.available = after.available = true;
  before.sm_clock_mhz = after.sm_clock_mhz = 1000;
  before.mem_clock_mhz = after.mem_clock_mhz = 2600;
  before.temperature_c = after.temperature_c = 40;
  before.power_w = 80.5;  // after: power not readable (null)
  before.reasons = 0x1;
  after.reasons = 0x0;
  record_conditions(p.extra, before, after);
  return p;
}

// What --metrics attaches to a point (the shape of collect_points_metrics; made-up counts).
inline json synthetic_metrics(double k) {
  const double inst = 100 + 7000 * k, twin_inst = 100, thread = 3200 + 224000, twin_thread = 3200;
  const json values{{kMetricRatio, thread / inst}, {kMetricInst, inst}, {kMetricThreadInst, thread},
                    {kMetricPredOnRatio, (thread - 10) / inst}, {kMetricThreadInstPredOn, thread - 10},
                    {kMetricBranchUniformPct, 90.0}, {kMetricBranchTargets, 1000.0}, {kMetricBranchTargetsUniform, 900.0}};
  const json twin{{kMetricRatio, 32.0}, {kMetricInst, twin_inst}, {kMetricThreadInst, twin_thread},
                  {kMetricPredOnRatio, 31.9}, {kMetricThreadInstPredOn, twin_thread - 10},
                  {kMetricBranchUniformPct, 100.0}, {kMetricBranchTargets, 10.0}, {kMetricBranchTargetsUniform, 10.0}};
  MetricValues f, t;
  for (const auto& [n, v] : values.items()) f[n] = v.get<double>();
  for (const auto& [n, v] : twin.items()) t[n] = v.get<double>();
  return json{{"available", true}, {"values", values}, {"twin", twin}, {"region", to_json(region_efficiency(f, t))},
              {"chip", "SYNTHETIC"}, {"passes", 2}, {"profile_ms", 1.0}, {"twin_profile_ms", 1.0},
              {"session_launches", 12}, {"library", "synthetic"}, {"mode", "synthetic"}};
}

inline json document(const std::string& kind, const std::string& name, CommandLine o, ResultRecord r) {
  const PreparedExperiment p = synthetic::prepare(kind, name, std::move(o));
  r.experiment = p.name;
  r.device = synthetic_device();
  r.provenance = make_provenance("synthetic document (tests/cpu/experiments/schema_documents.hpp)");
  r.config = p.config;
  // The points carry their coordinates as the harness stamps them (with_declared_axes): checked
  // against the experiment's declaration here, so a synthetic point that names an undeclared or
  // mistyped axis fails the test instead of reaching the schema check.
  for (const auto& pt : r.points) check_point_axes(p.name, p.axes, pt.axes);
  for (const auto& raw : r.points_extra) check_point_axes(p.name, p.axes, raw.at("axes"));
  for (auto& raw : r.points_extra) record_conditions(raw, RunConditions{}, RunConditions{});  // NVML missing
  p.finalize(r);
  for (const auto& f : p.headline)  // what the experiment declares as its headline, finalize writes
    EXPECT_TRUE(r.summary.contains(f.key)) << name << ": declared headline " << f.key << " is not in the summary";
  add_conditions_summary(r);
  r.timing = json{{"points_wall_ms", 1.0}, {"points_region_ms", 0.9}, {"points_gpu_ms", 0.95},
                  {"timed_launches", 2 * r.points.size()}, {"wall_over_region", 1.1}, {"run_wall_s", 0.01}};
  r.timing["metrics"] = json{{"points", 6}, {"launches", 12}, {"sessions", 1}, {"sessions_s", 0.2}, {"wall_s", 0.21}};
  r.harness = benchmark_build_info();
  const json doc = to_json(r);
  if (const char* dir = std::getenv("DIVBENCH_SCHEMA_DOCS")) write_json_atomic(std::string(dir) + "/" + name + ".json", doc);
  return doc;
}

// One launch of the order probe, and the order fields of producer/consumer, as plan() writes it.
inline json order_run(const char* first) {
  return json{{"first", first}, {"cycles_between", 700}, {"group_enter_spread", 0}, {"rest_enter_spread", 0},
              {"interleaved", false}, {"ns_between", 0}, {"first_by_globaltimer", nullptr}, {"cap_reached", false},
              {"max_spins", 0}, {"region_cycles", 1500}};
}

}  // namespace divbench::schema_docs
