// libdivbench_inject.so: loaded into a CUDA program by the driver (CUDA_INJECTION64_PATH) when
// `divbench attribute -- PROGRAM` runs it; it writes into $DIVBENCH_ATTRIBUTE_DIR.
//
// Every run counts kernel launches by function and saves every module the program loads
// (cubins/<crc>.cubin: from the executable, its shared libraries, or compiled at run time by NVRTC or
// the PTX JIT). $DIVBENCH_ATTRIBUTE_TARGET names the one function to instrument through CUPTI's SASS
// metrics, from its first launch on ("*first*": the discovery run, whichever kernel is launched first
// among those matching $DIVBENCH_ATTRIBUTE_MATCH, --kernel's expression);
// its per-instruction counts, summed over every launch, are written at exit with the launch counts
// (counts-<pid>.json, "divbench.attribute_counts/1", attribute/counts.hpp).
// "*all*" instruments every function from the first launch on: with CUPTI 13.4 one Enable range patches
// every function launched in it (measured on the H200, driver 580), so one run gives every kernel.
// Why one function per process under CUPTI 13.0: on the H200 (CUPTI 13.0, driver 580) the SASS metrics API patches only
// the first function launched after cuptiSassMetricsEnable; later functions, and every function in a
// later Enable range of the same process, collect nothing, and non-lazy patching collects nothing for
// the runtime's kernels (measured with a three-kernel program; docs/attribute.md). `divbench attribute`
// therefore runs the program once to discover its kernels and once more per kernel it attributes.
// errors-<pid>.txt gets one line per CUPTI failure (e.g. no profiling permission).
#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <memory>
#include "divbench/core/pattern.hpp"
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "injection_base.hpp"

