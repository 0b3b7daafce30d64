// Kernel time saved if a divergence were removed, at the occupancy the kernel ran at: the machine model
// of `divbench attribute` (docs/attribute.md "Time saved"). Frozen before any generated-corpus run judges
// it (scripts/gpu/53-attribute-generated.sh); a miss there is reported, never tuned on.
//
// The SM as a server of resident warps (Little's law): over a kernel, an SM's time is the warp-cycles its
// warps spend resident divided by how many are resident at once, R. A warp's residency at an instruction
// is one of three kinds, which PC sampling of the same program measures per pc (stall reasons):
//   issue       the warp issued (reason `selected`)
//   contention  it was ready but a shared resource was taken by other warps: the issue slot
//               (`not_selected`, `dispatch_stall`) or a pipe or queue (`math_pipe_throttle`,
//               `mio_throttle`, `lg_throttle`, `tex_throttle`)
//   wait        it waited on itself: a dependency, memory, a barrier, the instruction cache, ...
// Without samples, the issue model prices a pass: 1 issue cycle, cycles(i) - 1 of wait, no contention.
//
// Removing a divergence leaves the same thread work done in fewer warp passes: in a divergent region the
// ideal passes of instruction i are T_i / A (its thread executions at the ideal lanes A of the branch: the
// lanes that reached it, or entered the loop), so each pass kind scales by f_i = ideal / W_i there:
//   issue' and wait'  per pc, by f_i; a wait on a gather also by the memory rule's ratio (a pass at more
//                     lanes waits longer: model/memory_cost.hpp), on its measured memory part
//   contention'       the kernel's contention scales with its issue demand: by sum W'_i / sum W_i
//   SM cycles         C = max( sum_i W_i / (4 N),  (issue + wait + contention) / (R N) )
//                     the issue bound (four schedulers per SM, one warp instruction a cycle each) or
//                     the residency over the resident warps; N SMs
//   time saved share  1 - C' / C, applied to the kernel's measured time
// With samples the residency term equals the sampled SM time (samples x period / N), whatever R is.
// Idle lanes in warp-uniform loops (a `while (__any_sync(...))` loop's predicated body) are the same loss:
// a guarded instruction of a loop that no divergent branch's region holds has ideal passes P_i / (T_i /
// W_i) (its predicated-on threads at the lanes it ran with).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "divbench/attribute/attribution.hpp"

namespace divbench::attribute {

// What one sample of a stall reason says of the warp (the CUPTI metric name, e.g.
// "smsp__pcsamp_warps_issue_stalled_not_selected"). `Ignored`: the "_not_issued" twins (a subset of the
// same samples counted again), the sample and dropped counters.
enum class PassKind { Issue, Contention, Wait, Ignored };
PassKind pass_kind(const std::string& reason);

// Warp-cycles at one instruction over the run, by kind.
struct PassTime {
  double issue = 0, contention = 0, wait = 0;
  double memory_wait = 0;  // the part of `wait` that is a measured memory wait (the memory rule scales it)
  double total() const { return issue + contention + wait; }
};

// The sampled time of one function: pc -> samples, pc -> reason index -> samples, the reason names, the
// period, and the warp-cycles one sample stands for (period x resident warps per SM).
struct SampledTime {
  const std::map<std::uint64_t, std::uint64_t>* samples = nullptr;
  const std::map<std::uint64_t, std::map<std::size_t, std::uint64_t>>* stalls = nullptr;
  const std::vector<std::string>* reasons = nullptr;
  std::uint64_t period_cycles = 0;
};

// Per instruction of `f` (parallel to f.instructions): measured from samples when `sampled` has them
// (a pc's samples split by its reasons; samples without reasons count as wait), else the issue model's.
std::vector<PassTime> pass_times(const sass::Function& f, const FunctionCounts& counts,
                                 const std::vector<model::IssueCost>& costs, const SampledTime* sampled,
                                 double resident_warps_per_sm);

// The machine: SMs, resident warps per SM while the kernel ran.
struct Machine {
  double sms = 1;
  double resident_warps_per_sm = 1;
  int schedulers_per_sm = 4;
};

// The two bounds of an SM's cycles (summed over the kernel's launches) with each instruction's passes
// scaled by `scale` (1 = as measured): the issue bound and the residency over the resident warps.
struct SmBounds {
  double issue_bound = 0, residency = 0;
  double cycles() const { return issue_bound > residency ? issue_bound : residency; }
};
SmBounds sm_bounds(const std::vector<PassTime>& t, const FunctionCounts& counts, const sass::Function& f,
                   const std::vector<double>& scale, const std::vector<double>& memory_ratio, const Machine& m);
// Their larger: the unit every prediction is made of.
double sm_cycles(const std::vector<PassTime>& t, const FunctionCounts& counts, const sass::Function& f,
                 const std::vector<double>& scale, const std::vector<double>& memory_ratio, const Machine& m);

// Per instruction, the fraction of its passes left if `b`'s divergence were removed (1 outside its region;
// the smaller where two regions hold it), and the memory rule's ratio for a pass at the ideal lanes.
void scale_region(const BranchCost& b, const FunctionCounts& counts, const sass::Function& f, std::vector<double>& scale,
                  std::vector<double>& memory_ratio, const std::vector<model::IssueCost>& costs);
// The same for the idle lanes of warp-uniform loops: `loop_of` gives each instruction's innermost loop
// (-1 outside loops); loops whose instructions a divergent branch's region holds are left alone.
// Returns the instructions scaled.
std::size_t scale_predicated_loops(const KernelAttribution& k, const sass::Function& f, const std::vector<int>& loop_of,
                                   std::vector<double>& scale);

struct TimeSaved {
  double share = 0;                 // of the kernel's time
  std::optional<double> seconds;    // share x the measured time, when there is one
};

struct KernelTime {
  double sm_cycles = 0;                      // the model's, as run
  std::optional<double> measured_sm_cycles;  // sampled: samples x period / N (summed over launches)
  std::optional<double> measured_s;          // measured_sm_cycles / the SM clock
  bool from_samples = false;
  double issue_bound_cycles = 0, residency_cycles = 0;
  double issue = 0, contention = 0, wait = 0;  // warp-cycles by kind, over the kernel
  TimeSaved kernel;                          // every counted divergence and the predicated loops removed
  TimeSaved predicated;                      // the predicated loops alone
  std::size_t predicated_instructions = 0;
  std::vector<std::optional<TimeSaved>> branches;  // parallel to KernelAttribution::branches (counted ones)
};

// The prediction for one attributed kernel. `loop_of`: innermost loop per instruction (-1 outside).
// `clock_hz`: the SM clock (0: no seconds).
KernelTime predict_time(const KernelAttribution& k, const sass::Function& f, const std::vector<model::IssueCost>& costs,
                        const SampledTime* sampled, const std::vector<int>& loop_of, const Machine& m, double clock_hz);

json to_json(const KernelTime& t);
// Writes the prediction into the attribution (its document and report carry it from there): the kernel's
// share and seconds and the resident warps it was predicted at, each counted branch's (a loop's: its
// representative's).
void apply_time_saved(KernelAttribution& k, const KernelTime& t, const Machine& m);

}  // namespace divbench::attribute
