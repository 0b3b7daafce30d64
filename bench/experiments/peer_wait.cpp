// --probe peer-wait: the bounded SIMT-stack deadlock probe. The two arms of one divergent if/else
// hand a token back and forth; a machine that runs one arm to its end before the other would wait
// forever, so every wait is capped and such a machine reports "cap reached" instead of hanging.
#include <algorithm>
#include <chrono>

#include "divbench/kernels/kway.hpp"
#include "harness/experiment.hpp"
#include "probe_options.hpp"

namespace divbench {
namespace {

constexpr int kLaunches = 5;
constexpr std::uint32_t kRounds = 16;

json check_run(const PeerWaitRun& run) {
  bool capped = false;
  std::uint32_t min_rounds = kRounds, max_spins = 0;
  std::vector<std::uint64_t> spins;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const PeerWaitLane& l = run.lanes[lane];
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
  return json{{"completed", !capped},
              {"cap_reached", capped},
              {"min_rounds_done", min_rounds},
              {"ping", run.ping},
              {"pong", run.pong},
              {"max_spins_one_wait", max_spins},
              {"total_spins", spins},
              {"region_cycles", run.region.cycles}};
}

Experiment peer_wait_experiment() {
  Experiment e;
  e.name = "peer_wait";
  e.aliases = {"peer-wait"};
  e.kind = "probe";
  e.help = "bounded deadlock probe: two arms of one branch wait for each other in turn (capped)";
  e.validate = [](const RunOptions& o) { reject_sweep_options(o, "peer-wait"); };
  e.result_name = [](const RunOptions&) { return std::string("peer_wait"); };
  e.config = [](const RunOptions& o) {
    return json{{"rounds", kRounds},
                {"launches", probe_launches(o, kLaunches)},
                {"arms", "even lanes (then) vs odd lanes (else), distinct __noinline__ functions"},
                {"caps", caps_json(ProbeCaps{})}};
  };
  e.plan = [](const RunContext& ctx) {
    const int launches = probe_launches(ctx.opts, kLaunches);
    std::vector<PointSpec> pts;
    pts.push_back({"rounds:" + std::to_string(kRounds), [launches] {
                     const auto t0 = std::chrono::steady_clock::now();
                     PointResult r;
                     r.timed = false;
                     const json runs =
                         repeat_launches(launches, [] { return check_run(run_peer_wait_probe(kRounds, ProbeCaps{})); });
                     const bool capped = any_run(runs, "cap_reached");
                     r.raw = json{{"rounds", kRounds},
                                  {"launches", launches},
                                  {"completed", !capped},
                                  {"cap_reached", capped},
                                  {"max_spins_one_wait", max_run(runs, "max_spins_one_wait")},
                                  {"runs", runs}};
                     r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                     return r;
                   },
                   nullptr, nullptr});
    return pts;
  };
  e.finalize = [](const RunContext&, ResultRecord& r) {
    for (const auto& p : r.points_extra) {
      r.summary["completed"] = p["completed"];
      r.summary["cap_reached"] = p["cap_reached"];
      r.summary["rounds"] = p["rounds"];
      r.summary["max_spins_one_wait"] = p["max_spins_one_wait"];
    }
  };
  return e;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(peer_wait_experiment);

}  // namespace divbench
