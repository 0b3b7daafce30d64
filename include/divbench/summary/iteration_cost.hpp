// The cost of one iteration of a loop from its time at two iteration counts: c = (T(n2) - T(n1)) /
// (n2 - n1), the fixed costs (launch, clock reads, the code around the loop) cancel in the difference.
// The predication sweep (per variant and placement) and the validation-loop sweep (per body and
// placement) measure their loops this way. Host-only.
#pragma once
#include <optional>
#include <vector>

#include "divbench/core/result.hpp"

namespace divbench {

struct IterationCost {
  double n1 = 0, n2 = 0;  // the smallest and the largest iteration count (axis "n")
  double t1 = 0, t2 = 0;  // their median cycles
  double c = 0;           // cycles per iteration
  const TimedPoint* at_n2 = nullptr;
};

// From the points of one loop (each with axis "n"); none when fewer than two distinct n.
std::optional<IterationCost> iteration_cost(const std::vector<const TimedPoint*>& points);

}  // namespace divbench
