#include "divbench/summary/iteration_cost.hpp"

#include <map>

namespace divbench {

std::optional<IterationCost> iteration_cost(const std::vector<const TimedPoint*>& points) {
  std::map<double, const TimedPoint*> by_n;
  for (const TimedPoint* p : points) by_n[p->axes.at("n").get<double>()] = p;
  if (by_n.size() < 2) return std::nullopt;
  const auto& [n1, p1] = *by_n.begin();
  const auto& [n2, p2] = *by_n.rbegin();
  IterationCost c;
  c.n1 = n1;
  c.n2 = n2;
  c.t1 = p1->cycles.median;
  c.t2 = p2->cycles.median;
  c.c = (c.t2 - c.t1) / (n2 - n1);
  c.at_n2 = p2;
  return c;
}

}  // namespace divbench
