// Run conditions of a point: NVML's view of the GPU (SM and memory clocks, power, temperature and the
// clock-event, formerly "throttle", reasons) read right before and right after the point's launches.
// Plain data and pure logic here, tested without a GPU; src/cuda/nvml.cpp reads them.
//
// Which reasons count as throttling (they set the point's `throttled`): the ones that lower the clock
// while the GPU works — sw_power_cap, hw_slowdown, sw_thermal_slowdown, hw_thermal_slowdown,
// hw_power_brake_slowdown. Not counted, only recorded: gpu_idle (nothing was running at the moment of
// the reading, as between two points), and the configurations applications_clocks_setting,
// sync_boost and display_clock_setting (a fixed cap set by an administrator or a sync-boost group,
// the same for every point; the measured clock in each point shows its effect).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/core/result.hpp"

namespace divbench {

// The processes holding a context on the device at a reading, as NVML lists them. divbench's own
// process is among them; others() tells it apart: by PID where NVML's PIDs are divbench's own
// namespace's, else (a container, whose PIDs NVML gives in the host's namespace) by assuming one of
// the listed processes is divbench, so only the count of the others is known. As an MPS client
// divbench's co-tenants are the other MPS clients (the compute list then holds the MPS server).
// Graphics processes are recorded, not counted: a desktop's display server is not a compute co-tenant.
// What NVML's per-process utilization samples (nvmlDeviceGetProcessUtilization) said about one
// process since divbench's first reading: how many samples, the highest SM and memory utilization (%).
struct ProcessActivity {
  unsigned samples = 0;
  unsigned sm_max = 0;
  unsigned mem_max = 0;
};

struct GpuProcesses {
  bool read = false;
  std::string why_not;  // when !read
  unsigned self_pid = 0;
  std::vector<unsigned> compute, mps, graphics;
  std::optional<int> mig_mode;  // 1 = MIG enabled
  bool activity_read = false;                    // the utilization samples were read
  std::string activity_why_not;                  // when !activity_read
  std::map<unsigned, ProcessActivity> activity;  // pid -> its samples since divbench's first reading
  unsigned long long activity_since_us = 0;      // that first reading (us since the epoch, NVML's clock)
  unsigned activity_samples_total = 0;           // every process's samples since then, divbench's own included
};

struct OtherProcesses {
  bool self_seen = false;      // divbench's PID was among those listed
  std::vector<unsigned> pids;  // the others' PIDs (known only when self_seen)
  int count = 0;               // how many others
  bool mps_client = false;     // divbench runs as an MPS client
};
OtherProcesses other_processes(const GpuProcesses& p);

struct RunConditions {
  bool available = false;
  std::string why_not;                   // when !available
  std::optional<int> sm_clock_mhz;       // each field empty when NVML could not read it
  std::optional<int> mem_clock_mhz;
  std::optional<double> power_w;
  std::optional<int> temperature_c;
  std::optional<std::uint64_t> reasons;  // nvmlClocksEventReason bitmask
  GpuProcesses processes;
};

// {"read": true, "self_seen", "others": [PIDs], "others_count", "mps_client", "compute": [PIDs],
//  "graphics": [PIDs], "mig_mode"} or {"read": false, "reason": "..."}.
json to_json(const GpuProcesses& p);

// One clock-event reason bit of NVML (nvml.h's nvmlClocksEventReason* / nvmlClocksThrottleReason*).
struct ClockEventReason {
  std::uint64_t bit;
  const char* key;  // the name divbench writes ("hw_slowdown")
  bool throttle;    // counts as throttling (see the top of this file)
};
const std::vector<ClockEventReason>& clock_event_reasons();

// Names of the set bits, in bit order; a bit NVML does not document is written "unknown_0x...".
std::vector<std::string> reason_names(std::uint64_t mask);

// The bits of `mask` that count as throttling.
std::uint64_t throttle_bits(std::uint64_t mask);

// One reading: {"sm_clock_mhz", "mem_clock_mhz", "power_w", "temperature_c", "reasons_mask"} (null
// for what could not be read).
json to_json(const RunConditions& c);

// Writes point["conditions"]: {"available": true, "before": {...}, "after": {...}, "reasons": [the
// reasons active in either reading], "throttle_reasons": [those of them that count as throttling],
// "processes": {"before": to_json(GpuProcesses), "after": ...}};
// or {"available": false, "reason": "..."} when NVML could not be read. Returns whether a throttling
// reason was active (the caller sets the point's `throttled`).
bool record_conditions(json& point, const RunConditions& before, const RunConditions& after);

// Summary counts over the record's points (timed and raw) that carry "conditions":
// points_with_conditions, points_with_throttle_reasons, throttle_reasons {reason: points},
// clock_event_reasons {reason: points, every reason, throttling or not}.
void add_conditions_summary(ResultRecord& r);

}  // namespace divbench
