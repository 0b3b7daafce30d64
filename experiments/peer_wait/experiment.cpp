// --probe peer-wait: the bounded SIMT-stack deadlock probe. The two arms of one divergent if/else
// hand a token back and forth; a machine that runs one arm to its end before the other would wait
// forever, so every wait is capped and such a machine reports "cap reached" instead of hanging.
// Which side entered first is recorded in the order probe's fields (group = the even lanes, the
// `then` arm; its side and the reconvergence form from this binary's SASS).
#include <algorithm>

#include "divbench/core/errors.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/core/warp.hpp"
#include "experiments/peer_wait/launcher.hpp"
#include "harness/experiment.hpp"
#include "probes/probe_layout.hpp"
#include "probes/probe_options.hpp"

namespace divbench {
namespace {

constexpr int kLaunches = 5;
constexpr std::uint32_t kRounds = 16;
constexpr std::uint32_t kEvenLanes = 0x55555555u;  // side 0, the `then` arm: the group

json check_run(const PeerWaitRun& run) {
  bool capped = false;
  std::uint32_t min_rounds = kRounds, max_spins = 0;
  std::vector<std::uint64_t> spins, enter(kWarpLanes);
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const PeerWaitLane& l = run.lanes[lane];
    enter[lane] = l.enter_clk;
    if (l.side != static_cast<std::uint32_t>(lane & 1) || l.rounds_done > kRounds || l.capped > 1)
      throw VerificationError("peer_wait: lane " + std::to_string(lane) + " wrote an inconsistent record");
    if (l.capped == 0 && l.rounds_done != kRounds)
      throw VerificationError("peer_wait: lane " + std::to_string(lane) + " stopped at round " +
                              std::to_string(l.rounds_done) + " without reaching the cap");
    capped = capped || l.capped == 1;
    min_rounds = std::min(min_rounds, l.rounds_done);
    max_spins = std::max(max_spins, l.max_spins);
    spins.push_back(l.total_spins);
  }
  if (!capped && (run.ping != kRounds || run.pong != kRounds))
    throw VerificationError("peer_wait: no lane capped but ping/pong ended at " + std::to_string(run.ping) + "/" +
                            std::to_string(run.pong));
  json j = to_json(entry_order(enter, kEvenLanes));
  j.update(json{{"completed", !capped},
                {"cap_reached", capped},
                {"min_rounds_done", min_rounds},
                {"ping", run.ping},
                {"pong", run.pong},
                {"max_spins_one_wait", max_spins},
                {"total_spins", spins},
                {"region_cycles", run.region.cycles}});
  return j;
}

struct PeerWaitConfig : ProbeConfig {
  std::uint32_t rounds = kRounds;
};

PeerWaitConfig parse(const SettingValues& o) { return parse_probe_config<PeerWaitConfig>(o, kLaunches); }

json to_json(const PeerWaitConfig& c) {
  json j = probe_config_json(c);
  j["rounds"] = c.rounds;
  j["arms"] = "even lanes (then) vs odd lanes (else), distinct __noinline__ functions";
  return j;
}

std::vector<PointSpec> plan(const PeerWaitConfig& c, const DeviceRecord& dev) {
  require_independent_scheduling(dev, "peer-wait");
  const ProbeLayout layout = probe_layout(dev, {{"peer_wait_kernel"}, "take_turnsILi0E", "take_turnsILi1E"});
  std::vector<PointSpec> pts;
  pts.push_back({{{"rounds", c.rounds}}, "", [c, layout] {
                   return probe_point(
                       c.runs.launches, [&c] { return check_run(run_peer_wait_probe(c.rounds, c.caps)); },
                       [&c, &layout](const json& runs, PointResult& r) {
                         const bool capped = any_run(runs, "cap_reached");
                         r.raw = json{{"rounds", c.rounds},
                                      {"completed", !capped},
                                      {"cap_reached", capped},
                                      {"max_spins_one_wait", max_run(runs, "max_spins_one_wait")},
                                      {"layout", to_json(layout)}};
                         r.raw.update(side_order_fields(kEvenLanes, group_side(layout, true), reconvergence_form(layout),
                                                        combine_launches(runs)));
                       });
                 },
                 nullptr, nullptr});
  return pts;
}

void finalize(const PeerWaitConfig&, ResultRecord& r) {
  for (const auto& p : r.points_extra) {
    r.summary["completed"] = p.value("completed", json(nullptr));
    r.summary["cap_reached"] = p.value("cap_reached", json(nullptr));
    r.summary["rounds"] = p.value("rounds", json(nullptr));
    r.summary["max_spins_one_wait"] = p.value("max_spins_one_wait", json(nullptr));
    r.summary.update(side_order_subset(p));
  }
}

ExperimentDef<PeerWaitConfig> peer_wait_experiment() {
  ExperimentDef<PeerWaitConfig> d{
      "peer_wait", {"peer-wait"}, "probe",
      "bounded deadlock probe: two arms of one branch wait for each other in turn (capped)", parse, to_json, nullptr,
      plan, finalize, [](const PeerWaitConfig& c) { return probe_notes(c.runs); }};
  d.headline = {{"completed", "", "the two sides met every round within the caps"},
                {"rounds", "rounds", "rounds completed"},
                {"first", "", "which side ran first"}};
  d.axes = {{{"rounds", AxisType::integer, "rounds", "", "hand-offs between the two arms"},
             [](const PeerWaitConfig& c) { return json{c.rounds}; }}};
  d.settings = probe_settings();
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(peer_wait_experiment);

}  // namespace divbench
