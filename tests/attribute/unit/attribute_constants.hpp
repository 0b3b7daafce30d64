// The loop-cost constants the attribute tests price hand-made functions with: B = 5 cycles per taken
// branch, W = 17 per variable-latency wait, fitted on sm_90 (test_attribution.cpp, test_time_model.cpp).
#pragma once
#include "divbench/model/loop_cost.hpp"

namespace divbench::sass::test {

inline model::CostConstants attribute_constants() {
  model::CostConstants c;
  c.sm = 90;
  c.taken_branch = 5;
  c.variable_latency = 17;
  return c;
}

}  // namespace divbench::sass::test
