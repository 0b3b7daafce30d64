// Optional NVML readings (driver release, SM clocks), loaded with dlopen so divbench runs where
// libnvidia-ml is absent. Read only: divbench never sets clocks, power or modes.
#pragma once
#include <string>

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

}  // namespace divbench
