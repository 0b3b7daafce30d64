// --probe order: which side of a two-sided branch does one warp run first? A group of g lanes
// (g = 1 .. 31; low, high or scattered lanes) takes one arm of a divergent if/else, the other lanes
// the other arm; each arm records clock64 at its first instruction. The group goes into the `then`
// arm and, in another point, the `else` arm, so every group runs on the branch's fall-through side
// and on its taken side; which arm is the fall-through, which side lies at the lower address, and
// whether the branch is BSSY-guarded, is read from this binary's SASS (probe_layout.hpp), never
// assumed: a point whose SASS disagrees with the intended layout or form is labelled by the SASS and
// listed as a mismatch. Five kernels (experiments/order/order.cu, order_backward.cu, order_loop.cu): bssy
// and warpsync (the fall-through side at the lower address), bssy_backward (the taken side at the lower
// address, ptxas -O0) and bssy_loop, warpsync_loop (the taken side at the lower address at ptxas's
// default level: the branch is a loop's latch; launcher.hpp). finalize() fits the candidate order rules to the points (experiments/order/summary.hpp), says
// whether ties go to the fall-through side or to the lower address (undecided unless a layout with
// the taken side below was measured), and reports whether `first` held across the repeated launches.
#include <optional>
#include <set>
#include <tuple>

#include "divbench/core/errors.hpp"
#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "divbench/core/stats.hpp"
#include "divbench/core/warp.hpp"
#include "experiments/order/launcher.hpp"
#include "experiments/order/summary.hpp"
#include "harness/experiment.hpp"
#include "harness/k_list.hpp"
#include "probes/probe_layout.hpp"
#include "probes/probe_options.hpp"

