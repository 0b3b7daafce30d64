// --probe producer-consumer: lane 0 works W iterations and publishes; the 31 other lanes spin on its
// flag (the paper's Section IV-E saw <= 2 spins with the producer's path laid out first). Both
// structural orders run: the producer in the `then` arm and in the `else` arm of one divergent
// if/else, each arm a distinct __noinline__ function. Which arm the compiler laid out first (the
// branch's fall-through) is read from this binary's SASS at build time (kernel_facts.json next to the
// executable, written by `divbench kernels facts`); the run itself records which arm the hardware
// entered first (clock64 at entry).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "divbench/core/json_io.hpp"
#include "divbench/core/warp.hpp"
#include "divbench/sass/kernel_facts.hpp"
#include "divbench/summary/loop_shape.hpp"
#include "harness/experiment.hpp"
#include "probe_options.hpp"

namespace divbench {
namespace {

constexpr int kLaunches = 3;
constexpr int kProducerLane = 0;
const std::vector<std::uint32_t> kWorks{1000u, 100000u, 10000000u};

ProbeCaps pc_caps() {
  ProbeCaps c;
  c.max_spins = 1u << 26;          // the deadline below is the binding cap
  c.max_ns = 1'000'000'000ull;     // ~7x the producer's 10^7-iteration work (~0.15 s at 2 GHz)
  return c;
}

// Build-time SASS facts of this binary (kernel_facts.json next to the executable).
std::optional<bool> then_arm_first(const DeviceRecord& d) {
  std::string why;
  const auto facts = running_kernel_facts(why);
  const auto sm = facts ? cubin_sm_for_device(*facts, d.cc_major, d.cc_minor) : std::nullopt;
  if (!sm) return std::nullopt;
  return sass::pc_then_arm_first(*facts, *sm);
}

json check_run(const PcRun& run, bool producer_in_then, std::uint32_t work, float want) {
  const std::string where = "producer_consumer/W=" + std::to_string(work) + ": ";
  const PcLane& p = run.lanes[kProducerLane];
  const std::uint32_t producer_side = producer_in_then ? 0u : 1u;
  if (p.role != 1 || p.side != producer_side) throw VerificationError(where + "the producer lane wrote no record");
  if (std::memcmp(&p.value, &want, sizeof want) != 0)
    throw VerificationError(where + "producer computed " + std::to_string(p.value) + ", expected " +
                            std::to_string(want));
  if (run.flag != 1u) throw VerificationError(where + "the flag was never published");
  std::uint32_t max_spins = 0;
  bool capped = false;
  std::uint64_t first_consumer_enter = ~0ull, last_consumer_done = 0;
  std::vector<std::uint32_t> spins;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    if (lane == kProducerLane) continue;
    const PcLane& c = run.lanes[lane];
    if (c.role != 2 || c.side != 1u - producer_side || c.capped > 1)
      throw VerificationError(where + "consumer lane " + std::to_string(lane) + " wrote an inconsistent record");
    if (c.capped == 0 && std::memcmp(&c.value, &want, sizeof want) != 0)
      throw VerificationError(where + "consumer lane " + std::to_string(lane) + " saw the flag but read " +
                              std::to_string(c.value) + " instead of the producer's " + std::to_string(want));
    capped = capped || c.capped == 1;
    max_spins = std::max(max_spins, c.spins);
    spins.push_back(c.spins);
    first_consumer_enter = std::min(first_consumer_enter, c.enter_clk);
    last_consumer_done = std::max(last_consumer_done, c.done_clk);
  }
  const bool producer_entered_first = p.enter_clk < first_consumer_enter;
  return json{{"completed", !capped},
              {"cap_reached", capped},
              {"max_consumer_spins", max_spins},
              {"consumer_spins", spins},
              {"producer_entered_first", producer_entered_first},
              {"producer_cycles", p.done_clk - p.enter_clk},
              {"consumer_enter_minus_producer_enter_cycles",
               static_cast<double>(first_consumer_enter) - static_cast<double>(p.enter_clk)},
              {"consumers_done_minus_publish_cycles",
               static_cast<double>(last_consumer_done) - static_cast<double>(p.done_clk)},
              {"region_cycles", run.region.cycles}};
}

struct ProducerConsumerConfig {
  ProbeRuns runs;
  std::vector<std::uint32_t> works = kWorks;
  int producer_lane = kProducerLane;
  ProbeCaps caps = pc_caps();
};

ProducerConsumerConfig parse(const RunOptions& o) {
  ProducerConsumerConfig c;
  c.runs = parse_probe_runs(o, "producer-consumer", kLaunches);
  return c;
}

json to_json(const ProducerConsumerConfig& c) {
  json j{{"works", c.works}, {"producer_lane", c.producer_lane}};
  j.update(to_json(c.runs));
  j["arms"] = "then = pc_arm<0>, else = pc_arm<1> (distinct __noinline__ functions)";
  j["caps"] = caps_json(c.caps);
  return j;
}

std::vector<PointSpec> plan(const ProducerConsumerConfig& c, const DeviceRecord& dev) {
  const std::optional<bool> then_first = then_arm_first(dev);
  std::vector<PointSpec> pts;
  for (bool in_then : {true, false}) {
    for (std::uint32_t w : c.works) {
      const std::string label =
          std::string(in_then ? "producer_in_then" : "producer_in_else") + "/W:" + std::to_string(w);
      pts.push_back({label, [in_then, w, c, then_first] {
                       const float want = producer_reference(c.producer_lane, w);
                       const auto t0 = std::chrono::steady_clock::now();
                       PointResult r;
                       r.timed = false;
                       const json runs = repeat_launches(c.runs.launches, [in_then, w, want, &c] {
                         return check_run(run_producer_consumer_probe(in_then, c.producer_lane, w, c.caps), in_then, w,
                                          want);
                       });
                       const bool capped = any_run(runs, "cap_reached");
                       const bool entered_first = all_runs(runs, "producer_entered_first");
                       const std::uint64_t max_spins = max_run(runs, "max_consumer_spins");
                       json laid_out = nullptr;
                       if (then_first) laid_out = (*then_first == in_then);
                       r.raw = json{{"producer_in_then", in_then},
                                    {"producer_first", laid_out},
                                    {"layout_source", then_first ? "SASS of this binary (build time)" : "unknown"},
                                    {"work", w},
                                    {"launches", c.runs.launches},
                                    {"completed", !capped},
                                    {"cap_reached", capped},
                                    {"max_consumer_spins", max_spins},
                                    {"producer_entered_first", entered_first},
                                    {"runs", runs}};
                       r.counters["max_consumer_spins"] = static_cast<double>(max_spins);
                       r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                       return r;
                     },
                     nullptr, nullptr});
    }
  }
  return pts;
}

void finalize(const ProducerConsumerConfig&, ResultRecord& r) {
  json orders = json::array();
  bool all_completed = true;
  for (const auto& p : r.points_extra) {
    orders.push_back(json{{"producer_first", p["producer_first"]},
                          {"producer_in_then", p["producer_in_then"]},
                          {"work", p["work"]},
                          {"max_consumer_spins", p["max_consumer_spins"]},
                          {"completed", p["completed"]},
                          {"producer_entered_first", p["producer_entered_first"]}});
    all_completed = all_completed && p["completed"].get<bool>();
  }
  r.summary["orders"] = orders;
  r.summary["completed"] = all_completed;
}

Experiment producer_consumer_experiment() {
  return make_experiment<ProducerConsumerConfig>(
      {"producer_consumer", {"producer-consumer"}, "probe",
       "one lane produces after W iterations, 31 spin on its flag; both structural orders", parse, to_json, nullptr,
       plan, finalize, [](const ProducerConsumerConfig& c) { return probe_notes(c.runs); }});
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(producer_consumer_experiment);

}  // namespace divbench
