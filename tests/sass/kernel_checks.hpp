// The structural checks of divbench's timed kernels, on a "divbench.kernels/1" document (what the
// build writes next to divbench and what experiments read): shared by the self-check (real
// binaries, every architecture) and the tests that feed them broken facts to show they fail.
//
// Per architecture, by substring of the mangled name (robust to added template parameters):
//   kway_kernel            a guarded divergent branch inside a loop (the loop over paths), one work
//                          loop, clock reads bracketing the timed region; <Sfu>: MUFU in the work
//                          loop; <MemDivergent>: a memory load in the work loop; placements
//                          kway_kernel<Body, Pad>: the work loop starts later for every larger Pad
//                          (a note, not a failure, where it does not move by exactly 16 bytes per
//                          Pad on sm_70+ or its instructions' stalls differ between placements:
//                          the placement is then not a pure shift, which a run must report)
//   pred_branchy_kernel    a guarded divergent branch inside a loop; more barrier regions than the
//                          branch-free single path pred_select_kernel<1> (at the same placement);
//                          bracketed
//   pred_select_kernel     no more divergent branches (guarded or not) and no more barrier regions
//                          than pred_select_kernel<1> at the same placement; bracketed
//   producer_consumer_kernel, peer_wait_kernel
//                          the two arms are two call sites separated by one divergent branch
//                          (model::arm_side finds its fall-through arm); bracketed
//   lock_kernel            bracketed
//   calibration_kernel     present (timed with events: no clock reads)
// Adding a kernel: one entry in kTimedKernels (and a rule below if it needs more than bracketing).
#pragma once
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/model/arm_side.hpp"