namespace divbench {
namespace {

constexpr int kLaunches = 9;  // odd: a majority always exists
const std::vector<int> kGroupSizes{1, 2, 4, 8, 15, 16, 17, 24, 28, 31};

struct OrderConfig : ProbeConfig {
  std::vector<int> group_sizes = kGroupSizes;
  std::vector<GroupPosition> positions = all_group_positions();
  std::vector<OrderForm> forms = all_order_forms();
};

OrderConfig parse(const SettingValues& o) {
  auto c = parse_probe_config<OrderConfig>(o, kLaunches);
  c.caps.max_spins = 1u << 10;  // the flag is set before the launch: no lane should poll at all
  if (o.has("--k")) {  // its own --k (under --all --k is the path counts of the sweeps and does not reach it)
    const std::vector<int> ks = o.ints("--k");
    for (int g : ks)
      if (g < 1 || g > 31)
        throw UsageError("--probe order: --k " + std::to_string(g) +
                         " is not a group size (1..31: both sides of the branch need a lane)");
    c.group_sizes = ks;
  }
  return c;
}

json to_json(const OrderConfig& c) {
  json j{{"group_sizes", c.group_sizes},
         {"positions", axis_names(c.positions, group_position_name)},
         {"forms", axis_names(c.forms, order_form_name)}};
  j["scattered_lanes"] = "the first g lanes of (" + std::to_string(kScatterStart) + " + " +
                         std::to_string(kScatterStride) + " i) mod 32, i = 0, 1, ...";
  j["arms"] =
      "then = order_arm<0>, else = order_arm<1> (distinct __noinline__ functions); the group takes the then arm "
      "(intended fall-through in bssy and warpsync, intended taken and at the lower address in bssy_backward, "
      "bssy_loop and warpsync_loop, where every lane first runs the then arm once with the whole warp) or "
      "the else arm";
  j.update(probe_config_json(c));
  return j;
}

// One launch, checked: every lane wrote its record from the arm its mask bit sends it to.
json check_run(const OrderRun& run, std::uint32_t group, bool group_in_then) {
  const std::uint32_t then_mask = group_in_then ? group : ~group;
  std::vector<std::uint64_t> clk(kWarpLanes), ns(kWarpLanes);
  bool capped = false;
  std::uint32_t max_spins = 0;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    const OrderLane& l = run.lanes[lane];
    const std::uint32_t want_arm = mask_has_lane(then_mask, lane) ? 0u : 1u;
    if (l.arm != want_arm || l.capped > 1)
      throw VerificationError("order: lane " + std::to_string(lane) + " wrote no record from arm " +
                              std::to_string(want_arm) + " (arm field " + std::to_string(l.arm) + ")");
    if (l.capped == 0 && l.flag_seen != 1u)
      throw VerificationError("order: lane " + std::to_string(lane) + " read flag " + std::to_string(l.flag_seen) +
                              ", set to 1 before the launch");
    capped = capped || l.capped == 1;
    max_spins = std::max(max_spins, l.spins);
    clk[lane] = l.enter_clk;
    ns[lane] = l.enter_ns;
  }
  json j = to_json(entry_order(clk, group));
  const json by_ns = to_json(entry_order(ns, group));
  j["ns_between"] = by_ns["cycles_between"];
  j["first_by_globaltimer"] = by_ns["first"];
  j["cap_reached"] = capped;
  j["max_spins"] = max_spins;
  j["region_cycles"] = run.region.cycles;
  return j;
}

// A point's fields from its checked launches: the order fields, what the kernel intends (side, form,
// which side lies lower) and whether the SASS agrees.
json point_fields(OrderForm form, int g, std::uint32_t group, bool in_then, const ProbeLayout& layout, const json& runs) {
  // bssy_backward and the loop kernels put the then arm on the taken side (above the branch).
  const bool then_taken = order_form_taken_below(form);
  const std::string intended_side = in_then != then_taken ? "fallthrough" : "taken";
  const std::string intended_form = order_form_reconvergence(form);
  const bool intended_below = order_form_taken_below(form);
  const auto side = group_side(layout, in_then);
  const auto sass_form = reconvergence_form(layout);
  const auto below = taken_below_fallthrough(layout);
  json j = side_order_fields(group, side ? side : intended_side, sass_form ? sass_form : intended_form,
                             combine_launches(runs));
  j["group_size"] = g;
  j["group_arm"] = in_then ? "then" : "else";
  j["intended_group_side"] = intended_side;
  j["intended_form"] = intended_form;
  j["order_form"] = order_form_name(form);
  j["intended_taken_below"] = intended_below;
  j["layout"] = to_json(layout);
  j["taken_below_matches_intent"] = below ? json(*below == intended_below) : json(nullptr);
  j["layout_verified"] = side.has_value();
  j["layout_matches_intent"] = side ? json(*side == intended_side) : json(nullptr);
  j["form_matches_intent"] = sass_form ? json(*sass_form == intended_form) : json(nullptr);
  j["cap_reached"] = any_run(runs, "cap_reached");
  j["completed"] = !j["cap_reached"].get<bool>();
  return j;
}

std::vector<PointSpec> plan(const OrderConfig& c, const DeviceRecord& dev) {
  std::vector<PointSpec> pts;
  for (OrderForm form : c.forms) {
    const ProbeLayout layout = probe_layout(dev, {{order_kernel_symbol(form)}, kOrderThenArm, kOrderElseArm});
    for (int g : c.group_sizes)
      for (GroupPosition pos : c.positions)
        for (bool in_then : {true, false}) {
          pts.push_back({{{"form", order_form_name(form)},
                          {"group_size", g},
                          {"group_position", group_position_name(pos)},
                          {"group_arm", in_then ? "then" : "else"}},
                         "",
                         [c, form, g, pos, in_then, layout] {
                           const std::uint32_t group = group_mask(g, pos);
                           const std::uint32_t then_mask = in_then ? group : ~group;
                           const auto one = [&] {
                             return check_run(run_order_probe(form, then_mask, c.caps), group, in_then);
                           };
                           return probe_point(c.runs.launches, one, [&](const json& runs, PointResult& r) {
                             r.raw = point_fields(form, g, group, in_then, layout, runs);
                             r.counters["cycles_between"] = r.raw["cycles_between"].get<double>();
                           });
                         },
                         nullptr, nullptr});
        }
  }
  return pts;
}

// Whether the point's taken side lies at the lower address: the SASS's answer, else the kernel's intent.
bool taken_below(const json& p) {
  if (p.contains("layout") && p["layout"].value("taken_below_fallthrough", json(nullptr)).is_boolean())
    return p["layout"]["taken_below_fallthrough"].get<bool>();
  return p.value("intended_taken_below", false);
}

// "g=16 low taken bssy"; " backward" when the taken side lies at the lower address; a kernel whose
// SASS form or layout is not the intended one is named too, so the kernels' points stay apart:
// "g=16 low taken bssy [warpsync kernel]".
std::string point_label(const json& p) {
  std::string s = "g=" + p["group_size"].dump() + " " + p["group_position"].get<std::string>() + " " +
                  p["group_side"].get<std::string>() + " " + p["form"].get<std::string>();
  if (taken_below(p)) s += " backward";
  if (p.value("form_matches_intent", json(nullptr)) == json(false) ||
      p.value("taken_below_matches_intent", json(nullptr)) == json(false))
    s += " [" + p.value("order_form", p["intended_form"].get<std::string>()) + " kernel]";
  return s;
}

std::vector<std::string> labels_where(const json& pts, const char* key, const json& value) {
  std::vector<std::string> v;
  for (const auto& p : pts)
    if (p.contains(key) && p[key] == value) v.push_back(point_label(p));
  return v;
}

// The points with a known first side as rule observations: of one SASS form ("" = every form) and,
// when `below` is given, only those whose taken side is (true) or is not (false) the lower address.
std::vector<OrderObservation> observations(const json& pts, const std::string& form,
                                           std::optional<bool> below = std::nullopt) {
  std::vector<OrderObservation> obs;
  for (const auto& p : pts) {
    if (p["first"].is_null() || (!form.empty() && p["form"] != form)) continue;
    if (below && taken_below(p) != *below) continue;
    obs.push_back({lanes_mask(p["group_lanes"]), 0xffffffffu, p["group_side"].get<std::string>(), p["first"].get<std::string>(), point_label(p),
                   taken_below(p), p.value("order_form", p["form"].get<std::string>())});
  }
  return obs;
}

json fit_points(const json& pts, const std::string& form, std::optional<bool> below = std::nullopt) {
  const auto obs = observations(pts, form, below);
  return rule_summary(fit_order_rule(obs), obs);
}

void finalize(const OrderConfig&, ResultRecord& r) {
  const json& pts = r.points_extra;
  r.summary.update(fit_points(pts, ""));
  json by_form = json::object();  // by the SASS's reconvergence form
  for (const char* f : {"bssy", "warpsync"}) by_form[f] = fit_points(pts, f)["rule"];
  r.summary["rule_by_form"] = by_form;
  // By layout: the fall-through side at the lower address (bssy, warpsync) or the taken side (bssy_backward,
  // bssy_loop, warpsync_loop).
  r.summary["rule_by_layout"] = json{{"fallthrough_below", fit_points(pts, "", false)["rule"]},
                                     {"taken_below", fit_points(pts, "", true)["rule"]}};
  // Ties: the fall-through side or the lower address? Undecided until a backward layout is measured.
  r.summary["ties"] = tie_verdict(observations(pts, ""));
  const auto inconsistent = labels_where(pts, "first_consistent", false);
  r.summary["first_consistent_across_launches"] = inconsistent.empty();
  r.summary["inconsistent_points"] = inconsistent;
  r.summary["unordered_points"] = labels_where(pts, "first", nullptr);
  const bool verified = labels_where(pts, "layout_verified", false).empty();
  r.summary["layout_verified"] = verified;
  if (!verified)  // the sides are the intended ones, not read from the SASS: the sentence says so
    r.summary["rule"] = "(fall-through sides not verified in the SASS) " + r.summary["rule"].get<std::string>();
  r.summary["layout_mismatches"] = labels_where(pts, "layout_matches_intent", false);
  r.summary["form_mismatches"] = labels_where(pts, "form_matches_intent", false);
  r.summary["taken_below_mismatches"] = labels_where(pts, "taken_below_matches_intent", false);
  r.summary["cap_reached"] = !labels_where(pts, "cap_reached", true).empty();
  std::vector<double> between;
  for (const auto& p : pts) between.push_back(p["cycles_between"].get<double>());
  if (!between.empty()) {
    const Summary s = summarize(between);
    r.summary["cycles_between_min"] = s.min;
    r.summary["cycles_between_median"] = s.median;
    r.summary["cycles_between_max"] = s.max;
  }
  r.summary["points"] = pts.size();
  // How many different experiments the points are: a rule sees a point as its form, its layout (which
  // side is at the lower address) and the lanes on the fall-through side (the group, or the rest when
  // the group is on the taken side), so a group on the taken side and its complement on the
  // fall-through side are one lane mask.
  std::set<std::tuple<std::string, bool, std::uint32_t>> masks;
  std::set<std::uint32_t> fallthrough_masks;
  int below = 0;
  for (const auto& p : pts) {
    const std::uint32_t group = lanes_mask(p["group_lanes"]);
    const std::uint32_t ft = p["group_side"] == "fallthrough" ? group : ~group;
    masks.insert({p.value("form", ""), taken_below(p), ft});
    fallthrough_masks.insert(ft);
    below += taken_below(p) ? 1 : 0;
  }
  r.summary["distinct_masks"] = masks.size();
  r.summary["distinct_fallthrough_masks"] = fallthrough_masks.size();
  r.summary["points_taken_below"] = below;
}

ExperimentDef<OrderConfig> order_experiment() {
  ExperimentDef<OrderConfig> d{
      "order", {}, "probe",
      "which side of a two-sided branch runs first: lane groups of 1..31 lanes on the fall-through and the taken "
      "side, two reconvergence forms, the taken side above or below the fall-through side; the fitted rule and "
      "where ties go",
      parse, to_json, nullptr, plan, finalize, [](const OrderConfig& c) { return probe_notes(c.runs); }};
  d.headline = {{"rule", "", "the fitted rule: which side of a two-sided branch runs first"},
                {"layout_verified", "", "every point's branch layout read from this binary's SASS"}};
  d.axes = {{{"form", AxisType::string, "", "", "the kernel: reconvergence form and layout (intended)", AxisLabel::bare},
             [](const OrderConfig& c) { return axis_names(c.forms, order_form_name); }},
            {{"group_size", AxisType::integer, "lanes", "--k", "lanes in the group", AxisLabel::keyed, "g"},
             [](const OrderConfig& c) { return json(c.group_sizes); }},
            {{"group_position", AxisType::string, "", "", "which lanes form the group", AxisLabel::bare},
             [](const OrderConfig& c) { return axis_names(c.positions, group_position_name); }},
            {{"group_arm", AxisType::string, "", "", "the branch arm the group takes (then or else)", AxisLabel::bare},
             [](const OrderConfig&) { return json{"then", "else"}; }}};
  SettingSpec groups{"--k", SettingType::list, "", "lanes", "group sizes, lanes 1..31 (default: the built set)"};
  groups.parse = [](const std::string& t) { return json(parse_k_list(t)); };
  d.settings = probe_settings();
  d.settings.push_back(groups);
  return d;
}

}  // namespace

DIVBENCH_REGISTER_EXPERIMENT(order_experiment);

}  // namespace divbench
