#include "divbench/core/samples.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace divbench {

TimedPoint to_timed_point(const std::vector<RegionSample>& samples, int launches, std::size_t per_launch, double k,
                          double wall_ms, Reduction reduction, ThrottleRule rule) {
  if (launches < 1 || per_launch < 1 || samples.size() != static_cast<std::size_t>(launches) * per_launch)
    throw std::invalid_argument("to_timed_point: sample count does not match launches * per_launch");
  // Units of the statistics: every sample, or one median per launch.
  std::vector<double> cycles, ns;
  if (reduction == Reduction::each_sample) {
    for (const auto& s : samples) {
      cycles.push_back(static_cast<double>(s.cycles));
      ns.push_back(static_cast<double>(s.ns));
    }
  } else {
    std::vector<double> c(per_launch), t(per_launch);
    for (int i = 0; i < launches; ++i) {
      for (std::size_t w = 0; w < per_launch; ++w) {
        const auto& s = samples[static_cast<std::size_t>(i) * per_launch + w];
        c[w] = static_cast<double>(s.cycles);
        t[w] = static_cast<double>(s.ns);
      }
      cycles.push_back(median(c));
      ns.push_back(median(t));
    }
  }
  std::vector<double> clock(cycles.size());
  for (std::size_t i = 0; i < cycles.size(); ++i) clock[i] = ns[i] > 0 ? cycles[i] / ns[i] * 1000.0 : 0.0;

  TimedPoint p;
  p.k = k;
  p.cycles = summarize(cycles);
  p.launches = static_cast<std::size_t>(launches);
  p.wall_ms = wall_ms;
  const double med_ns = median(ns);
  p.clock_mhz = med_ns > 0 ? p.cycles.median / med_ns * 1000.0 : 0.0;
  const auto [lo, hi] = std::minmax_element(clock.begin(), clock.end());
  const double clock_med = median(clock);
  p.clock_spread = clock_med > 0 ? (*hi - *lo) / clock_med : 0.0;
  // A spread the timer's granularity can explain is not throttling.
  const double quantum = med_ns > 0 ? 2.0 * rule.timer_quantum_ns / med_ns : 0.0;
  p.throttled = p.clock_spread > std::max(rule.max_spread, quantum);
  // Region time the GPU spent: launches run one after another, a launch's warps side by side.
  double sum_cycles = 0;
  for (int i = 0; i < launches; ++i) {
    double longest = 0;
    for (std::size_t w = 0; w < per_launch; ++w)
      longest = std::max(longest, static_cast<double>(samples[static_cast<std::size_t>(i) * per_launch + w].cycles));
    sum_cycles += longest;
  }
  p.region_ms = p.clock_mhz > 0 ? sum_cycles / (p.clock_mhz * 1e3) : 0.0;
  p.sample_cycles.reserve(samples.size());
  p.sample_smid.reserve(samples.size());
  for (const auto& s : samples) {
    p.sample_cycles.push_back(s.cycles);
    p.sample_smid.push_back(s.smid);
  }
  return p;
}

void apply_clock_bracket(TimedPoint& p, double before_mhz, double after_mhz, ThrottleRule rule) {
  p.clock_before_mhz = before_mhz;
  p.clock_after_mhz = after_mhz;
  if (before_mhz > 0 && after_mhz > 0 && std::fabs(after_mhz - before_mhz) / before_mhz > rule.max_spread)
    p.throttled = true;
}

std::size_t launches_with_shared_sm(const std::vector<RegionSample>& samples, int launches, std::size_t per_launch) {
  std::size_t shared = 0;
  for (int i = 0; i < launches; ++i) {
    std::set<std::uint32_t> sms;
    for (std::size_t w = 0; w < per_launch; ++w) sms.insert(samples[static_cast<std::size_t>(i) * per_launch + w].smid);
    if (sms.size() != per_launch) ++shared;
  }
  return shared;
}

}  // namespace divbench
