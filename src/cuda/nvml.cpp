#include "divbench/cuda/nvml.hpp"

#include <dlfcn.h>

namespace divbench {
namespace {

// The few NVML entry points we use, declared here (no nvml.h needed at build time).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

struct Nvml {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  std::string error;

  Nvml() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = "libnvidia-ml.so.1 not found";
      return;
    }
    init = reinterpret_cast<decltype(init)>(dlsym(lib, "nvmlInit_v2"));
    driver_version = reinterpret_cast<decltype(driver_version)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    by_pci = reinterpret_cast<decltype(by_pci)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<decltype(clock)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    max_clock = reinterpret_cast<decltype(max_clock)>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
    reasons = reinterpret_cast<decltype(reasons)>(dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!init || !driver_version || !by_pci || !clock || !max_clock) {
      error = "libnvidia-ml.so.1 lacks an entry point divbench uses";
      return;
    }
    if (init() != kNvmlSuccess) error = "nvmlInit failed";
  }
  bool ok() const { return error.empty(); }
};

const Nvml& nvml() {
  static const Nvml n;
  return n;
}

}  // namespace

NvmlReading read_nvml(const std::string& pci_bus_id) {
  NvmlReading r;
  const Nvml& n = nvml();
  if (!n.ok()) {
    r.why_not = n.error;
    return r;
  }
  char buf[96] = {0};
  if (n.driver_version(buf, sizeof buf) == kNvmlSuccess) r.driver_release = buf;
  nvmlDevice_t dev = nullptr;
  if (n.by_pci(pci_bus_id.c_str(), &dev) != kNvmlSuccess) {
    r.why_not = "NVML does not know PCI device " + pci_bus_id;
    return r;
  }
  unsigned v = 0;
  if (n.clock(dev, kNvmlClockSm, &v) == kNvmlSuccess) r.sm_clock_mhz = static_cast<int>(v);
  if (n.max_clock(dev, kNvmlClockSm, &v) == kNvmlSuccess) r.max_sm_clock_mhz = static_cast<int>(v);
  unsigned long long reasons = 0;
  if (n.reasons && n.reasons(dev, &reasons) == kNvmlSuccess) r.clock_event_reasons = reasons;
  r.available = true;
  return r;
}

}  // namespace divbench
