// Result records: the one record type every dynamic experiment fills ("divbench.result/1").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/fit.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/provenance.hpp"
#include "divbench/core/stats.hpp"

namespace divbench {

inline constexpr const char* kResultSchema = "divbench.result/1";

// Filled by the one device-info source (src/cuda/device_info.cpp); plain data here so host-only
// code and tests never need the CUDA runtime.
struct DeviceRecord {
  int index = 0;
  std::string name;
  std::string cc;               // "9.0"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;         // the device's rated maximum SM clock
  int mem_clock_khz = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 32;
  std::string driver;           // CUDA driver API version the driver supports, "13.0"
  std::string runtime;          // CUDA runtime linked in, "13.0"
  std::string pci_bus_id;
  std::string uuid;
  double measured_sm_clock_mhz = 0;  // clock64 vs %globaltimer over a calibration launch
  std::string driver_release;   // e.g. "580.159.04" (NVML; empty when NVML is unavailable)
  int max_sm_clock_mhz = 0;     // NVML max SM clock (0 when unavailable)
  int sm_clock_now_mhz = 0;     // NVML current SM clock when queried (idle: low)
};

// One timed point of a sweep (k is the swept variable, named by `axis` in config).
struct TimedPoint {
  double k = 0;
  json axes = json::object();  // the point's coordinates on its experiment's declared axes ({"k": 7, ...})
  Summary cycles;            // per-launch region cycles
  std::size_t launches = 0;  // timed launches (warm-up excluded)
  bool throttled = false;    // the SM clock moved during the point
  double clock_mhz = 0;      // effective SM clock over the point (cycles / globaltimer ns)
  double clock_spread = 0;   // (max-min)/median of the per-launch clock
  double clock_before_mhz = 0;  // calibration launch right before the point's launches
  double clock_after_mhz = 0;   // ... and right after them
  double wall_ms = 0;        // host wall time of the point's launches, warm-up included
  double gpu_ms = 0;         // device (CUDA-event) time of the same launches
  double region_ms = 0;      // region time the GPU spent: per launch the longest sample, summed, / clock
  // Raw samples, launch-major (warm-up excluded): each warp region's cycles and the SM it ran on.
  // Written as "samples": {"cycles": [...], "smid": [...]} unless the run keeps no samples.
  std::vector<std::uint64_t> sample_cycles;
  std::vector<std::uint32_t> sample_smid;
  json extra = json::object();  // experiment-specific fields of the point
};

struct ResultRecord {
  std::string experiment;
  DeviceRecord device;
  Provenance provenance;
  json config = json::object();
  std::vector<TimedPoint> points;
  json points_extra = json::array();  // for probes whose points are not TimedPoints
  bool has_fit = false;
  LinearFit fit;
  json fit_placements = json::array();  // per code placement: {placement, s, c, r2, ...} (written as fit.placements)
  json summary = json::object();
  json timing = json::object();       // wall vs region accounting for the whole run
  json harness = json::object();      // the Google Benchmark build that drove the run
  json quality = json();              // the verdict (core/disturbance.hpp); written when set
};

json to_json(const DeviceRecord& d);
json to_json(const TimedPoint& p);
json to_json(const LinearFit& f);
json to_json(const ResultRecord& r);

DeviceRecord device_from_json(const json& j);

}  // namespace divbench
