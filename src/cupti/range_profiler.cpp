#include "range_profiler.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>

namespace divbench::cupti {
namespace {

// The driver's cuCtxGetCurrent through the runtime (no link-time dependency on libcuda).
CUcontext current_context() {
  using Fn = CUresult (*)(CUcontext*);
  void* fn = nullptr;
#if CUDART_VERSION >= 12050
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess || fn == nullptr)
    throw Unavailable("cannot resolve cuCtxGetCurrent through the CUDA runtime");
#else  // CUDA 11.8-12.4 (the legacy preset): the entry point without a version
  if (cudaGetDriverEntryPoint("cuCtxGetCurrent", &fn, cudaEnableDefault) != cudaSuccess || fn == nullptr)
    throw Unavailable("cannot resolve cuCtxGetCurrent through the CUDA runtime");
#endif
  CUcontext ctx = nullptr;
  if (reinterpret_cast<Fn>(fn)(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    throw Unavailable("no current CUDA context to profile");
  return ctx;
}

const char* level_name(CUpti_Profiler_Support_Level l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    default: return "unknown";
  }
}

// Runs `f` on scope exit.
template <class F>
struct Finally {
  F f;
  ~Finally() { f(); }
};
template <class F>
Finally(F) -> Finally<F>;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Room in the counter-data image beyond the expected ranges, so a launch function that launches
// more than one kernel is detected (range count), not truncated.
constexpr std::size_t kSpareRanges = 4;

}  // namespace

void RangeProfiler::check(CUptiResult r, const char* what) const {
  if (r != CUPTI_SUCCESS) throw Unavailable(describe_result(&api_, r, what));
}

const char* replay_name(Replay r) { return r == Replay::user ? "user" : "kernel"; }

RangeProfiler::RangeProfiler(const Api& api, const std::vector<std::string>& metrics,
                             const std::vector<std::string>& required, Replay replay)
    : api_(api), replay_(replay) {
  if (metrics.empty()) throw Unavailable("no metrics requested");
  if (cudaGetDevice(&device_) != cudaSuccess || cudaFree(nullptr) != cudaSuccess)
    throw Unavailable("no usable CUDA device");
  ctx_ = current_context();

  auto init = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
  check(api_.cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");

  auto sup = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_DeviceSupported_Params);
  sup.cuDevice = device_;
  sup.api = CUPTI_PROFILER_RANGE_PROFILING;
  check(api_.cuptiProfilerDeviceSupported(&sup), "cuptiProfilerDeviceSupported");
  if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    throw Unavailable(std::string("device ") + std::to_string(device_) + " does not support range profiling (architecture " +
                      level_name(sup.architecture) + ", vGPU " + level_name(sup.vGpu) + ", confidential compute " +
                      level_name(sup.confidentialCompute) + ", WSL " + level_name(sup.wsl) + ")");

  auto chip = DIVBENCH_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
  chip.deviceIndex = static_cast<std::size_t>(device_);
  check(api_.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
  chip_ = chip.pChipName ? chip.pChipName : "";

  auto avail = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  avail.ctx = ctx_;
  check(api_.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
  availability_.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability_.data();
  check(api_.cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");

  host_ = std::make_unique<HostConfig>(api_, chip_, availability_);
  std::vector<std::string> offered;
  for (const auto& m : metrics) {
    if (host_->offers(m)) {
      offered.push_back(m);
      continue;
    }
    if (std::find(required.begin(), required.end(), m) != required.end())
      throw Unavailable("chip " + chip_ + " does not offer metric " + m);
    missing_.push_back(m);
  }
  host_->configure(offered);
}

std::vector<Measurement> RangeProfiler::profile(const std::vector<std::function<void()>>& launches,
                                               std::size_t* launched) {
  *launched = 0;
  std::vector<Measurement> out;
  if (launches.empty()) return out;
  const std::size_t capacity = launches.size() + kSpareRanges;
  const std::vector<std::uint8_t>& config = host_->config_image();
  std::vector<const char*> names;
  for (const auto& m : host_->metrics()) names.push_back(m.c_str());

  auto en = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  en.ctx = ctx_;
  check(api_.cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
  CUpti_RangeProfiler_Object* obj = en.pRangeProfilerObject;
  Finally disable{[&] {
    auto d = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    d.pRangeProfilerObject = obj;
    api_.cuptiRangeProfilerDisable(&d);
  }};

  auto cds = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
  cds.pRangeProfilerObject = obj;
  cds.pMetricNames = names.data();
  cds.numMetrics = names.size();
  cds.maxNumOfRanges = capacity;
  cds.maxNumRangeTreeNodes = static_cast<std::uint32_t>(capacity);
  check(api_.cuptiRangeProfilerGetCounterDataSize(&cds), "cuptiRangeProfilerGetCounterDataSize");
  std::vector<std::uint8_t> data(cds.counterDataSize);
  auto ci = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  ci.pRangeProfilerObject = obj;
  ci.counterDataSize = data.size();
  ci.pCounterData = data.data();
  check(api_.cuptiRangeProfilerCounterDataImageInitialize(&ci), "cuptiRangeProfilerCounterDataImageInitialize");

  auto sc = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  sc.pRangeProfilerObject = obj;
  sc.configSize = config.size();
  sc.pConfig = config.data();
  sc.counterDataImageSize = data.size();
  sc.pCounterDataImage = data.data();
  sc.range = CUPTI_AutoRange;
  sc.replayMode = replay_ == Replay::user ? CUPTI_UserReplay : CUPTI_KernelReplay;
  sc.maxRangesPerPass = capacity;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  check(api_.cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");

  // Kernel replay: one Start .. Stop, CUPTI replays each kernel as often as the passes need (device
  // memory saved and restored around each). User replay: every launch function runs once per pass,
  // in the same order, until CUPTI says every pass was submitted; nothing is saved or restored, so the
  // launch functions must start from the same inputs each time (each allocates and fills its own).
  std::vector<double> wall(launches.size(), 0.0);
  const std::size_t max_passes = replay_ == Replay::user ? host_->passes() + 2 : 1;
  bool all_submitted = false;
  for (std::size_t pass = 0; pass < max_passes && !all_submitted; ++pass) {
    auto st = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    st.pRangeProfilerObject = obj;
    check(api_.cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
    for (std::size_t i = 0; i < launches.size(); ++i) {
      if (pass == 0) *launched = i + 1;
      const auto l0 = std::chrono::steady_clock::now();
      launches[i]();  // CUDA errors propagate: they are failures of the run, not of the profiler
      wall[i] += ms_since(l0);
    }
    auto sp = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    sp.pRangeProfilerObject = obj;
    check(api_.cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
    all_submitted = sp.isAllPassSubmitted != 0;
    passes_run_ = pass + 1;
  }
  if (!all_submitted)
    throw Unavailable(std::string(replay_name(replay_)) + " replay did not submit every pass of the metrics (" +
                      std::to_string(passes_run_) + " run)");

  auto dd = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  dd.pRangeProfilerObject = obj;
  check(api_.cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData");
  if (dd.numOfRangeDropped != 0)
    throw Unavailable(std::to_string(dd.numOfRangeDropped) +
                      " profiled range(s) dropped: a launch function launched more than one kernel");

  auto info = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  check(api_.cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
  if (info.numTotalRanges != launches.size())
    throw Unavailable("expected one profiled kernel per launch function (" + std::to_string(launches.size()) +
                      "), saw " + std::to_string(info.numTotalRanges));

  // Auto range: range i is the i-th kernel launched in the session.
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const std::vector<double> v = host_->evaluate(data, i);
    Measurement m;
    for (std::size_t j = 0; j < v.size(); ++j) m.values[host_->metrics()[j]] = v[j];
    m.wall_ms = wall[i];
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace divbench::cupti
