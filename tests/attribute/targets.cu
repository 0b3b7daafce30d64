// Programs with known divergence for `divbench attribute`'s validation (docs/attribute.md):
//   divbench_attribute_targets kway BODY K N LAUNCHES
//       divbench's own k-way kernel (placement 0, modulo lane map, one warp per SM) LAUNCHES times;
//       stdout: {"target": "kway", "body", "k", "n", "launches", "warps"}
//   divbench_attribute_targets predication N LAUNCHES
//       the predicated K=2 kernel (no divergent branch in its work) and the branchy one (divergent)
//   divbench_attribute_targets lanes LAUNCHES
//       small kernels whose branches split lanes in ways the host knows; stdout: the expected
//       executions, divergent executions and active lanes of each branch, by kernel and source line
// Every kernel's output is checked against its host reference (exit 1 on a mismatch).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "divbench/core/body.hpp"
#include "divbench/core/lane_map.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"
#include "experiments/kway/launcher.hpp"
#include "experiments/predication/launcher.hpp"

namespace {

using namespace divbench;

int sm_count() {
  int dev = 0, sms = 0;
  DIVBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// Runs a TimedKernel on one warp per SM `launches` times and checks every lane's output.
bool run_timed(const TimedKernel& k, int launches, int* warps_out) {
  LaunchShape shape;
  shape.blocks = sm_count();
  shape.threads_per_block = 32;
  DeviceBuffer<float> out(shape.threads(), 0xff);
  for (int i = 0; i < launches; ++i) {
    k.launch(shape, nullptr, out.get());
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  }
  const std::vector<float> host = out.download();
  for (std::size_t t = 0; t < host.size(); ++t) {
    const float want = k.reference(static_cast<int>(t % 32));
    const float tol = static_cast<float>(k.tolerance) * std::fabs(want);
    if (!(std::fabs(host[t] - want) <= tol)) {
      std::fprintf(stderr, "%s: thread %zu wrote %g, expected %g\n", k.name.c_str(), t, host[t], want);
      return false;
    }
  }
  *warps_out = static_cast<int>(shape.warps()) * launches;
  return true;
}

// ---- Kernels whose branches the host can count ----
// Each kernel records the line of its branch; main prints the expectations per (kernel, line).
constexpr int kLineIfElse = __LINE__ + 4;
__global__ void lanes_if_else(float* out, unsigned mask, int n) {
  const int lane = threadIdx.x & 31;
  float x = lane;
  if ((mask >> lane) & 1u) {
#pragma unroll 1
    for (int j = 0; j < n; ++j) x = x * 1.0001f + 1.0f;
  } else {
#pragma unroll 1
    for (int j = 0; j < n; ++j) x = x * 0.9999f - 1.0f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

constexpr int kLineNestedInner = __LINE__ + 6;
__global__ void lanes_nested(float* out, int n) {
  const int lane = threadIdx.x & 31;
  float x = lane;
  if (lane < 16) {
    x += 1.0f;
    if (lane & 1) {
#pragma unroll 1
      for (int j = 0; j < n; ++j) x = x * 1.0001f + 1.0f;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

float host_if_else(int lane, unsigned mask, int n) {
  float x = lane;
  if ((mask >> lane) & 1u)
    for (int j = 0; j < n; ++j) x = x * 1.0001f + 1.0f;
  else
    for (int j = 0; j < n; ++j) x = x * 0.9999f - 1.0f;
  return x;
}

float host_nested(int lane, int n) {
  float x = lane;
  if (lane < 16) {
    x += 1.0f;
    if (lane & 1)
      for (int j = 0; j < n; ++j) x = x * 1.0001f + 1.0f;
  }
  return x;
}

bool check(const std::vector<float>& got, const char* what, float (*ref)(int, unsigned, int), unsigned mask, int n) {
  for (std::size_t t = 0; t < got.size(); ++t) {
    const float want = ref(static_cast<int>(t % 32), mask, n);
    if (std::fabs(got[t] - want) > 1e-3f * (1.0f + std::fabs(want))) {
      std::fprintf(stderr, "%s: thread %zu wrote %g, expected %g\n", what, t, got[t], want);
      return false;
    }
  }
  return true;
}

float nested_ref(int lane, unsigned, int n) { return host_nested(lane, n); }

int run_lanes(int launches) {
  const int blocks = sm_count(), threads = 64, n = 100;
  const unsigned mask = 0x0000ffffu;  // lanes 0-15 take the if side
  DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * threads, 0xff);
  for (int i = 0; i < launches; ++i) {
    lanes_if_else<<<blocks, threads>>>(out.get(), mask, n);
    check_launch("lanes_if_else");
  }
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  if (!check(out.download(), "lanes_if_else", host_if_else, mask, n)) return 1;
  for (int i = 0; i < launches; ++i) {
    lanes_nested<<<blocks, threads>>>(out.get(), n);
    check_launch("lanes_nested");
  }
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  if (!check(out.download(), "lanes_nested", nested_ref, 0, n)) return 1;
  const long warps = static_cast<long>(blocks) * (threads / 32) * launches;
  // Expected per branch, from the lane predicates above: every warp runs each branch once.
  std::printf("{\"target\": \"lanes\", \"launches\": %d, \"expect\": ["
              "{\"kernel\": \"lanes_if_else\", \"line\": %d, \"executions\": %ld, \"divergent\": %ld, \"active_before\": 32, \"active_taken_side\": %d},"
              "{\"kernel\": \"lanes_nested\", \"line\": %d, \"executions\": %ld, \"divergent\": %ld, \"active_before\": 16, \"active_taken_side\": 8}]}\n",
              launches, kLineIfElse, warps, warps, __builtin_popcount(mask), kLineNestedInner, warps, warps);
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: divbench_attribute_targets kway BODY K N LAUNCHES | predication N LAUNCHES | lanes LAUNCHES\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) return usage();
    const std::string what = argv[1];
    if (what == "kway" && argc == 6) {
      const Body body = parse_body(argv[2]);
      const int k = std::atoi(argv[3]);
      const auto n = static_cast<std::uint32_t>(std::strtoul(argv[4], nullptr, 10));
      const int reps = std::atoi(argv[5]);
      const KwayParams p = make_kway_params(body, k, assign_lanes(LaneMap::modulo, k, n, 20260729));
      int warps = 0;
      if (!run_timed(kway_timed_kernel(body, p, 0), reps, &warps)) return 1;
      std::printf("{\"target\": \"kway\", \"body\": \"%s\", \"k\": %d, \"n\": %u, \"launches\": %d, \"warps\": %d}\n",
                  body_name(body), k, n, reps, warps);
      return 0;
    }
    if (what == "predication" && argc == 4) {
      const auto n = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10));
      const int launches = std::atoi(argv[3]);
      int w1 = 0, w2 = 0;
      if (!run_timed(predication_timed_kernel(PredVariant::predicated, 2, n, 0), launches, &w1)) return 1;
      if (!run_timed(predication_timed_kernel(PredVariant::branchy, 2, n, 0), launches, &w2)) return 1;
      std::printf("{\"target\": \"predication\", \"n\": %u, \"launches\": %d, \"warps\": %d}\n", n, launches, w1);
      return 0;
    }
    if (what == "lanes" && argc == 3) return run_lanes(std::atoi(argv[2]));
    return usage();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "divbench_attribute_targets: %s\n", e.what());
    return 1;
  }
}
