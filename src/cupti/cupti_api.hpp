// The CUPTI entry points divbench uses, resolved at run time with dlopen (never linked).
//
// Why dlopen: the divbench executable must start, list experiments and run its CPU paths on machines
// without a GPU, a driver or libcupti (CI). Linking libcupti.so.13 would make the loader refuse to
// start the binary wherever the library is not on the search path; resolving it at run time turns a
// missing library into one "metrics unavailable" line instead.
#pragma once
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <memory>
#include <string>
#include <vector>

// X(name) for every CUPTI function divbench calls.
#define DIVBENCH_CUPTI_FUNCTIONS(X)              \
  X(cuptiGetResultString)                        \
  X(cuptiGetVersion)                             \
  X(cuptiProfilerInitialize)                     \
  X(cuptiProfilerDeviceSupported)                \
  X(cuptiDeviceGetChipName)                      \
  X(cuptiProfilerGetCounterAvailability)         \
  X(cuptiProfilerHostInitialize)                 \
  X(cuptiProfilerHostDeinitialize)               \
  X(cuptiProfilerHostGetBaseMetrics)             \
  X(cuptiProfilerHostGetSubMetrics)              \
  X(cuptiProfilerHostConfigAddMetrics)           \
  X(cuptiProfilerHostGetConfigImageSize)         \
  X(cuptiProfilerHostGetConfigImage)             \
  X(cuptiProfilerHostGetNumOfPasses)             \
  X(cuptiProfilerHostEvaluateToGpuValues)        \
  X(cuptiRangeProfilerEnable)                    \
  X(cuptiRangeProfilerDisable)                   \
  X(cuptiRangeProfilerGetCounterDataSize)        \
  X(cuptiRangeProfilerCounterDataImageInitialize) \
  X(cuptiRangeProfilerSetConfig)                 \
  X(cuptiRangeProfilerStart)                     \
  X(cuptiRangeProfilerStop)                      \
  X(cuptiRangeProfilerDecodeData)                \
  X(cuptiRangeProfilerGetCounterDataInfo)

namespace divbench::cupti {

struct Api {
#define DIVBENCH_CUPTI_MEMBER(name) decltype(&::name) name = nullptr;
  DIVBENCH_CUPTI_FUNCTIONS(DIVBENCH_CUPTI_MEMBER)
#undef DIVBENCH_CUPTI_MEMBER
  std::string path;  // the library that was loaded
};

// Where load_api() looks, in order: $DIVBENCH_CUPTI_LIB if set (and nothing else), else the plain
// soname (LD_LIBRARY_PATH, ld.so.cache), <directory of the executable>/lib/, the toolkit divbench
// was built with, /usr/local/cuda/{lib64,extras/CUPTI/lib64}.
std::vector<std::string> library_candidates();

// Opens the first loadable candidate and resolves every function; null (and *why) when none loads or
// the one that loads lacks a function. The library stays loaded.
std::unique_ptr<Api> open_api(const std::vector<std::string>& candidates, std::string* why);

// open_api(library_candidates()), once per process.
const Api* load_api(std::string* why);

}  // namespace divbench::cupti
