// The measurement-quality part of a sweep's summary: the worst coefficient of variation over its
// points and whether the SM clock moved during any of them.
#pragma once
#include <algorithm>

#include "divbench/core/result.hpp"

namespace divbench {

inline void add_quality_summary(ResultRecord& r) {
  bool throttled = false;
  double max_cv = 0;
  for (const auto& p : r.points) {
    throttled = throttled || p.throttled;
    max_cv = std::max(max_cv, p.cycles.cv);
  }
  r.summary["max_cv"] = max_cv;
  r.summary["any_throttled"] = throttled;
}

}  // namespace divbench
