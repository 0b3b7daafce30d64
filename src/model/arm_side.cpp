// Which arm of a two-arm branch is the fall-through, from kernel facts (arm_side.hpp).
#include "divbench/model/arm_side.hpp"

namespace divbench::model {
namespace {

bool contains(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

// Does the side (a `sides.fallthrough` / `sides.taken` object) call the callee?
bool calls(const json& side, const std::string& callee) {
  if (!side.is_object() || !side.contains("calls")) return false;
  for (const auto& c : side["calls"])
    if (c.is_string() && contains(c.get<std::string>(), callee)) return true;
  return false;
}

bool guarded(const json& branch) {
  if (!branch.contains("bssy")) return false;
  for (const auto& g : branch["bssy"])
    if (!g.is_null()) return true;
  return false;
}

bool is_address(const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0); }

// A branch the facts leave unguarded (kernel_facts gives each BSSY to the first divergent branch its
// region reaches) may still reconverge at a BSYNC: that of an earlier BSSY whose branch reconverges
// "at" the same immediate post-dominator, the BSSY above this branch and that point below it. The
// loop kernels' latch is such a branch: the BSSY before the loop guards the loop's exit test, and the
// latch's two sides meet at the same BSYNC.
bool shares_bsync(const json& fn, const json& b) {
  if (!b.contains("offset") || !is_address(b["offset"]) || !b.contains("ipdom") || !is_address(b["ipdom"])) return false;
  const std::uint64_t at = b["offset"].get<std::uint64_t>(), ipdom = b["ipdom"].get<std::uint64_t>();
  if (ipdom <= at) return false;
  for (const auto& o : fn["divergent_branches"]) {
    if (!o.contains("ipdom") || o["ipdom"] != b["ipdom"] || !o.contains("bssy") || !o.contains("placement")) continue;
    const json& guards = o["bssy"];
    const json& places = o["placement"];
    for (std::size_t i = 0; i < guards.size() && i < places.size(); ++i)
      if (is_address(guards[i]) && guards[i].get<std::uint64_t>() < at && places[i].is_string() &&
          places[i].get<std::string>() == "at")
        return true;
  }
  return false;
}

}  // namespace

ArmSideResult arm_side(const json& facts, int sm, const ArmBranch& q) {
  ArmSideResult r;
  const json* fn = nullptr;
  int matched = 0;
  if (facts.is_object() && facts.contains("cubins"))
    for (const auto& c : facts["cubins"]) {
      if (c.value("sm", 0) != sm || !c.contains("functions")) continue;
      for (const auto& f : c["functions"]) {
        const std::string name = f.value("name", "");
        bool all = true;
        for (const auto& n : q.kernel) all = all && contains(name, n);
        if (all) fn = &f, ++matched;
      }
    }
  std::string what;
  for (const auto& n : q.kernel) what += (what.empty() ? "" : "+") + n;
  if (matched != 1) {
    r.error = std::to_string(matched) + " functions match " + what + " in the sm_" + std::to_string(sm) + " facts";
    return r;
  }
  if (!fn->contains("divergent_branches")) {
    r.error = what + ": no divergent_branches in the facts";
    return r;
  }
  std::vector<ArmSide> found;
  for (const auto& b : (*fn)["divergent_branches"]) {
    if (!b.contains("sides")) continue;
    const json& ft = b["sides"].value("fallthrough", json::object());
    const json& tk = b["sides"].value("taken", json::object());
    std::string arm;
    if (calls(ft, q.then_callee) && !calls(ft, q.else_callee) && calls(tk, q.else_callee) && !calls(tk, q.then_callee))
      arm = "then";
    else if (calls(ft, q.else_callee) && !calls(ft, q.then_callee) && calls(tk, q.then_callee) &&
             !calls(tk, q.else_callee))
      arm = "else";
    else
      continue;
    ArmSide side{fn->value("name", ""), b.value("offset", std::uint64_t{0}), arm, guarded(b) || shares_bsync(*fn, b), {}, {}};
    if (b.contains("fallthrough") && is_address(b["fallthrough"]))
      side.fallthrough_at = b["fallthrough"].get<std::uint64_t>();
    // A two-way branch has one target; with several (BRX) "the taken side's address" is not one place.
    if (b.contains("taken") && b["taken"].is_array() && b["taken"].size() == 1 && is_address(b["taken"][0]))
      side.taken_at = b["taken"][0].get<std::uint64_t>();
    found.push_back(std::move(side));
  }
  if (found.size() != 1) {
    r.error = what + ": " + std::to_string(found.size()) + " divergent branches separate the calls of " + q.then_callee +
              " and " + q.else_callee + " (the arms merged, were inlined, or are nested)";
    return r;
  }
  r.side = found.front();
  return r;
}

}  // namespace divbench::model
