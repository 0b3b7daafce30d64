#include "host_config.hpp"

#include <algorithm>

namespace divbench::cupti {

std::string describe_result(const Api* api, CUptiResult r, const char* what) {
  const char* text = nullptr;
  if (api && api->cuptiGetResultString) api->cuptiGetResultString(r, &text);
  std::string s = std::string(what) + ": " + (text ? text : "CUPTI error") + " (" + std::to_string(r) + ")";
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    s += "; GPU performance counters are restricted to admin users on this machine (NVreg_RestrictProfilingToAdminUsers)";
  return s;
}

void HostConfig::check(CUptiResult r, const char* what) const {
  if (r != CUPTI_SUCCESS) throw Unavailable(describe_result(&api_, r, what));
}

HostConfig::HostConfig(const Api& api, const std::string& chip, const std::vector<std::uint8_t>& availability)
    : api_(api) {
  auto host = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.c_str();
  host.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  check(api_.cuptiProfilerHostInitialize(&host), "cuptiProfilerHostInitialize");
  host_ = host.pHostObject;
}

HostConfig::~HostConfig() {
  if (host_) {
    auto d = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
    d.pHostObject = host_;
    api_.cuptiProfilerHostDeinitialize(&d);
  }
}

bool HostConfig::offers(const std::string& metric) {
  if (base_.empty())
    for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT; ++t) {
      auto b = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetBaseMetrics_Params);
      b.pHostObject = host_;
      b.metricType = static_cast<CUpti_MetricType>(t);
      check(api_.cuptiProfilerHostGetBaseMetrics(&b), "cuptiProfilerHostGetBaseMetrics");
      for (std::size_t i = 0; i < b.numMetrics; ++i) base_.emplace(b.ppMetricNames[i], b.metricType);
    }
  // A metric to collect names a rollup or sub-metric: "smsp__inst_executed" alone is refused by
  // cuptiProfilerHostConfigAddMetrics.
  const auto dot = metric.find('.');
  if (dot == std::string::npos) return false;
  const auto it = base_.find(metric.substr(0, dot));
  if (it == base_.end()) return false;
  auto s = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_GetSubMetrics_Params);
  s.pHostObject = host_;
  s.metricType = it->second;
  s.pMetricName = it->first.c_str();
  check(api_.cuptiProfilerHostGetSubMetrics(&s), "cuptiProfilerHostGetSubMetrics");
  const std::string suffix = metric.substr(dot);  // ".sum", ".ratio", ".pct"
  for (std::size_t i = 0; i < s.numOfSubmetrics; ++i)
    if (suffix == s.ppSubMetrics[i]) return true;
  return false;
}

void HostConfig::configure(const std::vector<std::string>& metrics) {
  if (metrics.empty()) throw Unavailable("no metrics requested");
  if (!names_.empty()) throw Unavailable("HostConfig::configure called twice");
  for (const auto& m : metrics)
    if (!offers(m)) throw Unavailable("the chip does not offer metric " + m);
  names_ = metrics;
  for (const auto& n : names_) cnames_.push_back(n.c_str());

  auto add = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
  add.pHostObject = host_;
  add.ppMetricNames = cnames_.data();
  add.numMetrics = cnames_.size();
  check(api_.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");

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

std::vector<double> HostConfig::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range) const {
  std::vector<double> values(cnames_.size(), 0.0);
  auto ev = DIVBENCH_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
  ev.pHostObject = host_;
  ev.pCounterDataImage = counter_data.data();
  ev.counterDataImageSize = counter_data.size();
  ev.rangeIndex = range;
  ev.ppMetricNames = const_cast<const char**>(cnames_.data());
  ev.numMetrics = cnames_.size();
  ev.pMetricValues = values.data();
  check(api_.cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
  return values;
}

}  // namespace divbench::cupti
