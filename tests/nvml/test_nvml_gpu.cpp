// GPU test (label gpu): NVML's run conditions of a real device, read as the runner reads them before
// and after every point. main() is tests/gpu/gpu_test_main.cpp (exit 77 without a GPU).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "divbench/core/run_conditions.hpp"
#include "divbench/cuda/nvml.hpp"

namespace divbench {
namespace {

std::string bus_id() {
  char bus[32] = {0};
  return cudaDeviceGetPCIBusId(bus, sizeof bus, 0) == cudaSuccess ? bus : "";
}

TEST(NvmlGpu, ConditionsOfDeviceZero) {
  const RunConditions c = read_run_conditions(bus_id());
  ASSERT_TRUE(c.available) << c.why_not;
  ASSERT_TRUE(c.sm_clock_mhz && c.mem_clock_mhz && c.temperature_c && c.reasons);
  EXPECT_GT(*c.sm_clock_mhz, 0);
  EXPECT_GT(*c.mem_clock_mhz, 0);
  EXPECT_GT(*c.temperature_c, 0);
  EXPECT_LT(*c.temperature_c, 120);
  if (c.power_w) EXPECT_GT(*c.power_w, 0.0);
  json point = json::object();
  record_conditions(point, c, read_run_conditions(bus_id()));
  EXPECT_TRUE(point["conditions"]["available"].get<bool>()) << point.dump();
  std::printf("conditions of device 0: %s\n", point["conditions"].dump().c_str());
}

}  // namespace
}  // namespace divbench
