// NVML through dlopen: the provenance reading (driver release, clocks) and the run conditions read
// before and after every point. Read only: divbench never sets clocks, power or modes.
#include "divbench/cuda/nvml.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

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
  resolve(a->lib, a->compute_procs, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!a->compute_procs) resolve(a->lib, a->compute_procs, "nvmlDeviceGetComputeRunningProcesses_v2");
  resolve(a->lib, a->mps_procs, "nvmlDeviceGetMPSComputeRunningProcesses_v3");
  if (!a->mps_procs) resolve(a->lib, a->mps_procs, "nvmlDeviceGetMPSComputeRunningProcesses_v2");
  resolve(a->lib, a->graphics_procs, "nvmlDeviceGetGraphicsRunningProcesses_v3");
  if (!a->graphics_procs) resolve(a->lib, a->graphics_procs, "nvmlDeviceGetGraphicsRunningProcesses_v2");
  resolve(a->lib, a->mig_mode, "nvmlDeviceGetMigMode");
  resolve(a->lib, a->process_utilization, "nvmlDeviceGetProcessUtilization");
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

namespace {

// The PIDs one process query returns (nullopt when it fails or the entry point is missing).
std::optional<std::vector<unsigned>> query_pids(ProcessQuery q, Device dev) {
  if (!q) return std::nullopt;
  std::vector<ProcessInfo> infos(64);
  for (int tries = 0; tries < 4; ++tries) {
    unsigned n = static_cast<unsigned>(infos.size());
    const Return rc = q(dev, &n, infos.data());
    if (rc == kSuccess) {
      std::vector<unsigned> pids;
      for (unsigned i = 0; i < n && i < infos.size(); ++i)
        if (std::find(pids.begin(), pids.end(), infos[i].pid) == pids.end()) pids.push_back(infos[i].pid);
      return pids;
    }
    if (rc != kInsufficientSize) return std::nullopt;
    infos.resize(std::max<std::size_t>(n + 16, infos.size() * 2));
  }
  return std::nullopt;
}

// Every process's utilization samples newer than this process's first reading of the device, summed.
// The driver keeps a short history (a sample about every 200 ms, each naming the process(es) it saw
// run); the first reading asks for nothing older than its own time, so a co-tenant's start-up before
// divbench began is not counted as work done beside it, and each later reading asks for the samples
// newer than the last one seen.
struct ActivityLog {
  std::mutex mu;
  std::map<Device, unsigned long long> since_us;   // the first reading's time (us since the epoch, NVML's clock)
  std::map<Device, unsigned long long> last_seen;  // the newest sample seen
  std::map<Device, unsigned> total;                // samples of every process, divbench's own included
  std::map<Device, std::map<unsigned, ProcessActivity>> activity;
};

ActivityLog& activity_log() {
  static ActivityLog* log = new ActivityLog;  // never destroyed: readings may come until exit
  return *log;
}

unsigned long long now_us() {
  return static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

void read_activity(const Api& api, Device dev, GpuProcesses& p) {
  if (!api.process_utilization) {
    p.activity_why_not = "this NVML has no nvmlDeviceGetProcessUtilization";
    return;
  }
  ActivityLog& log = activity_log();
  std::lock_guard<std::mutex> lock(log.mu);
  if (!log.since_us.count(dev)) log.since_us[dev] = log.last_seen[dev] = now_us();
  unsigned long long& last = log.last_seen[dev];
  auto& seen = log.activity[dev];
  std::vector<ProcessUtilizationSample> buf(256);
  for (int tries = 0; tries < 4; ++tries) {
    unsigned n = static_cast<unsigned>(buf.size());
    const Return rc = api.process_utilization(dev, buf.data(), &n, last);
    if (rc == kSuccess) {
      unsigned long long newest = last;
      for (unsigned i = 0; i < n && i < buf.size(); ++i) {
        if (buf[i].time_stamp <= last) continue;  // the driver's history may hold older ones
        ProcessActivity& a = seen[buf[i].pid];
        ++a.samples;
        ++log.total[dev];
        a.sm_max = std::max(a.sm_max, buf[i].sm_util);
        a.mem_max = std::max(a.mem_max, buf[i].mem_util);
        newest = std::max(newest, buf[i].time_stamp);
      }
      last = newest;
      break;
    }
    if (rc == kNotFound) break;  // no sample newer than the last one seen
    if (rc != kInsufficientSize) {
      p.activity_why_not = "nvmlDeviceGetProcessUtilization returned " + std::to_string(rc);
      return;
    }
    buf.resize(std::max<std::size_t>(n + 16, buf.size() * 2));
  }
  p.activity_read = true;
  p.activity = seen;
  p.activity_since_us = log.since_us[dev];
  p.activity_samples_total = log.total[dev];
}

}  // namespace

GpuProcesses read_processes(const Api& api, Device dev, unsigned self_pid) {
  GpuProcesses p;
  p.self_pid = self_pid;
  if (const char* off = std::getenv("DIVBENCH_NVML_PROCESSES"); off && std::strcmp(off, "off") == 0) {
    p.why_not = "DIVBENCH_NVML_PROCESSES=off";
    return p;
  }
  const auto compute = query_pids(api.compute_procs, dev);
  if (!compute) {
    p.why_not = api.compute_procs ? "NVML could not list the compute processes" : "this NVML cannot list processes";
    return p;
  }
  p.read = true;
  p.compute = *compute;
  if (const auto mps = query_pids(api.mps_procs, dev)) p.mps = *mps;
  if (const auto g = query_pids(api.graphics_procs, dev)) p.graphics = *g;
  unsigned current = 0, pending = 0;
  if (api.mig_mode && api.mig_mode(dev, &current, &pending) == kSuccess) p.mig_mode = static_cast<int>(current);
  read_activity(api, dev, p);
  return p;
}

RunConditions read_conditions(const Api& api, const std::string& pci_bus_id, unsigned self_pid) {
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
  c.processes = read_processes(api, dev, self_pid);
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
  return nvml::read_conditions(nvml::process_nvml(), pci_bus_id, static_cast<unsigned>(getpid()));
}

}  // namespace divbench
