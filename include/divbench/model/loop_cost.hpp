// The loop-cost model (docs/sass.md, "Kernel facts"): cycles per iteration a of a work body's inner loop, from
// its SASS alone, for one warp running alone on its scheduler.
//
// One iteration is issued in order, as the control words say:
//   * after instruction i the next one issues stall(i) cycles later (the compiler's stall field
//     covers every fixed-latency dependence);
//   * a jump to a non-consecutive address (the taken back branch) adds B cycles          [constant 1]
//   * an instruction whose wait mask names a scoreboard waits until that scoreboard is released:
//     W cycles after the issue of the variable-latency instruction that set it (MUFU, conversions,
//     ... any scoreboard producer that is not a memory access)                           [constant 2]
//     A read-barrier scoreboard is released at its producer's issue (operands read; not modelled).
// a is the steady-state period of that schedule (simulated over many iterations, so waits that
// cross the back edge count). Two constants, shared by every body, fitted per architecture to
// measured a values (least squares of the relative error). Not covered, and said so:
//   * waits on a memory access (LDG, LDS, LD, ATOM, TEX, ...): the memory latency is not a model
//     constant; a is then reported as a lower bound (that wait taken as zero);
//   * loops with more than one path per iteration, or without decoded control words.
// Where the constants come from is recorded with them ("divbench.loop_cost/1").
#pragma once
#include "divbench/core/expected.hpp"
#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/model/memory_cost.hpp"

