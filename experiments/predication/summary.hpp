// The predication sweep's summary from its points. Host-only; tested on synthetic points.
//
// Points carry extra {variant: "single"|"branchy"|"predicated", arms, iters_per_path (iterations
// of work), placement, loops_per_iteration (how often the work loop runs per iteration of work:
// branchy 2, others 1), loop (the work loop's SASS shape, loop_shape.hpp JSON, or {"available":
// false, "why"})}.
//
// Cost of one iteration of work, per variant, arms and placement, from two iteration counts:
//   c = (T(n2) - T(n1)) / (n2 - n1)
// which cancels every fixed cost (the timer, the arm loop's branch and barriers, the select).
// Summary keys:
//   ratio_branchy_over_single, ratio_predicated_over_single (2 arms): c over the single path's c at
//     the same placement, median over placements, each with _min and _max over placements;
//   predicated_differs_from_single_beyond_placement_spread: the two-arm predicated form's c over
//     the placements and the single path's do not overlap (the slowest placement of one is faster
//     than the fastest of the other); null with fewer than two placements of either;
//   predicated_vs_single: both ranges and the ratio range over every pairing of placements
//     [min_pred / max_single, max_pred / min_single] (it excludes 1 exactly when they differ);
//   variants[]: per variant and arm count c (median, min, max over placements), its ratio over
//     the single path, the loop's SASS instructions and stall sum per run of the loop, the
//     instructions per iteration of work (times loops_per_iteration) and cycles per instruction;
//   predicated_over_single_by_arms: {arms: median ratio};
//   loop_shapes_equal (null when a shape is missing) and loop_shape_problems: the equal-shape
//     rule (loop_shape.hpp) at every placement, from the recorded shapes;
//   per_iteration[]: every (variant, arms, placement) with its two iters_per_path and times.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "divbench/core/result.hpp"
#include "divbench/summary/loop_shape.hpp"

namespace divbench {

void add_predication_summary(ResultRecord& r);

// The predication rule at one placement: `single` the single path's loop, `predicated` arms -> the
// K-arm form's loop: every loop one path with one taken branch per iteration, the single path 4 FFMA,
// the K-arm form 4K FFMA and the same other instructions. One line per violation; empty when they hold.
std::vector<std::string> predication_shape_problems(const LoopShape& single, const std::map<int, LoopShape>& predicated);

}  // namespace divbench
