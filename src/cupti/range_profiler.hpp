// The target half of CUPTI profiling: one range-profiler session per device, auto range, so every
// kernel launched between Start and Stop becomes one range. Kernel replay: CUPTI replays each kernel
// as often as the metrics' passes need (device memory saved and restored around it). User replay:
// the launch functions run once per pass, in order (CUPTI saves nothing; each function starts from
// its own inputs). Many launches share one Enable/SetConfig .. Decode/Disable sequence instead of
// paying it for every launch.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cupti_api.hpp"
#include "divbench/cupti/region.hpp"
#include "host_config.hpp"

namespace divbench::cupti {

struct Measurement {
  MetricValues values;
  double wall_ms = 0;  // the launch function's wall time inside the session (its replayed passes included)
};

enum class Replay { kernel, user };
const char* replay_name(Replay r);

class RangeProfiler {
 public:
  // For the current CUDA device (its primary context is made current): checks that the device
  // supports range profiling, then configures the metrics it offers out of `metrics`. The ones it does
  // not offer are left out (missing()); Unavailable when one of `required` is among them.
  RangeProfiler(const Api& api, const std::vector<std::string>& metrics, const std::vector<std::string>& required,
                Replay replay);
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Runs every launch function in one session; each must launch exactly one kernel (Unavailable
  // otherwise: the ranges could not be attributed). One measurement per function, in order.
  // `launched` counts the functions that ran (setup can fail before the first, decoding after the last).
  std::vector<Measurement> profile(const std::vector<std::function<void()>>& launches, std::size_t* launched);

  int device() const { return device_; }
  const std::string& chip() const { return chip_; }
  std::size_t passes() const { return host_->passes(); }
  Replay replay() const { return replay_; }
  // Passes the last profile() ran its launch functions (user replay; 1 for kernel replay).
  std::size_t passes_run() const { return passes_run_; }
  const std::vector<std::string>& metrics() const { return host_->metrics(); }
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  void check(CUptiResult r, const char* what) const;

  const Api& api_;
  Replay replay_;
  std::size_t passes_run_ = 0;
  int device_ = -1;
  CUcontext ctx_ = nullptr;
  std::string chip_;
  std::vector<std::uint8_t> availability_;
  std::unique_ptr<HostConfig> host_;
  std::vector<std::string> missing_;
};

}  // namespace divbench::cupti