namespace divbench::model {

// The loop facts the model reads are model/kernel_facts.hpp's LoopFacts (same namespace).

inline constexpr const char* kLoopCostSchema = "divbench.loop_cost/1";

struct CostConstants {
  int sm = 0;                              // architecture fitted on
  std::optional<double> taken_branch;      // B, cycles; nullopt = not fitted
  std::optional<double> variable_latency;  // W, cycles; nullopt = not fitted (no measured body needs it)
  // D, cycles per extra path of a divergent branch beyond the instructions the path runs: from the
  // cost sweep's k = 1 -> 2 step of the k-way kernel against its no-divergence control (fit_from_cost_result
  // says how). nullopt: the constants came from another source (attribute then prices no path overhead).
  std::optional<double> divergent_path;
  double divergent_path_min = 0, divergent_path_max = 0;
  int divergent_path_series = 0;
  // The placement band: how far the measured a of the fitted loops lay below and above their own
  // placement's prediction, over every code placement of the cost sweep (cycles per iteration, each
  // residual taken to the whole cycle when it lies within 0.01 of one: a loop's steady state is a
  // whole number of cycles, the rest is the timer's noise). nullopt: not measured (a fit from s/n).
  std::optional<double> band_below, band_above;
  // Where the excess lies, from the binary's addresses: every fitted loop that ran at least one cycle
  // above its prediction started at or past this byte offset within a kFetchBlockBytes block (the
  // smallest such offset, to 16 bytes). A loop starting there gets [a - below, a + above]; one
  // starting earlier in its block gets [a - below, a]. nullopt (files before it): the band everywhere.
  std::optional<int> excess_from_offset;
  json source = json::object();            // measurements and binary the fit used
  // A global load's pass against its sectors, per memory level (model/memory_cost.hpp), from a
  // `--sweep memory` result (`kernels fit --memory`); empty: not measured (attribute then charges a
  // load's whole pass per extra pass). memory_source: that result's file, device and commit.
  std::vector<MemoryLevelCost> memory_levels;
  json memory_source = nullptr;
  // Cycles per extra path of an indirect call (CALL.REL.NOINC Rn), beyond its callees' instructions:
  // measured by the call-path calibration (stage 50, python3 -m divbench.call_path: a divbench.call_path/1 file);
  // nullopt: not measured (attribute then prices such a path at divergent_path). call_path_source: the
  // file, its device and commit.
  std::optional<double> divergent_call_path;
  // Cycles of a call's round trip (CALL to RET and back) that the issue model does not price, per pass
  // of a CALL: measured by the same calibration (uniform direct calls, one against four per item);
  // nullopt: not measured (a CALL is priced by its issue cost alone). issue_costs adds it to every CALL.
  std::optional<double> call_round_trip;
  json call_path_source = nullptr;
};

struct CostPrediction {
  std::optional<double> a;            // predicted cycles per iteration; nullopt = not predicted
  std::optional<double> lower_bound;  // when a is not predicted but a bound is known
  std::string status;                 // "predicted" | "lower bound: ..." | "not predicted: ..."
  int instructions = 0;
  std::optional<int> stall_sum;
  int taken_branches = 0;
  int variable_latency_waits = 0;  // waits on a W-class producer inside the loop, per iteration
  int memory_waits = 0;            // waits on a memory access inside the loop, per iteration
};

// True for memory accesses (their latency is not a model constant).
bool is_memory_access(const std::string& base);
// Steady-state cycles per iteration of the schedule above with explicit parameters (single-path
// loop with control words; throws std::invalid_argument otherwise).
double simulate_period(const LoopFacts& loop, double taken_branch, double variable_latency, double memory_latency);
CostPrediction predict_loop_cost(const LoopFacts& loop, const CostConstants& c);
json to_json(const CostPrediction& p);

// ---- Fitting ----
struct MeasuredLoop {
  std::string body;
  double a = 0;  // measured cycles per iteration
  LoopFacts loop;
};
struct BodyFit {
  std::string body;
  double a = 0;
  CostPrediction fitted;   // with the constants fitted on every used body (in-sample)
  CostPrediction loo;      // with constants fitted leaving this body out (out-of-sample), when possible
  bool used = false;       // entered the fit (predictable: no memory waits)
};
struct CostFit {
  CostConstants constants;
  std::vector<BodyFit> bodies;
};
// Fits B (and W when some used body waits on a W-class producer) on the predictable loops.
CostFit fit_constants(const std::vector<MeasuredLoop>& measured, int sm, const json& source);
json to_json(const CostFit& f);
std::string fit_summary(const CostFit& f);
CostConstants constants_from_json(const json& j, const std::string& what);  // throws UsageError
// The constants are read at run time, never built in: from a divbench.loop_cost/1 file the user
// names, by default the committed one (docs/sass.md "Loop-cost model").
inline constexpr const char* kCommittedConstantsFile = "results/h200/loop_cost.json";
// Where the committed file is for a binary in `exe_dir`: loop_cost.json next to it (a copy put there
// by hand), else results/h200/loop_cost.json in the nearest folder at or above `exe_dir` that holds
// one (a build directory in the source tree), else the installed copy, <prefix>/share/divbench/loop_cost.json
// for <prefix>/bin (installed_data_dir, core/process.hpp; docs/install.md). "" when there is none.
// memory.json and call_path.json are read from beside the file found.
std::string default_constants_path(const std::string& exe_dir);
// The constants in `path` ("" = default_constants_path(own_executable_dir())) and the file read; the reason
// when there is no such file or it is not a loop-cost document. Throws nothing.
struct LoadedConstants {
  CostConstants constants;
  std::string file;
};
Expected<LoadedConstants> load_constants(const std::string& path);

// Puts the curves of the `--sweep memory` result at `path` into `c` (memory_levels, and memory_source:
// the file, its device and git); UsageError naming the file when it cannot be read or is not one.
void set_memory_levels(CostConstants& c, const std::string& path);
// Puts the measured costs of calls from the divbench.call_path/1 file at `path` into `c`
// (call_round_trip, divergent_call_path: either may be null there; call_path_source); UsageError naming
// the file when it is not one.
void set_call_path(CostConstants& c, const std::string& path);

// The block the placement excess is located in: 128 bytes, eight 16-byte instructions (an assumed
// instruction-fetch granularity; the committed fit shows the excess only in the last 32 bytes).
inline constexpr int kFetchBlockBytes = 128;
// Whether a loop starting at byte `loop_start` of its function lies where the fitted loops paid the
// placement excess (always true without excess_from_offset).
bool in_excess_region(const CostConstants& c, long loop_start);
// A prediction's interval [a - band_below, a + band_above] (a + 0 above where the loop does not start
// in the excess region); {a, a} without a band; nullopt when a is.
std::optional<std::pair<double, double>> prediction_interval(const CostPrediction& p, const CostConstants& c,
                                                            long loop_start);

// The general entry (`divbench kernels predict --cubin FILE --function REGEX --json`): every loop
// (timer retry loops aside) of every function of a divbench.kernels/1 document whose mangled or
// demangled name matches `function_regex` (std::regex, searched), predicted with `c`:
// {"loops": [{"function", "sm", "loop_start", "instructions", "stall_sum", "a_predicted", "a_min",
// "a_max", "a_lower_bound", "status"}]}. UsageError for a bad regex or when nothing matches.
json predict_loops(const json& facts, const std::string& function_regex, const CostConstants& c);

// Out of sample: the measured a of loops the fit never saw (`--sweep loops`, summary.loops[] = {body,
// placement, a}) against the prediction from each (body, placement)'s own work loop in `facts` (the
// function whose mangled name contains needle(body, placement)), with the constants `c`. Returns
// {"validation": [{body, placement, measured, predicted, a_min, a_max, rel_err, in_interval}],
//  "oos_points", "oos_median_abs_err", "oos_max_abs_err" (|predicted / measured - 1|),
//  "oos_within_3pct", "oos_in_interval", "oos_max_interval_rel_width"}. UsageError on a malformed
// result or a loop the facts do not hold.
json validate_loops(const json& loops_result, const std::string& loops_path, const json& facts, const CostConstants& c,
                    const std::function<std::string(const std::string&, int)>& needle);

// The mangled-name needles of kway_kernel<Body> for a body name ("fma_chain" -> {"kway_kernel",
// "8FmaChainE"}): robust to further template parameters (placements).
std::vector<std::string> kway_body_needles(const std::string& body);
// The work loops of kway_kernel<body> for `sm` in a divbench.kernels/1 document (one per matching
// function, e.g. per placement), placement 0 first (names ordered by length, then text). Throws
// UsageError when none is found.
std::vector<LoopFacts> body_work_loops(const json& facts, int sm, const std::string& body);

// Measured a from a --sweep cost result (summary.bodies[] = {body, a, ...}) on its device's
// architecture, fitted with the work loops of `facts`.
CostFit fit_from_cost_result(const json& cost, const std::string& cost_path, const json& facts,
                             const std::string& facts_path);
// Provisional measured a from --sweep k results of one body each (config.body, config.iters = n,
// fit.s): a ~ s/n, which still holds b/n (b, the per-path overhead, is not separated by a k sweep);
// recorded as such. For use until a --sweep cost result exists.
CostFit fit_from_kway_results(const std::vector<json>& kway, const std::vector<std::string>& paths, const json& facts,
                              const std::string& facts_path);

}  // namespace divbench::model
