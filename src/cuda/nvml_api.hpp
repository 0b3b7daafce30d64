// The NVML entry points divbench uses, resolved with dlopen (no nvml.h and no libnvidia-ml at build
// time; a machine without the driver gets a reason, not a loader error). Internal to divbench_cuda;
// tests open a stand-in library through open_nvml().
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "divbench/core/run_conditions.hpp"

namespace divbench::nvml {

using Return = int;  // nvmlReturn_t
using Device = struct nvmlDevice_st*;
inline constexpr Return kSuccess = 0;
inline constexpr int kClockSm = 1;   // NVML_CLOCK_SM
inline constexpr int kClockMem = 2;  // NVML_CLOCK_MEM
inline constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
inline constexpr Return kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

// nvmlProcessInfo_t of the _v2/_v3 process queries (the same layout in both).
struct ProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};
using ProcessQuery = Return (*)(Device, unsigned*, ProcessInfo*);
inline constexpr Return kNotFound = 6;  // NVML_ERROR_NOT_FOUND (no sample newer than the timestamp)

// nvmlProcessUtilizationSample_t.
struct ProcessUtilizationSample {
  unsigned pid;
  unsigned long long time_stamp;  // us
  unsigned sm_util, mem_util, enc_util, dec_util;  // %
};
using UtilizationQuery = Return (*)(Device, ProcessUtilizationSample*, unsigned*, unsigned long long);

struct Api {
  void* lib = nullptr;
  std::string path;
  std::string error;  // empty when usable
  // Required (init fails without them).
  Return (*init)() = nullptr;
  Return (*driver_version)(char*, unsigned) = nullptr;
  Return (*by_pci)(const char*, Device*) = nullptr;
  Return (*clock)(Device, int, unsigned*) = nullptr;
  Return (*max_clock)(Device, int, unsigned*) = nullptr;
  // Optional: a reading without them has the field empty.
  Return (*reasons)(Device, unsigned long long*) = nullptr;  // ...ClocksEventReasons, else ...ThrottleReasons
  Return (*power_mw)(Device, unsigned*) = nullptr;
  Return (*temperature)(Device, int, unsigned*) = nullptr;
  // Processes with a context on the device (co-tenants): _v3, else _v2; MIG mode.
  ProcessQuery compute_procs = nullptr;
  ProcessQuery mps_procs = nullptr;
  ProcessQuery graphics_procs = nullptr;
  Return (*mig_mode)(Device, unsigned*, unsigned*) = nullptr;
  UtilizationQuery process_utilization = nullptr;  // per-process SM/memory utilization samples

  bool ok() const { return error.empty(); }
  // The handle of the PCI device, looked up once per bus id (null and *why when NVML does not know it).
  Device device(const std::string& pci_bus_id, std::string* why) const;

 private:
  mutable std::mutex mu_;
  mutable std::map<std::string, Device> handles_;
};

// Loads `path` (dlopen), resolves the entry points and calls nvmlInit; Api::error says what failed.
std::unique_ptr<Api> open_nvml(const std::string& path);

// libnvidia-ml.so.1, once per process.
const Api& process_nvml();

// Clocks, power, temperature, clock-event reasons and the processes on the device now. `self_pid` is
// divbench's own process (getpid()), told apart from the others.
RunConditions read_conditions(const Api& api, const std::string& pci_bus_id, unsigned self_pid = 0);

// The processes on the device (compute, MPS clients, graphics) and its MIG mode.
GpuProcesses read_processes(const Api& api, Device dev, unsigned self_pid);

}  // namespace divbench::nvml
