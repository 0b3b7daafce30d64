#include "range_profiler.hpp"

#include <cuda_runtime_api.h>

#include <chrono>

namespace divbench::cupti {
namespace {

// The driver's cuCtxGetCurrent through the runtime (no link-time dependency on libcuda).
CUcontext current_context() {
  using Fn = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess || fn == nullptr)
    throw Unavailable("cannot resolve cuCtxGetCurrent through the CUDA runtime");
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

// A zeroed CUPTI parameter struct with its structSize set.
template <class T>
T params(std::size_t size) {
  T p{};
  p.structSize = size;
  return p;
}
#define DIVBENCH_CUPTI_PARAMS(T) params<T>(T##_STRUCT_SIZE)

// Runs `f` on scope exit.
template <class F>
struct Finally {
  F f;
  ~Finally() { f(); }
};
template <class F>
Finally(F) -> Finally<F>;

}  // namespace

std::string describe_result(const Api* api, CUptiResult r, const char* what) {
  const char* text = nullptr;
  if (api && api->cuptiGetResultString) api->cuptiGetResultString(r, &text);
  std::string s = std::string(what) + ": " + (text ? text : "CUPTI error") + " (" + std::to_string(r) + ")";
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    s += "; GPU performance counters are restricted to admin users on this machine (NVreg_RestrictProfilingToAdminUsers)";
  return s;
}

void RangeProfiler::check(CUptiResult r, const char* what) const {
  if (r != CUPTI_SUCCESS) throw Unavailable(describe_result(&api_, r, what));
}

RangeProfiler::RangeProfiler(const Api& api, const std::vector<std::string>& metrics) : api_(api), names_(metrics) {
  if (names_.empty()) throw Unavailable("no metrics requested");
  for (const auto& n : names_) cnames_.push_back(n.c_str());
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

  auto host = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip_.c_str();
  host.pCounterAvailabilityImage = availability_.data();
  check(api_.cuptiProfilerHostInitialize(&host), "cuptiProfilerHostInitialize");
  host_ = host.pHostObject;

  auto add = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = host_;
  add.ppMetricNames = cnames_.data();
  add.numMetrics = cnames_.size();
  check(api_.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics (unknown metric name?)");

  auto size = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
  size.pHostObject = host_;
  check(api_.cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
  config_.resize(size.configImageSize);
  auto img = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
  img.pHostObject = host_;
  img.configImageSize = config_.size();
  img.pConfigImage = config_.data();
  check(api_.cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage");

  auto np = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
  np.configImageSize = config_.size();
  np.pConfigImage = config_.data();
  check(api_.cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
  passes_ = np.numOfPasses;
}

RangeProfiler::~RangeProfiler() {
  if (host_) {
    auto d = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    d.pHostObject = host_;
    api_.cuptiProfilerHostDeinitialize(&d);
  }
}

Measurement RangeProfiler::profile(const std::function<void()>& launch_once, bool* launched) {
  *launched = false;
  const auto t0 = std::chrono::steady_clock::now();
  // Room for a few ranges, so a launch_once that launches more than one kernel is detected, not truncated.
  constexpr std::size_t kMaxRanges = 4;

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
  cds.pMetricNames = cnames_.data();
  cds.numMetrics = cnames_.size();
  cds.maxNumOfRanges = kMaxRanges;
  cds.maxNumRangeTreeNodes = kMaxRanges;
  check(api_.cuptiRangeProfilerGetCounterDataSize(&cds), "cuptiRangeProfilerGetCounterDataSize");
  std::vector<std::uint8_t> data(cds.counterDataSize);
  auto ci = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
  ci.pRangeProfilerObject = obj;
  ci.counterDataSize = data.size();
  ci.pCounterData = data.data();
  check(api_.cuptiRangeProfilerCounterDataImageInitialize(&ci), "cuptiRangeProfilerCounterDataImageInitialize");

  auto sc = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
  sc.pRangeProfilerObject = obj;
  sc.configSize = config_.size();
  sc.pConfig = config_.data();
  sc.counterDataImageSize = data.size();
  sc.pCounterDataImage = data.data();
  sc.range = CUPTI_AutoRange;
  sc.replayMode = CUPTI_KernelReplay;
  sc.maxRangesPerPass = kMaxRanges;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = 0;
  sc.targetNestingLevel = 1;
  check(api_.cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");

  auto st = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
  st.pRangeProfilerObject = obj;
  check(api_.cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
  *launched = true;
  launch_once();  // CUDA errors propagate: they are failures of the run, not of the profiler
  auto sp = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
  sp.pRangeProfilerObject = obj;
  check(api_.cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
  if (!sp.isAllPassSubmitted) throw Unavailable("kernel replay did not submit every pass of the metrics");

  auto dd = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
  dd.pRangeProfilerObject = obj;
  check(api_.cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData");
  if (dd.numOfRangeDropped != 0)
    throw Unavailable(std::to_string(dd.numOfRangeDropped) + " profiled range(s) dropped: more than one kernel launched");

  auto info = DIVBENCH_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  check(api_.cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
  if (info.numTotalRanges != 1)
    throw Unavailable("expected exactly one profiled kernel launch, saw " + std::to_string(info.numTotalRanges));

  std::vector<double> values(cnames_.size(), 0.0);
  auto ev = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  ev.pHostObject = host_;
  ev.pCounterDataImage = data.data();
  ev.counterDataImageSize = data.size();
  ev.rangeIndex = 0;
  ev.ppMetricNames = cnames_.data();
  ev.numMetrics = cnames_.size();
  ev.pMetricValues = values.data();
  check(api_.cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");

  Measurement m;
  for (std::size_t i = 0; i < names_.size(); ++i) m.values[names_[i]] = values[i];
  m.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

}  // namespace divbench::cupti
