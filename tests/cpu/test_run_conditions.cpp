// Run conditions without a GPU: which clock-event reasons count as throttling, the per-point
// "conditions" block, and the summary counts over a record.
#include <gtest/gtest.h>

#include "divbench/core/run_conditions.hpp"

namespace divbench {
namespace {

RunConditions reading(std::uint64_t reasons) {
  RunConditions c;
  c.available = true;
  c.sm_clock_mhz = 1980;
  c.mem_clock_mhz = 3201;
  c.power_w = 96.5;
  c.temperature_c = 33;
  c.reasons = reasons;
  return c;
}

TEST(ClockEventReasons, NamesFollowNvmlBits) {
  EXPECT_EQ(reason_names(0), std::vector<std::string>{});
  EXPECT_EQ(reason_names(0x1), std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(reason_names(0x1ff),
            (std::vector<std::string>{"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
                                      "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
                                      "hw_power_brake_slowdown", "display_clock_setting"}));
  EXPECT_EQ(reason_names(0x400 | 0x8), (std::vector<std::string>{"hw_slowdown", "unknown_0x400"}));
}

TEST(ClockEventReasons, OnlySlowdownsCountAsThrottling) {
  for (std::uint64_t b : {0x4u, 0x8u, 0x20u, 0x40u, 0x80u}) EXPECT_EQ(throttle_bits(b), b) << b;
  // Idle at the moment of reading, and fixed clock configurations: recorded, not throttling.
  for (std::uint64_t b : {0x1u, 0x2u, 0x10u, 0x100u, 0x400u}) EXPECT_EQ(throttle_bits(b), 0u) << b;
  EXPECT_EQ(throttle_bits(0x1 | 0x2 | 0x40), 0x40u);
}

TEST(RecordConditions, IdleBeforeIsNotThrottling) {
  json point = json::object();
  EXPECT_FALSE(record_conditions(point, reading(0x1), reading(0x0)));
  const json& c = point.at("conditions");
  EXPECT_TRUE(c.at("available").get<bool>());
  EXPECT_EQ(c.at("reasons"), json({"gpu_idle"}));
  EXPECT_TRUE(c.at("throttle_reasons").empty());
  EXPECT_EQ(c.at("before").at("sm_clock_mhz"), 1980);
  EXPECT_EQ(c.at("before").at("mem_clock_mhz"), 3201);
  EXPECT_EQ(c.at("before").at("power_w"), 96.5);
  EXPECT_EQ(c.at("before").at("temperature_c"), 33);
  EXPECT_EQ(c.at("before").at("reasons_mask"), 1);
  EXPECT_EQ(c.at("after").at("reasons_mask"), 0);
  EXPECT_FALSE(c.contains("reasons_read"));
}

TEST(RecordConditions, ThrottleAfterThePointFlagsIt) {
  json point = json::object();
  EXPECT_TRUE(record_conditions(point, reading(0x0), reading(0x20 | 0x1)));
  EXPECT_EQ(point["conditions"]["reasons"], json({"gpu_idle", "sw_thermal_slowdown"}));
  EXPECT_EQ(point["conditions"]["throttle_reasons"], json({"sw_thermal_slowdown"}));
}

TEST(RecordConditions, UnreadFieldsAreNull) {
  RunConditions partial;
  partial.available = true;
  partial.sm_clock_mhz = 1755;
  json point = json::object();
  EXPECT_FALSE(record_conditions(point, partial, partial));
  const json& b = point["conditions"]["before"];
  EXPECT_EQ(b["sm_clock_mhz"], 1755);
  for (const char* k : {"mem_clock_mhz", "power_w", "temperature_c", "reasons_mask"}) EXPECT_TRUE(b[k].is_null()) << k;
  EXPECT_FALSE(point["conditions"]["reasons_read"].get<bool>());
}

TEST(RecordConditions, WithoutNvmlOneReason) {
  RunConditions none;
  none.why_not = "libnvidia-ml.so.1 not found";
  json point = json::object();
  EXPECT_FALSE(record_conditions(point, none, none));
  EXPECT_EQ(point["conditions"], json({{"available", false}, {"reason", "libnvidia-ml.so.1 not found"}}));
}

TEST(ConditionsSummary, CountsPointsAndReasons) {
  ResultRecord r;
  const std::pair<std::uint64_t, std::uint64_t> readings[] = {{0x1, 0x0}, {0x0, 0x4}, {0x8, 0x4 | 0x1}};
  for (const auto& [b, a] : readings) {
    TimedPoint p;
    record_conditions(p.extra, reading(b), reading(a));
    r.points.push_back(p);
  }
  json raw = json::object();
  record_conditions(raw, reading(0x40), reading(0x0));
  r.points_extra.push_back(raw);
  json unread = json::object();
  record_conditions(unread, RunConditions{}, RunConditions{});
  r.points_extra.push_back(unread);
  r.points_extra.push_back(json{{"k", 1}});  // a point without conditions

  add_conditions_summary(r);
  EXPECT_EQ(r.summary["points_with_conditions"], 4);
  EXPECT_EQ(r.summary["points_with_throttle_reasons"], 3);
  EXPECT_EQ(r.summary["throttle_reasons"], json({{"hw_slowdown", 1}, {"hw_thermal_slowdown", 1}, {"sw_power_cap", 2}}));
  EXPECT_EQ(r.summary["clock_event_reasons"],
            json({{"gpu_idle", 2}, {"hw_slowdown", 1}, {"hw_thermal_slowdown", 1}, {"sw_power_cap", 2}}));
}

TEST(ConditionsSummary, NoConditionsCountsZero) {
  ResultRecord r;
  r.points.push_back(TimedPoint{});
  add_conditions_summary(r);
  EXPECT_EQ(r.summary["points_with_conditions"], 0);
  EXPECT_EQ(r.summary["points_with_throttle_reasons"], 0);
  EXPECT_TRUE(r.summary["throttle_reasons"].empty());
}

GpuProcesses listed(unsigned self, std::vector<unsigned> compute, std::vector<unsigned> mps = {}) {
  GpuProcesses p;
  p.read = true;
  p.self_pid = self;
  p.compute = std::move(compute);
  p.mps = std::move(mps);
  return p;
}

TEST(OtherProcesses, SelfToldApartByPid) {
  const OtherProcesses o = other_processes(listed(100, {100, 200, 300}));
  EXPECT_TRUE(o.self_seen);
  EXPECT_EQ(o.pids, (std::vector<unsigned>{200, 300}));
  EXPECT_EQ(o.count, 2);
  EXPECT_EQ(other_processes(listed(100, {100})).count, 0);
}

TEST(OtherProcesses, ForeignPidNamespaceCountsAllButOne) {
  // In a container NVML gives host PIDs: divbench's own is not among them, so one listed process is it.
  const OtherProcesses o = other_processes(listed(7, {4001, 4002}));
  EXPECT_FALSE(o.self_seen);
  EXPECT_TRUE(o.pids.empty());
  EXPECT_EQ(o.count, 1);
  EXPECT_EQ(other_processes(listed(7, {4001})).count, 0);
  EXPECT_EQ(other_processes(listed(7, {})).count, 0);
}

TEST(OtherProcesses, MpsClientsAreTheCoTenantsOfAnMpsClient) {
  // As an MPS client divbench sees the MPS server in the compute list and its peers in the MPS list.
  const OtherProcesses o = other_processes(listed(10, {999}, {10, 11}));
  EXPECT_TRUE(o.mps_client);
  EXPECT_EQ(o.pids, (std::vector<unsigned>{11}));
  const OtherProcesses alone = other_processes(listed(10, {999}, {10}));
  EXPECT_EQ(alone.count, 0);
}

TEST(OtherProcesses, WrittenBesideTheReadingsAndUnreadSaysWhy) {
  RunConditions before = reading(0), after = reading(0);
  before.processes = listed(100, {100, 200});
  after.processes = listed(100, {100});
  json point = json::object();
  record_conditions(point, before, after);
  const json& p = point["conditions"]["processes"];
  EXPECT_EQ(p["before"]["others"], json({200}));
  EXPECT_EQ(p["before"]["others_count"], 1);
  EXPECT_EQ(p["after"]["others_count"], 0);
  GpuProcesses off;
  off.why_not = "DIVBENCH_NVML_PROCESSES=off";
  EXPECT_EQ(to_json(off), json({{"read", false}, {"reason", "DIVBENCH_NVML_PROCESSES=off"}}));
}

TEST(OtherProcesses, ActivityNamesEveryListedCoTenantAndSinceWhen) {
  // A co-tenant NVML took no sample of since divbench's first reading is written with samples 0 (the
  // verdict reads that as idle only beside since_us); divbench's own samples are not written per PID.
  GpuProcesses p = listed(100, {100, 200, 300});
  p.activity_read = true;
  p.activity_since_us = 1796362774438234ULL;
  p.activity_samples_total = 7;
  p.activity[100] = ProcessActivity{6, 73, 0};
  p.activity[300] = ProcessActivity{1, 39, 0};
  const json a = to_json(p)["activity"];
  EXPECT_EQ(a["since_us"], 1796362774438234ULL);
  EXPECT_EQ(a["samples_total"], 7);
  EXPECT_EQ(a["pids"], json({{"200", {{"samples", 0}, {"sm_max", 0}, {"mem_max", 0}}},
                             {"300", {{"samples", 1}, {"sm_max", 39}, {"mem_max", 0}}}}));
}

}  // namespace
}  // namespace divbench
