// The host half of CUPTI profiling (cupti_profiler_host.h): which metrics a chip offers, the config
// image that schedules them into passes, and the evaluation of decoded counter data into values. It
// needs a chip name but no GPU ("GH100" works on any machine with libcupti), so the metric list and
// its pass count are checked in CPU tests.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "cupti_api.hpp"

namespace divbench::cupti {

// Profiling is not possible here (no permission, unsupported device, unknown metric, CUPTI error).
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "what: CUPTI_ERROR_X (text)", with a hint for CUPTI_ERROR_INSUFFICIENT_PRIVILEGES.
std::string describe_result(const Api* api, CUptiResult r, const char* what);

class HostConfig {
 public:
  // A range-profiler host object for `chip` ("GH100"); `availability` is the device's counter
  // availability image (empty: none, as for a chip without a device). Throws Unavailable.
  HostConfig(const Api& api, const std::string& chip, const std::vector<std::uint8_t>& availability);
  ~HostConfig();
  HostConfig(const HostConfig&) = delete;
  HostConfig& operator=(const HostConfig&) = delete;

  // Whether the chip offers `metric` ("base.rollup" or "base.submetric", e.g. "smsp__inst_executed.sum";
  // a bare base name is not a metric to collect), from the host API's enumeration of base metrics and
  // their sub-metrics.
  bool offers(const std::string& metric);

  // Schedules `metrics` (every one must be offered; Unavailable otherwise) into a config image.
  void configure(const std::vector<std::string>& metrics);
  const std::vector<std::uint8_t>& config_image() const { return config_; }
  std::size_t passes() const { return passes_; }
  const std::vector<std::string>& metrics() const { return names_; }

  // The configured metrics' values for one range of a decoded counter-data image, in metrics() order.
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range) const;

 private:
  void check(CUptiResult r, const char* what) const;

  const Api& api_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::map<std::string, CUpti_MetricType> base_;  // base metric -> its type (enumerated once)
  std::vector<std::string> names_;
  std::vector<const char*> cnames_;
  std::vector<std::uint8_t> config_;
  std::size_t passes_ = 0;
};

// A zeroed CUPTI parameter struct with its structSize set.
template <class T>
T params(std::size_t size) {
  T p{};
  p.structSize = size;
  return p;
}
#define DIVBENCH_CUPTI_PARAMS(T) ::divbench::cupti::params<T>(T##_STRUCT_SIZE)

}  // namespace divbench::cupti
