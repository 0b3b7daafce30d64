// Calibration kernels: lane l runs path l % K, each path the FMA chain with its own constants.
#include <utility>

#include "bodies/fma_chain.cuh"
#include "divbench/core/warp.hpp"
#ifndef __CUDACC_RTC__  // host side: NVRTC (tests/sass/nvrtc/) compiles the kernels only
#include <limits>
#include <stdexcept>
#include <string>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"
#include "experiments/calibration/launcher.hpp"
#endif

namespace divbench {
namespace {

using Chain = bodies::FmaChain;

template <int... P>
__host__ __device__ __forceinline__ float paths(int path, float x, std::uint32_t iters, std::integer_sequence<int, P...>) {
  ((path == P ? (x = Chain::run<P>(x, iters, nullptr, 0), 0) : 0), ...);
  return x;
}

template <int K>
__host__ __device__ float calibrated_lane(int lane, std::uint32_t iters) {
  if constexpr (K == 1) return Chain::run<0>(lane_seed(lane), iters, nullptr, 0);
  else return paths(lane % K, lane_seed(lane), iters, std::make_integer_sequence<int, K>{});
}

template <int K>
__global__ void calibration_kernel(std::uint32_t iters, float* out) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  out[threadIdx.x] = calibrated_lane<K>(lane, iters);
}

#ifndef __CUDACC_RTC__  // host side: NVRTC (tests/sass/nvrtc/) compiles the kernels only
template <class F>
auto dispatch(int k, F&& f) {
  switch (k) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 8: return f(std::integral_constant<int, 8>{});
    case 16: return f(std::integral_constant<int, 16>{});
    case 32: return f(std::integral_constant<int, 32>{});
    default: throw std::invalid_argument("calibration kernel not built for k=" + std::to_string(k));
  }
}
#endif

}  // namespace

#ifndef __CUDACC_RTC__  // host side: NVRTC (tests/sass/nvrtc/) compiles the kernels only

const std::vector<int>& calibration_ks() {
  static const std::vector<int> ks{1, 2, 4, 8, 16, 32};
  return ks;
}

void launch_calibration(int k, std::uint32_t iters, float* out, cudaStream_t stream) {
  dispatch(k, [&](auto K) {
    calibration_kernel<decltype(K)::value><<<1, 32, 0, stream>>>(iters, out);
    return 0;
  });
  check_launch("calibration_kernel");
}

std::vector<float> run_calibration(int k, std::uint32_t iters) {
  DeviceBuffer<float> out(std::vector<float>(kWarpLanes, std::numeric_limits<float>::quiet_NaN()));
  launch_calibration(k, iters, out.get());
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return out.download();
}

float calibration_reference(int k, std::uint32_t iters, int lane) {
  return dispatch(k, [&](auto K) { return calibrated_lane<decltype(K)::value>(lane, iters); });
}

#endif  // __CUDACC_RTC__

}  // namespace divbench