namespace {

using json = nlohmann::json;
using divbench::inject::debugf;
constexpr const char* kTag = "inject";  // DIVBENCH_ATTRIBUTE_DEBUG=1 lines: "divbench inject: ..."

// The metrics, in the order of a counts row after the pc. The last, the global-memory sectors each
// instruction requested (the memory rule of attribute/run.cpp), is optional: a chip or CUPTI without it
// leaves it out of metrics[] and of the rows.
const char* const kMetrics[] = {"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed",
                                "smsp__sass_thread_inst_executed_pred_on",
                                "smsp__sass_branch_targets_threads_divergent",
                                "smsp__sass_branch_targets_threads_uniform", "smsp__sass_sectors_mem_global"};
constexpr int kMetricCount = 6;
constexpr int kRequiredMetrics = 5;

struct State {
  std::mutex mu;
  divbench::inject::Process proc;  // the loading process and $DIVBENCH_ATTRIBUTE_DIR
  CUpti_SubscriberHandle subscriber = nullptr;
  std::map<std::uint64_t, int> metric_slot;    // metric id -> index in kMetrics
  std::map<std::uint32_t, bool> configured;    // device index -> SetConfig done
  std::map<CUcontext, std::uint32_t> enabled;  // contexts with collection enabled -> device
  std::map<CUcontext, bool> failed;            // contexts where enabling failed (not retried)
  std::string target;                          // the function to instrument ("*first*": discovery)
  std::unique_ptr<divbench::NamePattern> match;  // discovery: the first kernel launched that matches
  std::map<std::string, std::uint64_t> launches;  // launches per function (symbol name)
  // The launch configuration of each function, over its launches (time model: resident warps per SM):
  // blocks summed, the largest block, the fewest blocks an SM can hold at once (the driver's occupancy
  // calculator for that block and its dynamic shared memory), launches whose configuration was read.
  struct LaunchShape {
    std::uint64_t launches = 0, blocks = 0;
    unsigned block_threads = 0;
    int blocks_per_sm = 0;
  };
  std::map<std::string, LaunchShape> shapes;
  // Launch sampling ($DIVBENCH_ATTRIBUTE_LAUNCHES=N, "*all*" only): the collection range opens at the first
  // launch of a function not named in $DIVBENCH_ATTRIBUTE_SKIP (a file, one mangled name a line: those an
  // earlier run counted) and closes for good, its records collected, at the first launch that would be a
  // function's N+1-th in it. A second range of one process collects nothing (measured on the H200, CUPTI
  // 13.4: results/h200/probes/launch-cost/), so a function first launched after the close is left to the
  // next run (attribute/run.cpp). A launch into a stream being captured runs later, in its graph: it neither
  // opens nor closes the range (a synchronisation there would end the capture). counted_launches: the
  // launches of each function that ran in the range.
  std::uint64_t sample_first = 0;
  std::set<std::string> skip;
  std::map<std::string, std::uint64_t> counted_launches;
  bool sample_closed = false;
  std::map<std::uint32_t, std::string> cubins; // crc -> file name (relative)
  // (crc, function name) -> pc -> counts
  std::map<std::pair<std::uint32_t, std::string>, std::map<std::uint32_t, std::array<std::uint64_t, kMetricCount>>> counts;
  json device = json::object();
  std::uint64_t dropped = 0;
  divbench::inject::ErrorLog errors{"divbench attribute"};
  bool written = false;
};

State& state() {
  static State* s = new State;  // never destroyed: atexit handlers may still use it
  return *s;
}

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

// A CUPTI parameter struct: zeroed, with its size set.
template <class T>
T params(std::size_t size) {
  T p{};
  p.structSize = size;
  return p;
}

void note_error(State& s, const std::string& what, CUptiResult r) {
  // After a kernel failed (note_kernel_failure put it first), CUPTI's reads fail as a consequence:
  // divbench says the failure in one line, so this one is kept in the errors file but not printed.
  const bool explained = !s.errors.empty() && s.errors.first().rfind("kernel failed: ", 0) == 0;
  s.errors.add_cupti(what, r, !explained);
}

bool configure_device(State& s, std::uint32_t device) {
  if (s.configured.count(device)) return s.configured[device];
  s.configured[device] = false;
  auto pi = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  DIVBENCH_CUPTI_TRY(s, cuptiProfilerInitialize(&pi));
  auto cn = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  cn.deviceIndex = device;
  DIVBENCH_CUPTI_TRY(s, cuptiDeviceGetChipName(&cn));
  std::vector<CUpti_SassMetrics_Config> configs;
  for (int m = 0; m < kMetricCount; ++m) {
    auto gp = params<CUpti_SassMetrics_GetProperties_Params>(CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
    gp.pChipName = cn.pChipName;
    gp.pMetricName = kMetrics[m];
    if (m >= kRequiredMetrics) {
      if (cuptiSassMetricsGetProperties(&gp) != CUPTI_SUCCESS) {
        debugf(kTag, "optional metric %s not available on %s", kMetrics[m], cn.pChipName ? cn.pChipName : "?");
        continue;
      }
    } else {
      DIVBENCH_CUPTI_TRY(s, cuptiSassMetricsGetProperties(&gp));
    }
    s.metric_slot[gp.metric.metricId] = m;
    configs.push_back({gp.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  auto sc = params<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
  sc.numOfMetricConfig = configs.size();
  sc.pConfigs = configs.data();
  sc.deviceIndex = device;
  if (configs.size() > static_cast<std::size_t>(kRequiredMetrics) && cuptiSassMetricsSetConfig(&sc) != CUPTI_SUCCESS) {
    // The optional metrics refused together with the others: configure the required ones alone.
    debugf(kTag, "SetConfig with the optional metrics failed; without them");
    configs.resize(kRequiredMetrics);
    for (auto it = s.metric_slot.begin(); it != s.metric_slot.end();)
      it = it->second >= kRequiredMetrics ? s.metric_slot.erase(it) : std::next(it);
    sc.numOfMetricConfig = configs.size();
    DIVBENCH_CUPTI_TRY(s, cuptiSassMetricsSetConfig(&sc));
  } else if (configs.size() <= static_cast<std::size_t>(kRequiredMetrics)) {
    DIVBENCH_CUPTI_TRY(s, cuptiSassMetricsSetConfig(&sc));
  }
  CUdevice dev = 0;
  char name[256] = {0};
  int major = 0, minor = 0, sms = 0, threads_per_sm = 0, clock_khz = 0;
  if (cuDeviceGet(&dev, static_cast<int>(device)) == CUDA_SUCCESS) {
    cuDeviceGetName(name, sizeof name, dev);
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    cuDeviceGetAttribute(&threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev);
  }
  // Key by key: GCC 12 warns (-Warray-bounds, a false positive) on the initializer-list form here.
  s.device = json::object();
  s.device["name"] = name;
  s.device["cc"] = std::to_string(major) + "." + std::to_string(minor);
  s.device["sms"] = sms;
  s.device["max_warps_per_sm"] = threads_per_sm / 32;
  s.device["clock_khz"] = clock_khz;
  s.device["chip"] = cn.pChipName ? cn.pChipName : "";
  s.device["index"] = device;
  s.configured[device] = true;
  return true;
}

bool enable_context(State& s, CUcontext ctx) {
  std::uint32_t device = 0;
  DIVBENCH_CUPTI_TRY(s, cuptiGetDeviceId(ctx, &device));
  if (!configure_device(s, device)) return false;
  auto en = params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  en.ctx = ctx;
  en.enableLazyPatching = 1;
  DIVBENCH_CUPTI_TRY(s, cuptiSassMetricsEnable(&en));
  s.enabled[ctx] = device;
  debugf(kTag, "enabled on context %p (device %u)", static_cast<void*>(ctx), device);
  return true;
}

// Moves CUPTI's records for `ctx` into the state (CUPTI resets them: a later flush adds only what ran
// since).
bool collect_records(State& s, CUcontext ctx) {
  auto dp = params<CUpti_SassMetricsGetDataProperties_Params>(CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  dp.ctx = ctx;
  DIVBENCH_CUPTI_TRY(s, cuptiSassMetricsGetDataProperties(&dp));
  debugf(kTag, "flush context %p: %zu records x %zu instances", static_cast<void*>(ctx), dp.numOfPatchedInstructionRecords, dp.numOfInstances);
  if (dp.numOfPatchedInstructionRecords > 0 && dp.numOfInstances > 0) {
    std::vector<CUpti_SassMetrics_Data> data(dp.numOfPatchedInstructionRecords);
    std::vector<CUpti_SassMetrics_InstanceValue> values(dp.numOfPatchedInstructionRecords * dp.numOfInstances);
    for (std::size_t i = 0; i < data.size(); ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * dp.numOfInstances];
    }
    auto fd = params<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
    fd.ctx = ctx;
    fd.numOfPatchedInstructionRecords = data.size();
    fd.numOfInstances = dp.numOfInstances;
    fd.pMetricsData = data.data();
    DIVBENCH_CUPTI_TRY(s, cuptiSassMetricsFlushData(&fd));
    for (const auto& d : data) {
      debugf(kTag, "record %u %s 0x%x", d.cubinCrc, d.functionName ? d.functionName : "?", d.pcOffset);
      auto& row = s.counts[{d.cubinCrc, d.functionName ? d.functionName : ""}][d.pcOffset];
      for (std::size_t k = 0; k < dp.numOfInstances; ++k) {
        const auto it = s.metric_slot.find(d.pInstanceValues[k].metricId);
        if (it != s.metric_slot.end()) row[it->second] += d.pInstanceValues[k].value;
      }
      std::free(const_cast<char*>(d.functionName));  // allocated by CUPTI for the caller
    }
  }
  return true;
}

// A kernel that trapped or faulted leaves its context with a sticky error, after which CUPTI's reads
// fail with CUPTI_ERROR_UNKNOWN: that error is the first line of errors-<pid>.txt, named for what it is.
void note_kernel_failure(State& s, CUcontext ctx) {
  if (cuCtxPushCurrent(ctx) != CUDA_SUCCESS) return;
  const CUresult r = cuCtxSynchronize();
  CUcontext popped = nullptr;
  cuCtxPopCurrent(&popped);
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_DEINITIALIZED) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  s.errors.add_first(std::string("kernel failed: ") + (name ? name : "CUresult " + std::to_string(r)) +
                     (text ? std::string(": ") + text : std::string()));
}

// Collects what is left for `ctx` and ends collection on it.
bool flush_context(State& s, CUcontext ctx) {
  if (!s.enabled.count(ctx)) return true;
  note_kernel_failure(s, ctx);
  const bool ok = collect_records(s, ctx);
  s.enabled.erase(ctx);
  if (!ok) return false;
  auto di = params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
  di.ctx = ctx;
  DIVBENCH_CUPTI_TRY(s, cuptiSassMetricsDisable(&di));
  s.dropped += di.numOfDroppedRecords;
  return true;
}

void save_cubin(State& s, const void* image, std::size_t size) {
  if (!image || size == 0) return;
  CUpti_GetCubinCrcParams p{};
  p.size = CUpti_GetCubinCrcParamsSize;
  p.cubinSize = size;
  p.cubin = image;
  if (const CUptiResult r = cuptiGetCubinCrc(&p); r != CUPTI_SUCCESS) {
    note_error(s, "cuptiGetCubinCrc", r);
    return;
  }
  const auto crc = static_cast<std::uint32_t>(p.cubinCrc);
  if (s.cubins.count(crc)) return;
  const std::string rel = "cubins/" + std::to_string(crc) + ".cubin";
  if (divbench::inject::write_whole(s.proc.dir + "/" + rel, std::string(static_cast<const char*>(image), size)))
    s.cubins[crc] = rel;
}

// GCC 12 warns (-Warray-bounds) in this function on nlohmann::json values holding strings, in whichever
// form they are built: a false positive of the library's diagnostics mode (set_parents on a value that is
// not an object), reported inside std::map's begin().
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
void write_counts(State& s) {
  if (s.written) return;
  s.written = true;
  json doc{{"schema", "divbench.attribute_counts/1"}, {"pid", ::getpid()}, {"device", s.device},
           {"metrics", json::array()}, {"dropped_records", s.dropped}, {"cubins", json::array()},
           {"functions", json::array()}};
  const bool sectors = std::any_of(s.metric_slot.begin(), s.metric_slot.end(),
                                   [](const auto& m) { return m.second == kRequiredMetrics; });
  for (int m = 0; m < (sectors ? kMetricCount : kRequiredMetrics); ++m) doc["metrics"].push_back(kMetrics[m]);
  for (const auto& [crc, file] : s.cubins) doc["cubins"].push_back({{"crc", crc}, {"file", file}});
  for (const auto& [key, pcs] : s.counts) {
    if (s.skip.count(key.second)) continue;  // an earlier run counted it (launch sampling's later runs)
    json rows = json::array();
    for (const auto& [pc, v] : pcs) {
      json row{pc, v[0], v[1], v[2], v[3], v[4]};
      if (sectors) row.push_back(v[5]);
      rows.push_back(row);
    }
    doc["functions"].push_back({{"crc", key.first}, {"name", key.second}, {"pcs", rows}});
  }
  json launches = json::object();
  for (const auto& [name, n] : s.launches) launches[name] = n;
  // A later run of launch sampling leaves the launches to the first (a recording merges its files).
  if (s.skip.empty()) doc["launches"] = launches;
  json shapes = json::object();
  for (const auto& [name, sh] : s.shapes) {
    json one = json::object();
    one["launches"] = sh.launches;
    one["blocks"] = sh.blocks;
    one["block_threads"] = sh.block_threads;
    one["blocks_per_sm"] = sh.blocks_per_sm;
    shapes[name] = one;
  }
  if (s.skip.empty()) doc["launch_shapes"] = shapes;
  if (s.sample_first > 0) {
    json counted = json::object();
    for (const auto& [name, n] : s.counted_launches)
      if (!s.skip.count(name) && n > 0) counted[name] = n;
    json ls = json::object();  // built key by key: GCC 12 warns (-Warray-bounds) on the initializer-list form
    ls["first"] = s.sample_first;
    ls["counted_launches"] = counted;
    ls["closed"] = s.sample_closed;
    doc["launch_sampling"] = ls;
  }
  doc["target"] = s.target;
  divbench::inject::write_whole(s.proc.dir + "/counts-" + std::to_string(::getpid()) + ".json", doc.dump());
  s.errors.write(s.proc.dir);
}
#pragma GCC diagnostic pop

// Whether a launch goes into a stream being captured (it runs later, in its graph).
bool capturing(CUpti_CallbackId id, const CUpti_CallbackData* info) {
  const divbench::inject::LaunchParams p = divbench::inject::launch_params(id, info->functionParams);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return p.ok && cuStreamIsCapturing(p.stream, &status) == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// The grid, block and dynamic shared memory of a launch, and how many such blocks an SM holds at once.
// Read as the launch returns (API_EXIT) and outside the state's lock: the occupancy query may load the
// function's module (lazy loading), whose resource callback takes the lock.
struct ShapeRead {
  bool ok = false;
  std::uint64_t blocks = 0;
  unsigned threads = 0;
  int per_sm = 0;
};

ShapeRead read_shape(CUpti_CallbackId id, const CUpti_CallbackData* info) {
  ShapeRead r;
  if (!info->symbolName) return r;
  const divbench::inject::LaunchParams p = divbench::inject::launch_params(id, info->functionParams);
  if (!p.ok || !p.function || p.block_threads == 0) return r;
  r.threads = p.block_threads;
  if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&r.per_sm, p.function, static_cast<int>(r.threads), p.shared_bytes) !=
      CUDA_SUCCESS)
    return r;
  r.blocks = p.blocks;
  r.ok = true;
  return r;
}

void store_shape(State& s, const std::string& name, const ShapeRead& r) {
  auto& shape = s.shapes[name];
  ++shape.launches;
  shape.blocks += r.blocks;
  shape.block_threads = std::max(shape.block_threads, r.threads);
  shape.blocks_per_sm = shape.blocks_per_sm == 0 ? r.per_sm : std::min(shape.blocks_per_sm, r.per_sm);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  State& s = state();
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (info->callbackSite == CUPTI_API_EXIT) {  // the launch's shape, read before the lock (read_shape)
      const ShapeRead r = s.proc.owns() ? read_shape(id, info) : ShapeRead{};
      if (!r.ok) return;
      std::lock_guard<std::mutex> lock(s.mu);
      store_shape(s, info->symbolName, r);
      return;
    }
  }
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.proc.owns()) return;  // a forked child
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    // One collection range per launch: enabled as the launch enters (the context is current there;
    // enabling at context creation collects nothing) and, once the kernel has run, its records
    // collected and the range closed. Measured on the H200 (CUPTI 13.0): within one range only the
    // first function launched is patched, so a range never spans two launches.
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    if (info->callbackSite != CUPTI_API_ENTER) return;
    // Every kernel ("*all*", CUPTI 13.4 and later: one range patches every function launched in it):
    // the range opens at the context's first launch, a graph's included, and stays open until the
    // context ends or the process exits.
    const bool graph = divbench::inject::is_graph_launch(id);
    bool open_range = s.target == "*all*" && !s.sample_closed;
    if (s.target == "*all*" && s.sample_first > 0 && info->context && !capturing(id, info)) {
      const std::string name = info->symbolName && !graph ? info->symbolName : "";
      CUcontext ctx = info->context;
      // A function an earlier run counted (DIVBENCH_ATTRIBUTE_SKIP) neither opens nor closes the range: its
      // launches in a later run are not what the range samples. (Before, a counted kernel launched twice
      // closed a later run's range at once: the launch-sampling probe, results/h200/probes/launch-sampling,
      // found 15 of 30 kernels of tests/attribute/programs.cu never counted.)
      const bool counted_before = !name.empty() && s.skip.count(name);
      if (!s.enabled.count(ctx)) {
        open_range = !s.sample_closed && (graph || !counted_before);  // opens at a function not yet counted
        if (open_range && !name.empty() && !counted_before) ++s.counted_launches[name];
      } else if (counted_before) {
        // no effect on the range
      } else if (!name.empty() && s.counted_launches[name] >= s.sample_first) {
        debugf(kTag, "launch %s past the sample of %llu: range closed", name.c_str(), static_cast<unsigned long long>(s.sample_first));
        flush_context(s, ctx);
        s.sample_closed = true;
        open_range = false;
      } else if (!name.empty()) {
        ++s.counted_launches[name];
      }
    }
    if (open_range && info->context && !s.enabled.count(info->context) && !s.failed.count(info->context) &&
        !enable_context(s, info->context))
      s.failed[info->context] = true;
    // A graph's launch names no kernel (CUPTI gives its symbolName as "Unknown"): its kernels are known by
    // their counts (run.cpp), and the graph launch is no launch of a kernel of that name.
    if (!info->symbolName || graph) return;
    ++s.launches[info->symbolName];
    // The discovery run: the first kernel launched that matches --kernel (mangled or demangled name).
    if (s.target == "*first*" && (!s.match || s.match->search(info->symbolName) || s.match->search(demangle(info->symbolName))))
      s.target = info->symbolName;
    // The target's first launch opens the one collection range of this process (the context is
    // current here; enabling from the context-creation callback collects nothing).
    if (!s.target.empty() && s.target == info->symbolName && info->context && !s.enabled.count(info->context) &&
        !s.failed.count(info->context) && !enable_context(s, info->context))
      s.failed[info->context] = true;
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  const auto* rd = static_cast<const CUpti_ResourceData*>(data);
  debugf(kTag, "resource callback %u", static_cast<unsigned>(id));
  if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    flush_context(s, rd->context);
  } else if (id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    // A module unloaded before the end (NVRTC's, cuModuleUnload): what has been recorded so far, while
    // CUPTI still knows the functions; the range stays open for what runs later. Measured on the H200
    // (CUPTI 13.4, results/h200/probes/nvrtc-unload): the unloaded module's own kernels have no records
    // here or later; run.cpp names them (collection.launched_without_counts).
    if (s.enabled.count(rd->context) && !collect_records(s, rd->context)) debugf(kTag, "flush at module unload failed");
  } else if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
    debugf(kTag, "module loaded: %zu bytes", m ? m->cubinSize : 0);
    if (m) save_cubin(s, m->pCubin, m->cubinSize);
  }
}

