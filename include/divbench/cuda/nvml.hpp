// Optional NVML readings (driver release, SM clocks; the run conditions of every point), loaded with
// dlopen so divbench runs where libnvidia-ml is absent. Read only: divbench never sets clocks, power
// or modes.
#pragma once
#include <string>

#include "divbench/core/run_conditions.hpp"

namespace divbench {

struct NvmlReading {
  bool available = false;
  std::string why_not;          // when !available
  std::string driver_release;   // "580.159.04"
  int sm_clock_mhz = 0;         // current
  int max_sm_clock_mhz = 0;
  unsigned long long clock_event_reasons = 0;  // nvmlClocksEventReason bitmask (throttle reasons)
};

// pci_bus_id as cudaDeviceGetPCIBusId gives it ("0000:00:06.0").
NvmlReading read_nvml(const std::string& pci_bus_id);

// SM and memory clocks, power, temperature and clock-event reasons now (no CUDA call). Cheap after the
// first call (the device handle is kept): read before and after every point. available = false
// with why_not when NVML is missing or does not know the device.
RunConditions read_run_conditions(const std::string& pci_bus_id);

}  // namespace divbench
