// Running a flip-test cubin (original or patched) through the CUDA driver API.
//
// The kernel must have the flip-test signature of kernels/flip/flip_test.cu:
//   extern "C" __global__ void F(const int* in, int* out, int* exch, long long* cycles, int spin_cap)
// launched as one block of `threads` threads. Trials run in a child process with its own CUDA
// context: a patched kernel that faults or hangs is reported ("fault" / "timeout") and cannot poison
// the next trial, which then runs in a fresh child and context. Bounded twice: the kernel's own wait
// polls at most `spin_cap` times, and a launch may run `timeout_s` before the trial is abandoned.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/core/result.hpp"

namespace divbench::cubin {

struct DriverApi;  // src/cubin/driver_api.hpp: the driver functions (dlopen'ed, or a test double)

struct RunConfig {
  std::string function = "flip_test";
  int device = 0;
  int threads = 32;          // one block; a multiple of 32, at most 1024
  int reps = 11;             // launches; cycles are the median over them, outputs must agree
  int spin_cap = 1 << 20;    // device-side bound of the partner wait
  double timeout_s = 20.0;   // host-side bound per launch; the child reports "timeout"
  double startup_s = 60.0;   // extra time the child process may take (driver start-up) before it is killed
  // The device block of every trial and report: the one device-info source (divbench::query_device,
  // CUDA runtime, src/cuda/device_info.cpp), called in the trial process, once per process. The flip
  // command sets it; without it a trial records only the device index (tests of the runner).
  std::function<DeviceRecord(int device)> device_query;
};

// UsageError for a run configuration outside its ranges (--threads, --reps, --spin-cap, --timeout).
void check_run_config(const RunConfig& cfg);

// Fixed input of the test kernel (deterministic, never all-equal), and the host model of its
// outputs: out, and per thread the partner values the shuffle (exch field 1) and the shared-memory
// exchange (field 2) must deliver. Field 0, __activemask() right after the reconvergence point, is
// NOT modelled: on the H200 (sm_90, nvcc 13.0) the unpatched kernel reads 0x55555555 in even lanes
// and 0xaaaaaaaa in odd lanes there, although the SASS has BSYNC B0 right before the VOTE.ANY —
// __activemask() reports the lanes executing together, which ITS need not have merged yet. It is
// compared between original and patched cubins, never against a model.
std::vector<int> flip_test_input(int threads);
void flip_test_expected(const std::vector<int>& in, std::vector<int>& out, std::vector<int>& exch_12);

struct TrialResult {
  std::string status;   // "completed" | "fault" | "timeout" | "load_error" | "launch_error" | "crashed" | "no_device"
  std::string error;    // driver error text when not completed
  bool completed() const { return status == "completed"; }
  std::vector<int> out;                 // out[threads] of the last launch
  std::vector<int> exch;                // exch[4*threads] of the last launch
  std::vector<long long> cycles_warp0;  // per launch
  bool outputs_stable = true;           // every launch wrote the same out/exch (polls excluded)
  int max_polls = 0;                    // largest poll count of any thread (forward progress)
  double wall_ms = 0;
  DeviceRecord device;                  // RunConfig::device_query in the trial process
};

json to_json(const TrialResult& r);
TrialResult trial_from_json(const json& j);

// Runs one trial in this process (used by the child; exposed for tests of the argument checks).
// Throws NoDeviceError when there is no driver or no device.
// `api` = nullptr: the real driver (libcuda.so.1); tests pass a double.
TrialResult run_trial_here(const std::vector<std::uint8_t>& cubin, const RunConfig& cfg, const DriverApi* api = nullptr);

// Runs trials in forked children with hard timeouts; never throws for a device-side failure (the
// status says what happened). One child runs the trials in order in one context until a trial does
// not complete (fault, timeout, crash); the next trial then starts a fresh child, i.e. a fresh
// context. `on_result(i, r)` is called as each result arrives (progress). Throws NoDeviceError when
// the child found no driver/device.
std::vector<TrialResult> run_trials_isolated(
    const std::vector<std::vector<std::uint8_t>>& cubins, const RunConfig& cfg, const DriverApi* api = nullptr,
    const std::function<void(std::size_t, const TrialResult&)>& on_result = {});
TrialResult run_trial_isolated(const std::vector<std::uint8_t>& cubin, const RunConfig& cfg,
                               const DriverApi* api = nullptr);

// Checks, in a child process (the parent never initializes the driver, so later trial processes can),
// that the driver loads and device `cfg.device` exists, and returns its DeviceRecord. Throws
// NoDeviceError (no driver, no GPU) or UsageError (no such --device). Called before anything is
// written, so a run that cannot happen leaves no output behind.
DeviceRecord probe_device_isolated(const RunConfig& cfg, const DriverApi* api = nullptr);

// Comparison of a trial with the baseline (the unpatched cubin's trial).
struct Comparison {
  bool completed = false;
  bool output_equal = false;      // out[] identical
  bool exchange_equal = false;    // exch fields 0..2 (active mask, shuffle, shared exchange) identical
  bool matches_model = false;     // out/exch equal the host model of a converged warp
  double cycles_median = 0;
  double cycles_ratio = 0;        // median / baseline median
  json to_json() const;
};
Comparison compare(const TrialResult& baseline, const TrialResult& t, const std::vector<int>& input);

}  // namespace divbench::cubin
