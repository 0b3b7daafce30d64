// Which side of a two-sided branch a warp entered first (side_order.hpp).
#include "divbench/core/side_order.hpp"

#include <algorithm>
#include <stdexcept>

#include "divbench/core/lane_group.hpp"
#include "divbench/core/stats.hpp"

namespace divbench {
namespace {
json or_null(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }
}  // namespace

EntryOrder entry_order(const std::vector<std::uint64_t>& enter_clk, std::uint32_t group_mask, std::uint32_t lanes) {
  std::uint64_t g_min = ~0ull, g_max = 0, r_min = ~0ull, r_max = 0;
  int g_n = 0, r_n = 0;
  for (int lane : mask_lanes(lanes)) {
    if (static_cast<std::size_t>(lane) >= enter_clk.size())
      throw std::invalid_argument("entry_order: no clock for lane " + std::to_string(lane));
    const std::uint64_t c = enter_clk[lane];
    if (mask_has_lane(group_mask, lane)) {
      g_min = std::min(g_min, c), g_max = std::max(g_max, c), ++g_n;
    } else {
      r_min = std::min(r_min, c), r_max = std::max(r_max, c), ++r_n;
    }
  }
  if (g_n == 0 || r_n == 0) throw std::invalid_argument("entry_order: one side of the branch has no lanes");
  EntryOrder e;
  e.group_spread = g_max - g_min;
  e.rest_spread = r_max - r_min;
  if (g_min < r_min) {
    e.first = "group";
    e.cycles_between = r_min - g_min;
    e.interleaved = g_max > r_min;
  } else if (r_min < g_min) {
    e.first = "rest";
    e.cycles_between = g_min - r_min;
    e.interleaved = r_max > g_min;
  } else {
    e.interleaved = true;
  }
  return e;
}

json to_json(const EntryOrder& e) {
  return json{{"first", or_null(e.first)},
              {"cycles_between", e.cycles_between},
              {"group_enter_spread", e.group_spread},
              {"rest_enter_spread", e.rest_spread},
              {"interleaved", e.interleaved}};
}

LaunchOrders combine_launches(const json& runs) {
  LaunchOrders o;
  std::vector<double> between;
  std::optional<std::string> earliest;
  for (const auto& r : runs) {
    const json& f = r.at("first");
    if (f.is_null()) {
      ++o.unordered;
    } else {
      const std::string s = f.get<std::string>();
      (s == "group" ? o.group_first : o.rest_first) += 1;
      if (!earliest) earliest = s;
    }
    between.push_back(r.at("cycles_between").get<double>());
  }
  if (between.empty()) throw std::invalid_argument("combine_launches: no runs");
  if (o.group_first > o.rest_first) o.first = "group";
  else if (o.rest_first > o.group_first) o.first = "rest";
  else o.first = earliest;  // a tie (or no ordered run: nullopt)
  const int kinds = (o.group_first > 0) + (o.rest_first > 0) + (o.unordered > 0);
  o.consistent = kinds <= 1;
  const Summary s = summarize(between);
  o.cycles_between = s.median;
  o.cycles_between_min = s.min;
  o.cycles_between_max = s.max;
  return o;
}

json side_order_fields(std::uint32_t group_mask, const std::optional<std::string>& group_side,
                       const std::optional<std::string>& form, const LaunchOrders& o) {
  return json{{"group_lanes", mask_lanes(group_mask)},
              {"group_position", classify_group_position(group_mask)},
              {"group_side", or_null(group_side)},
              {"form", or_null(form)},
              {"first", or_null(o.first)},
              {"cycles_between", o.cycles_between},
              {"cycles_between_min", o.cycles_between_min},
              {"cycles_between_max", o.cycles_between_max},
              {"first_consistent", o.consistent},
              {"first_counts", json{{"group", o.group_first}, {"rest", o.rest_first}, {"unordered", o.unordered}}}};
}

const std::vector<std::string>& side_order_keys() {
  static const std::vector<std::string> v{"group_lanes", "group_position", "group_side",      "form",
                                          "first",       "cycles_between", "first_consistent"};
  return v;
}

json side_order_subset(const json& point) {
  json j = json::object();
  for (const auto& k : side_order_keys())
    if (point.contains(k)) j[k] = point[k];
  return j;
}

}  // namespace divbench
