#include "kway_point.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
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
  DeviceBuffers(const KwayPointSpec& s, const std::vector<float>& host_table) {
    threads = static_cast<std::size_t>(s.blocks) * static_cast<std::size_t>(s.threads_per_block);
    DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&out), threads * sizeof(float)));
    if (!host_table.empty()) {
      DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&table), host_table.size() * sizeof(float)));
      DIVBENCH_CUDA_CHECK(
          cudaMemcpy(table, host_table.data(), host_table.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
  }
  ~DeviceBuffers() {
    cudaFree(out);
    cudaFree(table);
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
};

// CUDA events around every launch (warm-up ones included; only the timed ones are kept).
struct LaunchEvents {
  std::vector<cudaEvent_t> start, stop;
  explicit LaunchEvents(int n) : start(n, nullptr), stop(n, nullptr) {
    for (int i = 0; i < n; ++i) {
      DIVBENCH_CUDA_CHECK(cudaEventCreate(&start[i]));
      DIVBENCH_CUDA_CHECK(cudaEventCreate(&stop[i]));
    }
  }
  ~LaunchEvents() {
    for (auto e : start) cudaEventDestroy(e);
    for (auto e : stop) cudaEventDestroy(e);
  }
  LaunchEvents(const LaunchEvents&) = delete;
  LaunchEvents& operator=(const LaunchEvents&) = delete;
  std::vector<double> elapsed_ms() const {
    std::vector<double> ms(start.size());
    for (std::size_t i = 0; i < start.size(); ++i) {
      float f = 0;
      DIVBENCH_CUDA_CHECK(cudaEventElapsedTime(&f, start[i], stop[i]));
      ms[i] = f;
    }
    return ms;
  }
};

const std::vector<float>& table_of(const KwayPointSpec& s, std::vector<float>& storage) {
  if (!s.table.empty()) return s.table;
  storage = kway_body_table(s.body);
  return storage;
}

void verify(const KwayPointSpec& s, const KwayParams& p, const std::vector<float>& got,
            const std::vector<float>& table) {
  float ref[kWarpLanes];
  for (int lane = 0; lane < kWarpLanes; ++lane) ref[lane] = kway_reference(s.body, p, lane, table);
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
  std::vector<float> storage;
  const std::vector<float>& table = table_of(s, storage);
  p.k = s.k;
  for (int l = 0; l < kWarpLanes; ++l) p.path_of_lane[l] = s.lanes.path_of_lane[l];
  for (int q = 0; q < kWarpLanes; ++q) p.iters_of_path[q] = s.lanes.iters_of_path[q];
  p.table_words = static_cast<std::uint32_t>(table.size());
  finish_kway_params(p);
  return p;
}

PointResult run_kway_point(const KwayPointSpec& s) {
  std::vector<float> storage;
  const std::vector<float>& table = table_of(s, storage);
  KwayParams p = make_kway_params(s);
  DeviceBuffers buf(s, table);
  p.table = buf.table;
  // Poison the output: a thread that writes nothing leaves a NaN, which never verifies.
  std::vector<float> host(buf.threads, std::numeric_limits<float>::quiet_NaN());
  DIVBENCH_CUDA_CHECK(cudaMemcpy(buf.out, host.data(), buf.threads * sizeof(float), cudaMemcpyHostToDevice));
  LaunchPlan plan = s.plan;
  plan.samples_per_launch = buf.threads / kWarpLanes;
  std::unique_ptr<LaunchEvents> events;
  if (s.kernel_events) events = std::make_unique<LaunchEvents>(plan.warmup + plan.reps);
  int launch_index = 0;
  const LaunchSamples ls = time_launches(
      plan,
      [&](RegionSample* dst) {
        if (events) DIVBENCH_CUDA_CHECK(cudaEventRecord(events->start[launch_index]));
        launch_kway(s.body, p, s.blocks, s.threads_per_block, dst, buf.out, nullptr, s.dynamic_smem);
        if (events) DIVBENCH_CUDA_CHECK(cudaEventRecord(events->stop[launch_index]));
        ++launch_index;
      },
      "kway_kernel");
  DIVBENCH_CUDA_CHECK(cudaMemcpy(host.data(), buf.out, buf.threads * sizeof(float), cudaMemcpyDeviceToHost));
  verify(s, p, host, table);

  PointResult r;
  r.point = to_timed_point(ls.samples, ls.reps, ls.samples_per_launch, s.k, ls.wall_ms);
  r.point.extra["verified"] = true;
  r.point.extra["serialized_iters"] = s.lanes.total_iters();
  if (ls.samples_per_launch > 1) {
    // Which SM each warp of the first timed launch ran on, as warps per SM id.
    std::vector<int> per_sm;
    const RegionSample* first = ls.launch(0);
    for (std::size_t w = 0; w < ls.samples_per_launch; ++w) {
      if (first[w].warp != w) throw std::runtime_error("kway_kernel: sample " + std::to_string(w) + " names warp " +
                                                       std::to_string(first[w].warp));
      if (first[w].smid >= per_sm.size()) per_sm.resize(first[w].smid + 1, 0);
      ++per_sm[first[w].smid];
    }
    r.point.extra["sm_warps"] = per_sm;
  }
  if (events) {
    std::vector<double> ms = events->elapsed_ms();
    ms.erase(ms.begin(), ms.begin() + plan.warmup);
    const Summary k = summarize(ms);
    r.point.extra["kernel_ms"] = json{{"median", k.median}, {"min", k.min}, {"max", k.max}, {"cv", k.cv}};
  }
  r.seconds = r.point.clock_mhz > 0 ? r.point.cycles.median / (r.point.clock_mhz * 1e6) : 0.0;
  return r;
}

std::function<void()> kway_launch_once(const KwayPointSpec& s) {
  return [s] {
    std::vector<float> storage;
    const std::vector<float>& table = table_of(s, storage);
    KwayParams p = make_kway_params(s);
    DeviceBuffers buf(s, table);
    p.table = buf.table;
    launch_kway(s.body, p, s.blocks, s.threads_per_block, nullptr, buf.out, nullptr, s.dynamic_smem);
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  };
}

std::function<void()> kway_launch_twin(const KwayPointSpec& s) {
  KwayPointSpec twin = s;
  for (auto& n : twin.lanes.iters_of_path) n = 0;
  return kway_launch_once(twin);
}

}  // namespace divbench
