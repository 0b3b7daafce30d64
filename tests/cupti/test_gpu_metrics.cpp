// GPU test (label gpu): the range profiler on the calibration kernels. Exits 77 with a message when
// there is no GPU or the counters cannot be read here.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "divbench/cuda/check.hpp"
#include "divbench/cupti/metrics.hpp"
#include "divbench/cupti/region.hpp"
#include "divbench/kernels/calibration.hpp"

namespace divbench {
namespace {

constexpr std::uint32_t kIters = 2000;

struct Buffer {
  float* p = nullptr;
  Buffer() { DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), 32 * sizeof(float))); }
  ~Buffer() { cudaFree(p); }
};

std::function<void()> launch(const Buffer& b, int k, std::uint32_t iters) {
  return [&b, k, iters] {
    launch_calibration(k, iters, b.p);
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  };
}

TEST(GpuMetrics, ConvergedKernelIsExactlyThirtyTwo) {
  Buffer b;
  const json m = collect_metrics(launch(b, 1, kIters));
  ASSERT_TRUE(m["available"].get<bool>()) << m.dump();
  EXPECT_DOUBLE_EQ(m["values"][kMetricRatio].get<double>(), 32.0);
  EXPECT_GT(m["values"][kMetricInst].get<double>(), 4.0 * kIters);
  EXPECT_DOUBLE_EQ(m["values"][kMetricThreadInst].get<double>(), 32.0 * m["values"][kMetricInst].get<double>());
}

TEST(GpuMetrics, RegionRatioIsThirtyTwoOverK) {
  Buffer b;
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
  Buffer b;
  const json small = collect_metrics(launch(b, 2, kIters));
  const json big = collect_metrics(launch(b, 2, 2 * kIters));
  ASSERT_TRUE(small["available"].get<bool>() && big["available"].get<bool>());
  EXPECT_GT(big["values"][kMetricInst].get<double>(), 1.9 * small["values"][kMetricInst].get<double>());
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
    divbench::json probe;
    float* p = nullptr;
    DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), 32 * sizeof(float)));
    probe = divbench::collect_metrics([p] {
      divbench::launch_calibration(1, 1, p);
      DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    });
    cudaFree(p);
    if (!probe["available"].get<bool>()) {
      std::printf("SKIP: counters unavailable here: %s\n", probe["reason"].get<std::string>().c_str());
      return 77;
    }
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
