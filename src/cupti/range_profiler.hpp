// One CUPTI range-profiler session per device: auto range + kernel replay, so exactly one kernel launch
// becomes one range and CUPTI replays it as often as the metrics need (state saved and restored).
#pragma once
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cupti_api.hpp"
#include "divbench/cupti/region.hpp"

namespace divbench::cupti {

// Profiling is not possible here (no permission, unsupported device, unknown metric, CUPTI error).
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Measurement {
  MetricValues values;
  double wall_ms = 0;  // enable .. disable, including the replayed passes
};

class RangeProfiler {
 public:
  // For the current CUDA device (its primary context is made current). Throws Unavailable.
  RangeProfiler(const Api& api, const std::vector<std::string>& metrics);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Profiles `launch_once`, which must launch exactly one kernel (Unavailable otherwise). `launched`
  // tells the caller whether launch_once ran (it does not run when setup fails first).
  Measurement profile(const std::function<void()>& launch_once, bool* launched);

  int device() const { return device_; }
  const std::string& chip() const { return chip_; }
  std::size_t passes() const { return passes_; }

 private:
  void check(CUptiResult r, const char* what) const;

  const Api& api_;
  std::vector<std::string> names_;
  std::vector<const char*> cnames_;
  int device_ = -1;
  CUcontext ctx_ = nullptr;
  std::string chip_;
  std::vector<std::uint8_t> availability_;
  std::vector<std::uint8_t> config_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::size_t passes_ = 0;
};

// "what: CUPTI_ERROR_X (text)", with a hint for CUPTI_ERROR_INSUFFICIENT_PRIVILEGES.
std::string describe_result(const Api* api, CUptiResult r, const char* what);

}  // namespace divbench::cupti
