// The NVML reader against the stand-in libraries of tests/nvml/fake_nvml.cpp: what NVML returns is
// what a point's conditions record (units converted), the older reasons call is used where the newer
// one is missing, and a missing library or device is a reason, not a crash.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>

#include "divbench/cuda/nvml.hpp"
#include "nvml_api.hpp"

namespace divbench {
namespace {

constexpr const char* kBus = "0000:00:06.0";

int lookups(const char* lib) {
  void* h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
  if (!h) return -1;
  auto fn = reinterpret_cast<int (*)()>(dlsym(h, "fake_nvml_lookups"));
  const int n = fn ? fn() : -1;
  dlclose(h);
  return n;
}

TEST(NvmlReader, ReadsClocksPowerTemperatureAndReasons) {
  const auto api = nvml::open_nvml(FAKE_NVML_EVENT);
  ASSERT_TRUE(api->ok()) << api->error;
  setenv("FAKE_NVML_REASONS", "0x5", 1);  // gpu_idle | sw_power_cap
  const RunConditions c = nvml::read_conditions(*api, kBus);
  unsetenv("FAKE_NVML_REASONS");
  ASSERT_TRUE(c.available) << c.why_not;
  EXPECT_EQ(c.sm_clock_mhz, 1980);
  EXPECT_EQ(c.mem_clock_mhz, 3201);
  ASSERT_TRUE(c.power_w.has_value());
  EXPECT_DOUBLE_EQ(*c.power_w, 123.456);
  EXPECT_EQ(c.temperature_c, 41);
  EXPECT_EQ(c.reasons, 0x5u);
}

TEST(NvmlReader, DeviceHandleIsLookedUpOnce) {
  const auto api = nvml::open_nvml(FAKE_NVML_EVENT);
  ASSERT_TRUE(api->ok()) << api->error;
  const int before = lookups(FAKE_NVML_EVENT);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(nvml::read_conditions(*api, kBus).available);
  EXPECT_EQ(lookups(FAKE_NVML_EVENT) - before, 1);
}

TEST(NvmlReader, OlderDriverThrottleReasonsAndNoPower) {
  const auto api = nvml::open_nvml(FAKE_NVML_THROTTLE);
  ASSERT_TRUE(api->ok()) << api->error;
  setenv("FAKE_NVML_REASONS", "0x40", 1);  // hw_thermal_slowdown
  const RunConditions c = nvml::read_conditions(*api, kBus);
  unsetenv("FAKE_NVML_REASONS");
  ASSERT_TRUE(c.available) << c.why_not;
  EXPECT_EQ(c.reasons, 0x40u);
  EXPECT_FALSE(c.power_w.has_value());        // entry point absent: left empty, written null
  EXPECT_FALSE(c.temperature_c.has_value());
  EXPECT_EQ(c.sm_clock_mhz, 1980);
}

TEST(NvmlReader, UnknownDeviceAndMissingLibraryAreReasons) {
  const auto api = nvml::open_nvml(FAKE_NVML_EVENT);
  const RunConditions other = nvml::read_conditions(*api, "0000:99:00.0");
  EXPECT_FALSE(other.available);
  EXPECT_NE(other.why_not.find("0000:99:00.0"), std::string::npos) << other.why_not;

  const auto none = nvml::open_nvml("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(none->ok());
  const RunConditions c = nvml::read_conditions(*none, kBus);
  EXPECT_FALSE(c.available);
  EXPECT_NE(c.why_not.find("not found"), std::string::npos) << c.why_not;

  const auto wrong = nvml::open_nvml("libm.so.6");  // loads, but is not NVML
  EXPECT_FALSE(wrong->ok());
  EXPECT_NE(wrong->error.find("lacks"), std::string::npos) << wrong->error;
}

TEST(NvmlReader, ReadingsBecomeTheConditionsBlock) {
  const auto api = nvml::open_nvml(FAKE_NVML_EVENT);
  setenv("FAKE_NVML_REASONS", "0x1", 1);
  const RunConditions before = nvml::read_conditions(*api, kBus);
  setenv("FAKE_NVML_REASONS", "0x8", 1);
  const RunConditions after = nvml::read_conditions(*api, kBus);
  unsetenv("FAKE_NVML_REASONS");
  json point = json::object();
  EXPECT_TRUE(record_conditions(point, before, after));
  const json& c = point["conditions"];
  EXPECT_EQ(c["before"]["reasons_mask"], 1);
  EXPECT_EQ(c["after"]["reasons_mask"], 8);
  EXPECT_EQ(c["before"]["power_w"], 123.456);
  EXPECT_EQ(c["reasons"], json({"gpu_idle", "hw_slowdown"}));
  EXPECT_EQ(c["throttle_reasons"], json({"hw_slowdown"}));
}

TEST(NvmlReader, ProcessReaderNeverThrowsWithoutADriver) {
  // Whatever this machine has: a reading or a reason.
  const RunConditions c = read_run_conditions("0000:00:00.0");
  if (!c.available) EXPECT_FALSE(c.why_not.empty());
}

TEST(NvmlReader, ListsTheProcessesAndTellsDivbenchApart) {
  const auto api = nvml::open_nvml(FAKE_NVML_EVENT);
  ASSERT_TRUE(api->ok()) << api->error;
  setenv("FAKE_NVML_PIDS", "300,4242,77", 1);
  const RunConditions c = nvml::read_conditions(*api, kBus, 4242);
  unsetenv("FAKE_NVML_PIDS");
  ASSERT_TRUE(c.processes.read) << c.processes.why_not;
  EXPECT_EQ(c.processes.compute, (std::vector<unsigned>{300, 4242, 77}));
  const OtherProcesses o = other_processes(c.processes);
  EXPECT_TRUE(o.self_seen);
  EXPECT_EQ(o.pids, (std::vector<unsigned>{300, 77}));
}

TEST(NvmlReader, ProcessesNotListedSayWhy) {
  const auto older = nvml::open_nvml(FAKE_NVML_THROTTLE);  // exports no process query
  ASSERT_TRUE(older->ok()) << older->error;
  const RunConditions c = nvml::read_conditions(*older, kBus, 1);
  EXPECT_TRUE(c.available);
  EXPECT_FALSE(c.processes.read);
  EXPECT_EQ(c.processes.why_not, "this NVML cannot list processes");
  const auto api = nvml::open_nvml(FAKE_NVML_EVENT);
  setenv("DIVBENCH_NVML_PROCESSES", "off", 1);
  const RunConditions off = nvml::read_conditions(*api, kBus, 1);
  unsetenv("DIVBENCH_NVML_PROCESSES");
  EXPECT_FALSE(off.processes.read);
  EXPECT_EQ(off.processes.why_not, "DIVBENCH_NVML_PROCESSES=off");
}

}  // namespace
}  // namespace divbench
