// A probe branch's layout from this binary's SASS (probe_layout.hpp).
#include "probe_layout.hpp"

#include "divbench/summary/loop_shape.hpp"

namespace divbench {

ProbeLayout probe_layout(const DeviceRecord& dev, const model::ArmBranch& branch) {
  const Expected<json>& facts = running_kernel_facts();
  ProbeLayout l;
  if (!facts) {
    l.arms.error = facts.error();
    l.source = "unknown";
    return l;
  }
  const std::optional<int> cubin = cubin_sm_for_device(*facts, dev.cc_major, dev.cc_minor);
  const int sm = cubin ? *cubin : dev.cc_major * 10 + dev.cc_minor;
  l.arms = model::arm_side(*facts, sm, branch);
  l.source = l.arms.side ? "SASS of this binary, sm_" + std::to_string(sm) + " (kernel_facts.json, build time)" : "unknown";
  return l;
}

std::optional<std::string> group_side(const ProbeLayout& l, bool group_in_then) {
  if (!l.arms.side) return std::nullopt;
  const bool then_falls_through = l.arms.side->fallthrough_arm == "then";
  return then_falls_through == group_in_then ? "fallthrough" : "taken";
}

std::optional<bool> taken_below_fallthrough(const ProbeLayout& l) {
  if (!l.arms.side) return std::nullopt;
  return l.arms.side->taken_below_fallthrough();
}

std::optional<std::string> reconvergence_form(const ProbeLayout& l) {
  if (!l.arms.side) return std::nullopt;
  return l.arms.side->bssy_guarded ? "bssy" : "warpsync";
}

json to_json(const ProbeLayout& l) {
  json j{{"source", l.source}};
  if (l.arms.side) {
    j["function"] = l.arms.side->function;
    j["branch"] = l.arms.side->branch;
    j["fallthrough_arm"] = l.arms.side->fallthrough_arm;
    j["bssy_guarded"] = l.arms.side->bssy_guarded;
    j["fallthrough_at"] = l.arms.side->fallthrough_at ? json(*l.arms.side->fallthrough_at) : json(nullptr);
    j["taken_at"] = l.arms.side->taken_at ? json(*l.arms.side->taken_at) : json(nullptr);
    const auto below = l.arms.side->taken_below_fallthrough();
    j["taken_below_fallthrough"] = below ? json(*below) : json(nullptr);
  } else {
    j["fallthrough_arm"] = nullptr;
    j["bssy_guarded"] = nullptr;
    j["taken_below_fallthrough"] = nullptr;
    j["error"] = l.arms.error;
  }
  return j;
}

}  // namespace divbench
