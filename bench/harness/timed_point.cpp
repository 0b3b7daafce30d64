#include "timed_point.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/core/samples.hpp"
#include "divbench/core/warp.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"
#include "divbench/cuda/launch_events.hpp"
#include "divbench/cuda/occupancy.hpp"

namespace divbench {
namespace {

void verify(const TimedKernel& kernel, const std::vector<float>& got) {
  float ref[kWarpLanes];
  for (int lane = 0; lane < kWarpLanes; ++lane) ref[lane] = kernel.reference(lane);
  for (std::size_t t = 0; t < got.size(); ++t) {
    const float want = ref[t % kWarpLanes];
    const float have = got[t];
    const bool ok = kernel.tolerance == 0
                        ? std::memcmp(&want, &have, sizeof(float)) == 0
                        : std::isfinite(have) && std::fabs(have - want) <= kernel.tolerance * std::max(1.0f, std::fabs(want));
    if (!ok)
      throw VerificationError(kernel.name + ": thread " + std::to_string(t) + " produced " + std::to_string(have) +
                              ", expected " + std::to_string(want) + " — timing discarded");
  }
}

}  // namespace

LaunchShape warp_per_sm_shape(const TimedKernel& kernel, const DeviceRecord& dev) {
  LaunchShape s{dev.sm_count, kWarpLanes, smem_to_pin_blocks_per_sm(dev.index, 1)};
  const int fit = kernel.blocks_per_sm(s);
  if (fit != 1)
    throw std::runtime_error(kernel.name + ": warp-per-SM sampling could not pin one block per SM with " +
                             std::to_string(s.dynamic_smem) + " B of shared memory (the occupancy API allows " +
                             std::to_string(fit) + "); use --sampling single");
  return s;
}

PointResult run_timed_point(const TimedKernel& kernel, const TimedRun& run, const DeviceRecord& dev, double k) {
  const TimingConfig& t = run.timing;
  LaunchShape shape;
  LaunchPlan plan;
  plan.warmup = warmup_launches(t, run.shape.has_value());
  Reduction reduction = Reduction::each_sample;
  if (run.shape) {
    shape = *run.shape;
    plan.launches = t.reps;
    reduction = Reduction::launch_median;
  } else if (t.sampling == Sampling::warp_per_sm) {
    shape = warp_per_sm_shape(kernel, dev);
    plan.launches = (t.reps + dev.sm_count - 1) / dev.sm_count;
  } else {
    plan.launches = t.reps;
  }
  plan.samples_per_launch = shape.warps();

  // Poison the output: a thread that writes nothing leaves a NaN, which never verifies.
  DeviceBuffer<float> out(std::vector<float>(shape.threads(), std::numeric_limits<float>::quiet_NaN()));
  std::unique_ptr<LaunchEvents> events;
  if (run.kernel_events) events = std::make_unique<LaunchEvents>(plan.warmup + plan.launches);
  int launch_index = 0;
  const LaunchSamples ls = time_launches(
      plan,
      [&](RegionSample* dst) {
        if (events) DIVBENCH_CUDA_CHECK(cudaEventRecord(events->start[launch_index]));
        kernel.launch(shape, dst, out.get());
        if (events) DIVBENCH_CUDA_CHECK(cudaEventRecord(events->stop[launch_index]));
        ++launch_index;
      },
      kernel.name.c_str());
  verify(kernel, out.download());

  PointResult r;
  r.point = to_timed_point(ls.samples, ls.launches, ls.samples_per_launch, k, ls.wall_ms, reduction);
  r.point.gpu_ms = ls.gpu_ms;
  for (std::size_t i = 0; i < ls.samples.size(); ++i)
    if (ls.samples[i].warp != i % ls.samples_per_launch)
      throw std::runtime_error(kernel.name + ": sample " + std::to_string(i) + " names warp " +
                               std::to_string(ls.samples[i].warp));
  if (!t.keep_samples) {
    r.point.sample_cycles.clear();
    r.point.sample_smid.clear();
  }
  r.point.extra["verified"] = true;
  r.point.extra["sampling"] = run.shape ? "grid" : sampling_name(t.sampling);
  r.point.extra["placement"] = kernel.placement;
  r.point.extra["warmup"] = plan.warmup;
  if (run.shape) {
    // Warps per SM id in the first timed launch.
    std::vector<int> per_sm;
    const RegionSample* first = ls.launch(0);
    for (std::size_t w = 0; w < ls.samples_per_launch; ++w) {
      if (first[w].smid >= per_sm.size()) per_sm.resize(first[w].smid + 1, 0);
      ++per_sm[first[w].smid];
    }
    r.point.extra["sm_warps"] = per_sm;
  } else if (t.sampling == Sampling::warp_per_sm) {
    std::set<std::uint32_t> sms;
    for (const auto& s : ls.samples) sms.insert(s.smid);
    r.point.extra["sms_distinct"] = sms.size();
    r.point.extra["launches_with_shared_sm"] = launches_with_shared_sm(ls.samples, ls.launches, ls.samples_per_launch);
  }
  if (events) {
    const Summary km = summarize(events->elapsed_ms(plan.warmup));
    r.point.extra["kernel_ms"] = json{{"median", km.median}, {"min", km.min}, {"max", km.max}, {"cv", km.cv}};
  }
  r.seconds = r.point.clock_mhz > 0 ? r.point.cycles.median / (r.point.clock_mhz * 1e6) : 0.0;
  return r;
}

std::function<void()> launch_once(const TimedKernel& kernel) {
  return [kernel] {
    const LaunchShape one;
    DeviceBuffer<float> out(one.threads());
    kernel.launch(one, nullptr, out.get());
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  };
}

PointSpec timed_point_spec(json axes, const TimedKernel& kernel, const TimedRun& run, const DeviceRecord& dev, double k,
                           json extra, std::function<void()> once, std::function<void()> twin) {
  return PointSpec{std::move(axes), "",
                   [kernel, run, dev, k, extra = std::move(extra)] {
                     PointResult r = run_timed_point(kernel, run, dev, k);
                     r.point.extra.update(extra);
                     return r;
                   },
                   std::move(once), std::move(twin)};
}

}  // namespace divbench
