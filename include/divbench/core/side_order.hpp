// Which side of a two-sided branch a warp entered first, in the fields every probe with such a
// branch records (docs/schemas.md, the order fields): group_lanes, group_position, group_side, form,
// first, cycles_between.
// The group is one side's lanes (a mask), the rest is the other side. A side's entry is the
// earliest clock64 its lanes recorded at their first instruction on that side.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

// One launch.
struct EntryOrder {
  std::optional<std::string> first;  // "group" | "rest"; nullopt when both sides entered at the same clock
  std::uint64_t cycles_between = 0;  // the later side's entry minus the earlier side's entry
  std::uint64_t group_spread = 0;    // latest minus earliest entry within the group's lanes
  std::uint64_t rest_spread = 0;     // the same within the rest
  bool interleaved = false;          // a lane of the earlier side entered after the later side's first lane
};

// enter_clk[lane] for the lanes of `lanes`; the group is group_mask & lanes, the rest the other
// lanes of `lanes`. Throws std::invalid_argument when either side is empty or enter_clk is short.
EntryOrder entry_order(const std::vector<std::uint64_t>& enter_clk, std::uint32_t group_mask,
                       std::uint32_t lanes = 0xffffffffu);
// {first, cycles_between, group_enter_spread, rest_enter_spread, interleaved}
json to_json(const EntryOrder& e);

// Several launches of one point, from their runs' JSON (each with "first" and "cycles_between").
struct LaunchOrders {
  std::optional<std::string> first;  // the majority of the runs' first (a tie: the earliest run's); nullopt: none ordered
  bool consistent = true;            // every run entered the same side first
  int group_first = 0, rest_first = 0, unordered = 0;  // runs with no order (equal entry clocks, or not measurable)
  double cycles_between = 0;         // median over the runs
  double cycles_between_min = 0, cycles_between_max = 0;
};
LaunchOrders combine_launches(const json& runs);

// The six fields. group_side ("fallthrough" | "taken") and form ("bssy" | "warpsync") are null
// where the binary's SASS could not say (or the probe has no such structure).
json side_order_fields(std::uint32_t group_mask, const std::optional<std::string>& group_side,
                       const std::optional<std::string>& form, const LaunchOrders& o);
// The keys a probe's summary repeats from such a point: the six fields and first_consistent.
const std::vector<std::string>& side_order_keys();
// Those of them a point has (points written before the fields existed have none).
json side_order_subset(const json& point);

}  // namespace divbench
