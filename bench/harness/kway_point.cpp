#include "kway_point.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/core/samples.hpp"
#include "divbench/cuda/check.hpp"

namespace divbench {
namespace {

// Device buffers of one point, freed on scope exit.
struct DeviceBuffers {
  float* out = nullptr;
  float* table = nullptr;
  std::size_t threads = 0;
  DeviceBuffers(const KwayPointSpec& s) {
    threads = static_cast<std::size_t>(s.blocks) * static_cast<std::size_t>(s.threads_per_block);
    DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&out), threads * sizeof(float)));
    if (!s.table.empty()) {
      DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&table), s.table.size() * sizeof(float)));
      DIVBENCH_CUDA_CHECK(cudaMemcpy(table, s.table.data(), s.table.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
  }
  ~DeviceBuffers() {
    cudaFree(out);
    cudaFree(table);
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
};

void verify(const KwayPointSpec& s, const KwayParams& p, const std::vector<float>& got) {
  float ref[kWarpLanes];
  for (int lane = 0; lane < kWarpLanes; ++lane) ref[lane] = kway_reference(s.body, p, lane, s.table);
  const double tol = kway_tolerance(s.body);
  for (std::size_t t = 0; t < got.size(); ++t) {
    const float want = ref[t % kWarpLanes];
    const float have = got[t];
    const bool ok = tol == 0 ? std::memcmp(&want, &have, sizeof(float)) == 0
                             : std::isfinite(have) && std::fabs(have - want) <= tol * std::max(1.0f, std::fabs(want));
    if (!ok)
      throw VerificationError(std::string("kway/") + body_name(s.body) + " k=" + std::to_string(s.k) + ": thread " +
                              std::to_string(t) + " produced " + std::to_string(have) + ", expected " +
                              std::to_string(want) + " — timing discarded");
  }
}

}  // namespace

KwayParams make_kway_params(const KwayPointSpec& s) {
  KwayParams p;
  p.k = s.k;
  for (int l = 0; l < kWarpLanes; ++l) p.path_of_lane[l] = s.lanes.path_of_lane[l];
  for (int q = 0; q < kWarpLanes; ++q) p.iters_of_path[q] = s.lanes.iters_of_path[q];
  p.table_words = static_cast<std::uint32_t>(s.table.size());
  finish_kway_params(p);
  return p;
}

PointResult run_kway_point(const KwayPointSpec& s) {
  KwayParams p = make_kway_params(s);
  DeviceBuffers buf(s);
  p.table = buf.table;
  // Poison the output: a thread that writes nothing leaves a NaN, which never verifies.
  std::vector<float> host(buf.threads, std::numeric_limits<float>::quiet_NaN());
  DIVBENCH_CUDA_CHECK(cudaMemcpy(buf.out, host.data(), buf.threads * sizeof(float), cudaMemcpyHostToDevice));
  LaunchPlan plan = s.plan;
  plan.samples_per_launch = buf.threads / kWarpLanes;
  const LaunchSamples ls = time_launches(
      plan, [&](RegionSample* dst) { launch_kway(s.body, p, s.blocks, s.threads_per_block, dst, buf.out); },
      "kway_kernel");
  DIVBENCH_CUDA_CHECK(cudaMemcpy(host.data(), buf.out, buf.threads * sizeof(float), cudaMemcpyDeviceToHost));
  verify(s, p, host);

  PointResult r;
  r.point = to_timed_point(ls.samples, ls.reps, ls.samples_per_launch, s.k, ls.wall_ms);
  r.point.extra["verified"] = true;
  r.point.extra["serialized_iters"] = s.lanes.total_iters();
  r.seconds = r.point.clock_mhz > 0 ? r.point.cycles.median / (r.point.clock_mhz * 1e6) : 0.0;
  return r;
}

std::function<void()> kway_launch_once(const KwayPointSpec& s) {
  return [s] {
    KwayParams p = make_kway_params(s);
    DeviceBuffers buf(s);
    p.table = buf.table;
    launch_kway(s.body, p, s.blocks, s.threads_per_block, nullptr, buf.out);
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  };
}

std::function<void()> kway_launch_twin(const KwayPointSpec& s) {
  KwayPointSpec twin = s;
  for (auto& n : twin.lanes.iters_of_path) n = 0;
  return kway_launch_once(twin);
}

}  // namespace divbench