void at_exit() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.proc.owns()) return;  // a forked child's exit
  debugf(kTag, "at exit: %zu live context(s)", s.enabled.size());
  std::vector<CUcontext> live;
  for (const auto& [ctx, dev] : s.enabled) live.push_back(ctx);
  for (CUcontext ctx : live) flush_context(s, ctx);
  write_counts(s);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.subscriber) return 1;
  if (!s.proc.start("injection library")) return 0;
  ::mkdir((s.proc.dir + "/cubins").c_str(), 0700);
  CUptiResult r = cuptiSubscribe(&s.subscriber, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
  if (r != CUPTI_SUCCESS) {
    note_error(s, "cuptiSubscribe", r);
    s.subscriber = nullptr;
    write_counts(s);
    return 0;
  }
  for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
                              CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING})
    if ((r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, id)) != CUPTI_SUCCESS) note_error(s, "cuptiEnableCallback", r);
  divbench::inject::enable_launch_callbacks(s.subscriber, s.errors);
  if (const char* t = std::getenv("DIVBENCH_ATTRIBUTE_TARGET"); t && *t) s.target = t;
  if (const char* n = std::getenv("DIVBENCH_ATTRIBUTE_LAUNCHES"); n && *n) s.sample_first = std::strtoull(n, nullptr, 10);
  if (const char* k = std::getenv("DIVBENCH_ATTRIBUTE_SKIP"); k && *k) {
    std::ifstream f(k);  // a line a name, whatever its length (a C++ name can pass 20,000 characters)
    for (std::string n; std::getline(f, n);)
      if (!n.empty()) s.skip.insert(n);
  }
  if (const char* m = std::getenv("DIVBENCH_ATTRIBUTE_MATCH"); m && *m) {
    try {
      s.match = std::make_unique<divbench::NamePattern>(m);
    } catch (const std::invalid_argument&) {
      s.match.reset();  // divbench checked the expression already; a bad one instruments the first kernel
    }
  }
  std::atexit(at_exit);
  return 1;
}
