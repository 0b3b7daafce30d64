// NVML through dlopen: the provenance reading (driver release, clocks) and the run conditions read
// before and after every point. Read only: divbench never sets clocks, power or modes.
#include "divbench/cuda/nvml.hpp"

#include <dlfcn.h>

#include "nvml_api.hpp"

namespace divbench {
namespace nvml {
namespace {

template <class F>
void resolve(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

std::unique_ptr<Api> open_nvml(const std::string& path) {
  auto a = std::make_unique<Api>();
  a->path = path;
  a->lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!a->lib) {
    a->error = path + " not found";
    return a;
  }
  resolve(a->lib, a->init, "nvmlInit_v2");
  resolve(a->lib, a->driver_version, "nvmlSystemGetDriverVersion");
  resolve(a->lib, a->by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  resolve(a->lib, a->clock, "nvmlDeviceGetClockInfo");
  resolve(a->lib, a->max_clock, "nvmlDeviceGetMaxClockInfo");
  resolve(a->lib, a->reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!a->reasons) resolve(a->lib, a->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");  // before 535
  resolve(a->lib, a->power_mw, "nvmlDeviceGetPowerUsage");
  resolve(a->lib, a->temperature, "nvmlDeviceGetTemperature");
  if (!a->init || !a->driver_version || !a->by_pci || !a->clock || !a->max_clock) {
    a->error = path + " lacks an entry point divbench uses";
    return a;
  }
  if (a->init() != kSuccess) a->error = "nvmlInit failed";
  return a;
}

const Api& process_nvml() {
  // Never unloaded: NVML must stay usable until the process ends.
  static const Api* api = open_nvml("libnvidia-ml.so.1").release();
  return *api;
}

Device Api::device(const std::string& pci_bus_id, std::string* why) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (const auto it = handles_.find(pci_bus_id); it != handles_.end()) return it->second;
  Device dev = nullptr;
  if (by_pci(pci_bus_id.c_str(), &dev) != kSuccess || !dev) {
    if (why) *why = "NVML does not know PCI device " + pci_bus_id;
    return nullptr;
  }
  handles_[pci_bus_id] = dev;
  return dev;
}

RunConditions read_conditions(const Api& api, const std::string& pci_bus_id) {
  RunConditions c;
  if (!api.ok()) {
    c.why_not = api.error;
    return c;
  }
  const Device dev = api.device(pci_bus_id, &c.why_not);
  if (!dev) return c;
  unsigned v = 0;
  if (api.clock(dev, kClockSm, &v) == kSuccess) c.sm_clock_mhz = static_cast<int>(v);
  if (api.clock(dev, kClockMem, &v) == kSuccess) c.mem_clock_mhz = static_cast<int>(v);
  if (api.power_mw && api.power_mw(dev, &v) == kSuccess) c.power_w = v / 1000.0;
  if (api.temperature && api.temperature(dev, kTemperatureGpu, &v) == kSuccess) c.temperature_c = static_cast<int>(v);
  unsigned long long reasons = 0;
  if (api.reasons && api.reasons(dev, &reasons) == kSuccess) c.reasons = reasons;
  c.available = true;
  return c;
}

}  // namespace nvml

NvmlReading read_nvml(const std::string& pci_bus_id) {
  NvmlReading r;
  const nvml::Api& n = nvml::process_nvml();
  if (!n.ok()) {
    r.why_not = n.error;
    return r;
  }
  char buf[96] = {0};
  if (n.driver_version(buf, sizeof buf) == nvml::kSuccess) r.driver_release = buf;
  const nvml::Device dev = n.device(pci_bus_id, &r.why_not);
  if (!dev) return r;
  unsigned v = 0;
  if (n.clock(dev, nvml::kClockSm, &v) == nvml::kSuccess) r.sm_clock_mhz = static_cast<int>(v);
  if (n.max_clock(dev, nvml::kClockSm, &v) == nvml::kSuccess) r.max_sm_clock_mhz = static_cast<int>(v);
  unsigned long long reasons = 0;
  if (n.reasons && n.reasons(dev, &reasons) == nvml::kSuccess) r.clock_event_reasons = reasons;
  r.available = true;
  return r;
}

RunConditions read_run_conditions(const std::string& pci_bus_id) {
  return nvml::read_conditions(nvml::process_nvml(), pci_bus_id);
}

}  // namespace divbench