namespace divbench::sass::test {

using model::arm_side;
using model::ArmBranch;
using model::ArmSideResult;

struct KernelRule {
  const char* needle;
  bool timed;  // uses the region timer: its clock reads must bracket its timed region
};
inline const std::vector<KernelRule>& timed_kernel_rules() {
  static const std::vector<KernelRule> v = {
      {"kway_kernel", true},          {"pred_branchy_kernel", true}, {"pred_select_kernel", true},
      {"producer_consumer_kernel", true}, {"peer_wait_kernel", true},   {"lock_kernel", true},
      {"calibration_kernel", false},
  };
  return v;
}

// The probes' two-arm branches (each arm a distinct __noinline__ function, one call site): the order
// probe's five kernels, producer/consumer and peer-wait. Their layout is what the probes read at run
// time through model::arm_side (bench/probes/probe_layout.hpp).
struct ProbeBranch {
  const char* name;
  ArmBranch branch;
};
inline const std::vector<ProbeBranch>& probe_branches() {
  static const std::vector<ProbeBranch> v{
      {"order (bssy)", {{"order_kernelILb0E"}, "order_armILi0E", "order_armILi1E"}},
      {"order (warpsync)", {{"order_kernelILb1E"}, "order_armILi0E", "order_armILi1E"}},
      {"order (bssy_backward)", {{"order_backward_kernel"}, "order_armILi0E", "order_armILi1E"}},
      {"order (bssy_loop)", {{"order_loop_kernelILb0E"}, "order_armILi0E", "order_armILi1E"}},
      {"order (warpsync_loop)", {{"order_loop_kernelILb1E"}, "order_armILi0E", "order_armILi1E"}},
      {"producer_consumer", {{"producer_consumer_kernel"}, "pc_armILi0E", "pc_armILi1E"}},
      {"peer_wait", {{"peer_wait_kernel"}, "take_turnsILi0E", "take_turnsILi1E"}},
  };
  return v;
}

inline bool has(const json& f, const std::string& needle) {
  return f.value("name", "").find(needle) != std::string::npos;
}

// Divergent branches with a closing barrier region (bssy set, placement not "unclosed"), optionally
// only those on a loop.
inline int guarded_branches(const json& f, bool in_loop_only) {
  int n = 0;
  for (const auto& b : f["divergent_branches"]) {
    if (in_loop_only && b["loop"].is_null()) continue;
    bool guarded = false;
    for (std::size_t i = 0; i < b["bssy"].size(); ++i)
      guarded = guarded || (!b["bssy"][i].is_null() && b["placement"][i] != "unclosed");
    n += guarded ? 1 : 0;
  }
  return n;
}

inline const json* work_loop(const json& f) {
  if (!f.contains("work_loop") || f["work_loop"].is_null()) return nullptr;
  return &f["loops"][f["work_loop"].get<std::size_t>()];
}

// Pad of a kway_kernel<Body, Pad> name ("...8FmaChainELi3EEEv..." -> 3), -1 without one.
inline int placement_of(const std::string& name) {
  const auto k = name.find("kway_kernel");
  const auto p = k == std::string::npos ? std::string::npos : name.find("ELi", k);
  if (p == std::string::npos) return -1;
  return std::atoi(name.c_str() + p + 3);
}

// Work-loop headers by body and placement: later for every larger Pad (a problem otherwise); a note
// where the step is not 16 bytes per Pad (sm_70+) or the loop's stall sum differs between placements.
inline void check_placements(const std::vector<const json*>& fns, int sm, std::vector<std::string>& p,
                             std::vector<std::string>& notes) {
  struct Head {
    std::uint64_t header;
    json stall_sum;
  };
  std::map<std::string, std::map<int, Head>> heads;  // body part of the name -> Pad -> work loop
  for (const json* f : fns) {
    const std::string name = (*f)["name"].get<std::string>();
    const int pad = placement_of(name);
    if (name.find("kway_kernel") == std::string::npos || pad < 0 || (*f)["work_loop"].is_null()) continue;
    const json& loop = (*f)["loops"][(*f)["work_loop"].get<std::size_t>()];
    heads[name.substr(0, name.find("ELi", name.find("kway_kernel")))][pad] = {loop["header"].get<std::uint64_t>(),
                                                                             loop["stall_sum"]};
  }
  const std::string arch = "sm_" + std::to_string(sm);
  for (const auto& [body, by_pad] : heads) {
    const auto& [p0, h0] = *by_pad.begin();
    const Head* prev = nullptr;
    std::string steps;
    bool shifted = true, same_loop = true;
    for (const auto& [pad, h] : by_pad) {
      if (prev && h.header <= prev->header)
        p.push_back(arch + " " + body + ": placement " + std::to_string(pad) + " does not move the work loop later");
      steps += (steps.empty() ? "" : " ") + std::to_string(h.header - h0.header);
      shifted = shifted && h.header == h0.header + 16u * static_cast<std::uint64_t>(pad - p0);
      same_loop = same_loop && h.stall_sum == h0.stall_sum;
      prev = &h;
    }
    if ((sm >= 70 && !shifted) || !same_loop)
      notes.push_back(arch + " " + body + ": placements move the work loop by " + steps + " bytes" +
                      (same_loop ? "" : " and change its stall sum") + ": not a pure 16-byte shift");
  }
}

inline bool loop_has(const json& loop, const std::vector<std::string>& bases) {
  for (const auto& i : loop["instructions"])
    if (std::find(bases.begin(), bases.end(), i["base"].get<std::string>()) != bases.end()) return true;
  return false;
}

// Problems of the functions of architecture `sm` (every cubin of that sm in `facts`), one line each;
// observations that are not failures go to `notes` when given.
inline std::vector<std::string> check_timed_kernels(const json& facts, int sm, std::vector<std::string>* notes = nullptr) {
  std::vector<std::string> p;
  std::vector<const json*> fns;
  for (const auto& c : facts["cubins"])
    if (c["sm"] == sm)
      for (const auto& f : c["functions"]) fns.push_back(&f);
  const std::string arch = "sm_" + std::to_string(sm);
  auto say = [&](const json& f, const std::string& what) { p.push_back(arch + " " + f["name"].get<std::string>() + ": " + what); };
  // The single-path baseline of a predication kernel: pred_select_kernel<1, Pad> of its placement
  // (pred_branchy_kernel<Pad>, pred_select_kernel<K, Pad>), or pred_select_kernel<1> without one.
  auto single_for = [&](const json& f) -> const json* {
    const std::string name = f["name"].get<std::string>();
    std::string pad;
    const auto b = name.find("pred_branchy_kernelILi");
    const auto k = name.find("pred_select_kernelILi");
    if (b != std::string::npos) {
      const auto from = b + std::string("pred_branchy_kernelILi").size();
      pad = name.substr(from, name.find('E', from) - from);
    } else if (k != std::string::npos) {
      const auto second = name.find("ELi", k + std::string("pred_select_kernelILi").size());
      if (second != std::string::npos) pad = name.substr(second + 3, name.find('E', second + 3) - second - 3);
    }
    const std::string needle = pad.empty() ? "pred_select_kernelILi1EE" : "pred_select_kernelILi1ELi" + pad + "EE";
    for (const json* g : fns)
      if (has(*g, needle)) return g;
    return nullptr;
  };
  for (const auto& rule : timed_kernel_rules()) {
    int found = 0;
    for (const json* fp : fns) {
      const json& f = *fp;
      if (!has(f, rule.needle)) continue;
      ++found;
      if (rule.timed && f["timed_region"]["bracketed"] != true)
        say(f, "the clock reads do not bracket the timed region (start " + f["timed_region"]["start_clock"].dump() +
                   ", stop " + f["timed_region"]["stop_clock"].dump() + ", before start " +
                   f["timed_region"]["not_after_start"].dump() + ", after stop " +
                   f["timed_region"]["not_before_stop"].dump() + ")");
      const std::string needle = rule.needle;
      if ((needle == "kway_kernel" || needle == "pred_branchy_kernel") && guarded_branches(f, true) < 1)
        say(f, "no guarded divergent branch inside a loop");
      if (needle == "kway_kernel") {
        const json* w = work_loop(f);
        if (!w) say(f, "no single work loop in the timed region");
        if (w && has(f, "3SfuE") && !loop_has(*w, {"MUFU"})) say(f, "the SFU body's work loop has no MUFU");
        if (w && has(f, "12MemDivergentE") && !loop_has(*w, {"LDG", "LD"}))
          say(f, "the divergent-memory body's work loop has no global load");
      }
      if (needle == "pred_branchy_kernel" || needle == "pred_select_kernel") {
        const json* single = single_for(f);
        if (!single) {
          say(f, "no pred_select_kernel<1> (the single-path baseline) in this architecture");
          continue;
        }
        const int base_regions = (*single)["barrier_regions"].get<int>();
        if (needle == "pred_branchy_kernel" && f["barrier_regions"].get<int>() <= base_regions)
          say(f, "the branchy kernel has " + f["barrier_regions"].dump() + " barrier regions, the single path " +
                     std::to_string(base_regions) + ": it does not branch");
        if (needle == "pred_select_kernel") {
          if (f["barrier_regions"].get<int>() > base_regions)
            say(f, "a predicated twin has " + f["barrier_regions"].dump() + " barrier regions, the single path " +
                       std::to_string(base_regions) + ": it branches");
          if (f["divergent_branches"].size() > (*single)["divergent_branches"].size() ||
              guarded_branches(f, false) > guarded_branches(*single, false))
            say(f, "a predicated twin has more divergent branches than pred_select_kernel<1>");
        }
      }
      for (const auto& probe : probe_branches())
        if (probe.branch.kernel.front() == needle) {
          const ArmSideResult r = arm_side(facts, sm, probe.branch);
          if (!r.side) say(f, "arms: " + r.error);
        }
    }
    if (found == 0) p.push_back(arch + ": no function matching '" + rule.needle + "'");
  }
  std::vector<std::string> ignored;
  check_placements(fns, sm, p, notes ? *notes : ignored);
  return p;
}

}  // namespace divbench::sass::test
