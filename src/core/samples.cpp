#include "divbench/core/samples.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace divbench {

TimedPoint to_timed_point(const std::vector<RegionSample>& samples, int reps, std::size_t per_launch, double k,
                          double wall_ms, ThrottleRule rule) {
  if (reps < 1 || per_launch < 1 || samples.size() != static_cast<std::size_t>(reps) * per_launch)
    throw std::invalid_argument("to_timed_point: sample count does not match reps * per_launch");
  std::vector<double> cycles(reps), ns(reps), clock(reps);
  std::vector<double> c(per_launch), t(per_launch);
  for (int i = 0; i < reps; ++i) {
    for (std::size_t w = 0; w < per_launch; ++w) {
      const auto& s = samples[static_cast<std::size_t>(i) * per_launch + w];
      c[w] = static_cast<double>(s.cycles);
      t[w] = static_cast<double>(s.ns);
    }
    cycles[i] = median(c);
    ns[i] = median(t);
    clock[i] = ns[i] > 0 ? cycles[i] / ns[i] * 1000.0 : 0.0;
  }
  TimedPoint p;
  p.k = k;
  p.cycles = summarize(cycles);
  p.launches = static_cast<std::size_t>(reps);
  p.wall_ms = wall_ms;
  const double med_ns = median(ns);
  p.clock_mhz = med_ns > 0 ? p.cycles.median / med_ns * 1000.0 : 0.0;
  const auto [lo, hi] = std::minmax_element(clock.begin(), clock.end());
  const double clock_med = median(clock);
  p.clock_spread = clock_med > 0 ? (*hi - *lo) / clock_med : 0.0;
  // A spread the timer's granularity can explain is not throttling.
  const double quantum = med_ns > 0 ? 2.0 * rule.timer_quantum_ns / med_ns : 0.0;
  p.throttled = p.clock_spread > std::max(rule.max_spread, quantum);
  double sum_cycles = 0;
  for (double x : cycles) sum_cycles += x;
  p.region_ms = p.clock_mhz > 0 ? sum_cycles / (p.clock_mhz * 1e3) : 0.0;
  return p;
}

void apply_clock_bracket(TimedPoint& p, double before_mhz, double after_mhz, ThrottleRule rule) {
  p.clock_before_mhz = before_mhz;
  p.clock_after_mhz = after_mhz;
  if (before_mhz > 0 && after_mhz > 0 && std::fabs(after_mhz - before_mhz) / before_mhz > rule.max_spread)
    p.throttled = true;
}

}  // namespace divbench
