// In-process efficiency counters (CUPTI range profiler, libcupti loaded at run time). Collected from
// extra, untimed launches after the timed ones, never inside them; many launches share one profiler
// session (one Enable .. Disable), which is where the cost per point went.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

// The CUPTI library this process can load (the search of src/cupti/cupti_api.hpp), as a path or the
// bare soname when the loader's own search found it; "" with `why` set when none loads.
std::string cupti_library(std::string* why);

// That library's API version (cuptiGetVersion: 130001 for CUDA 13.0's CUPTI, 130401 for 13.4's); 0 when
// none loads.
std::uint32_t cupti_api_version();

// The first CUPTI API version whose SASS metrics patch every kernel launched in one Enable range
// (measured on the H200: 13.0 patches only the first, 13.4 all of them; ../shared/reference/cupti-facts.md).
inline constexpr std::uint32_t kCuptiAllKernelsVersion = 130400;

// The CUPTI a program run under `divbench attribute` should load, and its API version: one that
// instruments every kernel of a run (kCuptiAllKernelsVersion or later) beside divbench or from the
// nvidia-cuda-cupti wheel when there is one, else the library cupti_library() finds ("" and `why` when
// none loads). $DIVBENCH_CUPTI_LIB, when set, is the only candidate.
std::pair<std::string, std::uint32_t> cupti_for_programs(std::string* why);

// The metrics divbench reads by default (cupti/region.hpp names them): the efficiency ratio and its
// two sums, the predicated-on ratio and its sum, the branch-uniformity percentage and its two sums.
const std::vector<std::string>& default_metrics();

// The ones profiling cannot go without (ratio, inst, thread_inst). A chip that does not offer one of
// the others (checked through the CUPTI host API's metric enumeration) loses only that one: it is
// listed in the result's "missing".
const std::vector<std::string>& required_metrics();

// The default metrics without the three branch-target ones, which exist only as SASS-instrumented
// counters: what the points' metric launches collect under DIVBENCH_CUPTI=basic (their objects then
// carry "not_collected" {metrics, why}).
const std::vector<std::string>& basic_metrics();

// Profiles every launch function (each must enqueue exactly one kernel launch on the current device
// and may synchronize) in as few profiler sessions as possible, in order, and returns one object per
// function: {"available": true, "values": {metric: value}, "chip", "passes", "profile_ms" (this
// launch, replay included), "session_launches", "library", "replay", "passes_run", "mode"[, "missing"]}. When profiling is not
// possible (library missing, no permission, unsupported device, DIVBENCH_CUPTI=off) the objects are
// {"available": false, "reason": "..."}, one line goes to stderr once per process, and every function
// still runs once, unprofiled, in the same order (what `ncu --launch-skip` counts on: under ncu,
// DIVBENCH_CUPTI=off). Where counters are read, user replay (DIVBENCH_CUPTI_REPLAY, default) runs the
// whole sequence once per pass ("passes_run"), so each function must start from its own inputs;
// kernel replay runs it once and CUPTI replays each kernel. Never throws for those cases; CUDA errors
// of the functions propagate.
struct ProfileStats {
  std::size_t launches = 0;  // launch functions profiled
  std::size_t sessions = 0;  // profiler sessions (Enable .. Disable) they took
  double wall_ms = 0;        // wall time of the sessions, setup and decoding included
};
std::vector<json> collect_launch_metrics(const std::vector<std::function<void()>>& launches,
                                         const std::vector<std::string>& metrics = default_metrics(),
                                         ProfileStats* stats = nullptr);

// One launch: collect_launch_metrics({launch_once})[0].
json collect_metrics(const std::function<void()>& launch_once,
                     const std::vector<std::string>& metrics = default_metrics());

// A point's metric launches: the full launch and (optional) its zero-work twin; `key` non-empty: the
// same launches as every other point with that key (the caller's guarantee), profiled once for all.
struct PointLaunches {
  std::function<void()> full;
  std::function<void()> twin;
  std::string key = {};
};

// Every point's full launch then its twin, all in one run of collect_launch_metrics: per point the
// full launch's object plus "twin" {metric: value}, "twin_profile_ms" and "region" (cupti/region.hpp).
// Points with the same non-empty key: only the first one's launches run; every one of them gets that
// object with "launch_key" and "points_sharing_launch" (how many points of the call share it).
std::vector<json> collect_points_metrics(const std::vector<PointLaunches>& points, ProfileStats* stats = nullptr);

// One point: collect_points_metrics({{launch_once, launch_twin}})[0].
json collect_point_metrics(const std::function<void()>& launch_once, const std::function<void()>& launch_twin);

// Points queued during a run and profiled together afterwards, per device (the runner's --metrics):
// add() remembers the launches and where the result goes; run() profiles each device's points in one
// pass (cudaSetDevice first) and hands every point its object.
class DeferredMetrics {
 public:
  // `select_device` makes a device current before its pass (default: cudaSetDevice, CudaError on failure).
  explicit DeferredMetrics(std::function<void(int)> select_device = nullptr);
  void add(int device, PointLaunches launches, std::function<void(json)> deliver);
  std::size_t size() const { return queued_.size(); }
  // Returns {"launches", "sessions", "wall_s"} over all devices (null when nothing was queued);
  // `note` gets one progress line before and one after each device's pass.
  json run(const std::function<void(const std::string&)>& note);

 private:
  struct Queued {
    int device;
    PointLaunches launches;
    std::function<void(json)> deliver;
  };
  std::function<void(int)> select_device_;
  std::vector<Queued> queued_;
};

}  // namespace divbench
