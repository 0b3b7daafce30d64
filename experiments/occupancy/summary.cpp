#include "experiments/occupancy/summary.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "divbench/summary/spread.hpp"

namespace divbench {
namespace {

// Annotates one point. A kernel whose event time is not above the empty kernel's (or with no SM
// clock) gets no corrected time and is not steady: its shape gets no penalty.
void annotate(TimedPoint& p, double min_share) {
  // (Values, not references: inserting into p.extra below moves its elements.)
  const double waves = p.extra.at("residency").at("waves").get<double>();
  const double kernel = p.extra.at("kernel_ms").at("median").get<double>();
  const double overhead = p.extra.at("launch_overhead_ms").at("median").get<double>();
  const double corrected = kernel - overhead;
  const double region_ms = p.clock_mhz > 0 ? p.cycles.median / (p.clock_mhz * 1e3) : 0.0;
  p.extra["region_median_ms"] = region_ms;
  if (!(corrected > 0) || !(region_ms > 0)) {
    p.extra["kernel_ms_corrected"] = nullptr;
    p.extra["region_share"] = nullptr;
    p.extra["steady_state"] = false;
    p.extra["why_not_corrected"] = "the kernel's event time is not above the empty kernel's, or no SM clock";
    return;
  }
  const double share = region_ms * waves / corrected;
  p.extra["kernel_ms_corrected"] = json{{"median", corrected}};
  p.extra["region_share"] = share;
  p.extra["steady_state"] = share >= min_share;
}

bool same_shape(const json& a, const json& b) {
  return a["series"] == b["series"] && a["warps_per_sm"] == b["warps_per_sm"] && a["waves"] == b["waves"];
}

double corrected_ms(const TimedPoint& p) { return p.extra["kernel_ms_corrected"]["median"].get<double>(); }

struct Range {
  double lo = INFINITY, hi = -INFINITY;
  void add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

void put(json& s, const std::string& key, const Range& r) {
  s[key + "_min"] = r.empty() ? json(nullptr) : json(r.lo);
  s[key + "_max"] = r.empty() ? json(nullptr) : json(r.hi);
}

}  // namespace

void add_occupancy_summary(ResultRecord& r, double min_share) {
  std::vector<double> overheads;
  for (auto& p : r.points) {
    annotate(p, min_share);
    overheads.push_back(p.extra["launch_overhead_ms"]["median"].get<double>());
  }
  json series = json::array(), left_out = json::array();
  Range penalty, raw, region, region_steady, bounded;
  int overcorrected = 0;
  for (const auto& lo : r.points) {
    if (lo.k != 1) continue;
    const json& rl = lo.extra["residency"];
    for (const auto& hi : r.points) {
      if (hi.k == 1 || !same_shape(hi.extra["residency"], rl)) continue;
      const int w = rl["warps_per_sm"].get<int>(), waves = rl["waves"].get<int>();
      if (hi.extra["kernel_ms_corrected"].is_null() || lo.extra["kernel_ms_corrected"].is_null()) {
        left_out.push_back(json{{"series", rl["series"]}, {"warps_per_sm", w}, {"waves", waves}, {"k", hi.k},
                                {"why", "no corrected kernel time: the kernel's event time is not above the empty kernel's"}});
        continue;
      }
      const double kp = corrected_ms(hi) / corrected_ms(lo);
      const double kr = hi.extra["kernel_ms"]["median"].get<double>() / lo.extra["kernel_ms"]["median"].get<double>();
      const double rp = hi.cycles.median / lo.cycles.median;
      const bool steady = lo.extra["steady_state"].get<bool>() && hi.extra["steady_state"].get<bool>();
      // The bounded correction: T(k) = k*s + c at this shape, so the two event times imply the fixed
      // cost c_hat = (K*T(1) - T(K)) / (K - 1), the intercept of kernel time against the work (k),
      // measured in the same run. Subtracting no more than that (min(empty kernel, c_hat), not below
      // 0) keeps the penalty at or under K, which subtracting the empty kernel alone does not.
      const double K = hi.k;
      const double t1 = lo.extra["kernel_ms"]["median"].get<double>(), tk = hi.extra["kernel_ms"]["median"].get<double>();
      const double fixed = (K * t1 - tk) / (K - 1);
      const double empty = 0.5 * (lo.extra["launch_overhead_ms"]["median"].get<double>() +
                                  hi.extra["launch_overhead_ms"]["median"].get<double>());
      const double subtracted = std::max(0.0, std::min(empty, fixed));
      const double kb = (tk - subtracted) / (t1 - subtracted);
      // Where the empty kernel exceeds c_hat the bounded correction subtracts c_hat itself, and the
      // ratio is K by construction: no measurement of the penalty, so none is given (null).
      const bool informative = !(empty > fixed);
      if (informative) bounded.add(kb);
      else ++overcorrected;
      penalty.add(kp);
      raw.add(kr);
      region.add(rp);
      if (steady) region_steady.add(rp);
      series.push_back(json{{"series", rl["series"]},
                            {"warps_per_sm", w},
                            {"waves", waves},
                            {"warps_per_sm_launched", w * waves},
                            {"total_warps", rl["total_warps"]},
                            {"k", hi.k},
                            {"penalty", kp},
                            {"kernel_penalty_raw", kr},
                            {"region_penalty", rp},
                            {"penalty_bounded", informative ? json(kb) : json(nullptr)},
                            {"correction_informative", informative},
                            {"why_uninformative",
                             informative ? json(nullptr)
                                         : json("the empty kernel's event time exceeds the fixed cost c_hat that this "
                                                "shape's own two event times imply; subtracting at most c_hat gives K "
                                                "by construction")},
                            {"fixed_cost_ms", fixed},
                            {"fixed_cost_subtracted_ms", subtracted},
                            {"empty_kernel_exceeds_fixed_cost", empty > fixed},
                            {"steady_state", steady},
                            {"region_share_k1", lo.extra["region_share"]},
                            {"region_share_k", hi.extra["region_share"]},
                            {"kernel_ms_corrected_k1", corrected_ms(lo)},
                            {"kernel_ms_corrected_k", corrected_ms(hi)},
                            {"launch_overhead_ms_k1", lo.extra["launch_overhead_ms"]["median"]},
                            {"launch_overhead_ms_k", hi.extra["launch_overhead_ms"]["median"]},
                            {"achieved_occupancy", rl["achieved_occupancy"]},
                            {"sms_used", rl["sms_used"]},
                            {"every_sm_at_target", rl["every_sm_at_target"]}});
    }
  }
  if (series.empty() && left_out.empty()) return;
  json& s = r.summary;
  if (!penalty.empty()) {
    s["penalty_min"] = penalty.lo;
    s["penalty_max"] = penalty.hi;
  }
  put(s, "kernel_penalty_raw", raw);
  put(s, "penalty_bounded", bounded);
  s["shapes_empty_kernel_exceeds_fixed_cost"] = overcorrected;
  put(s, "region_penalty", region);
  put(s, "region_penalty_steady", region_steady);
  std::ostringstream test;
  test << "median warp region time x waves >= " << min_share
       << " x (kernel event time - empty kernel event time, same launch shape)";
  s["steady_state_test"] = test.str();
  put_spread(s, "launch_overhead_ms", overheads);
  if (!series.empty()) s["series"] = series;
  if (!left_out.empty()) s["shapes_without_penalty"] = left_out;
}

}  // namespace divbench
