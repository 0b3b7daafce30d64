#include "measure.hpp"

#include <algorithm>

#include "divbench/core/run_conditions.hpp"
#include "divbench/core/samples.hpp"
#include "divbench/cuda/clock.hpp"
#include "divbench/cuda/nvml.hpp"

namespace divbench {
namespace {

// The calibration launch right before and after each point (a clock64 spin this long): long enough
// that %globaltimer's granularity moves the clock by well under the 2% throttling threshold.
constexpr int kClockBracketSpinUs = 250;

PointResult measure_once(const PointSpec& spec, const ResultRecord& rec) {
  const double before = measure_sm_clock_mhz(kClockBracketSpinUs);
  const RunConditions cond_before = read_run_conditions(rec.device.pci_bus_id);
  PointResult r = spec.run();
  const RunConditions cond_after = read_run_conditions(rec.device.pci_bus_id);
  const double after = measure_sm_clock_mhz(kClockBracketSpinUs);
  if (r.timed) apply_clock_bracket(r.point, before, after);
  if (record_conditions(r.timed ? r.point.extra : r.raw, cond_before, cond_after)) {
    if (r.timed) r.point.throttled = true;
    else r.raw["throttled"] = true;
  }
  return r;
}

PointVerdict judge(const PointResult& r, const ResultRecord& rec, const RetryPolicy& policy) {
  if (!r.timed) return judge_raw_point(r.raw);
  return judge_timed_point(to_json(r.point), rec.config, *policy.criterion, policy.noise_factor);
}

json attempt_summary(const PointResult& r, const PointVerdict& v, int attempt) {
  json a{{"attempt", attempt}, {"reasons", v.reasons}};
  if (r.timed) {
    a["median_cycles"] = r.point.cycles.median;
    a["min_cycles"] = r.point.cycles.min;
    a["max_cycles"] = r.point.cycles.max;
  }
  return a;
}

}  // namespace

PointResult measure_point(const PointSpec& spec, const ResultRecord& rec, const RetryPolicy& policy,
                          const std::string& name, const std::function<void(const std::string&)>& warn,
                          const std::function<bool()>& stop) {
  json earlier = json::array();
  for (int attempt = 1;; ++attempt) {
    PointResult r = measure_once(spec, rec);
    const PointVerdict v = judge(r, rec, policy);
    if (v.disturbed() && attempt < policy.max_attempts && !stop()) {
      earlier.push_back(attempt_summary(r, v, attempt));
      warn(name + ": disturbed (" + v.reasons.front() + "); measuring again, attempt " + std::to_string(attempt + 1) +
           " of " + std::to_string(policy.max_attempts));
      continue;
    }
    json& out = r.timed ? r.point.extra : r.raw;
    out["disturbed"] = v.disturbed();
    out["disturbed_reasons"] = v.reasons;
    out["attempts"] = attempt;
    if (!earlier.empty()) out["earlier_attempts"] = earlier;
    if (!v.disagreeing_sms.empty()) out["disagreeing_sms"] = v.disagreeing_sms;
    return r;
  }
}

json add_verdict(ResultRecord& rec, const json& doc, const RetryPolicy& policy) {
  json q = judge_result(doc, *policy.criterion);
  int remeasured = 0;
  json notes = q.contains("notes") ? q["notes"] : json::array();  // judge_result's (idle co-tenants) first
  std::string no_process_check;
  for (const auto& p : doc.at("points")) {
    if (p.value("attempts", 1) > 1) ++remeasured;
    if (!p.contains("conditions")) continue;
    const json& c = p["conditions"];
    if (!c.value("available", false)) {
      no_process_check = "NVML not read (" + c.value("reason", std::string("?")) + ")";
    } else if (c.contains("processes") && c["processes"].contains("before") &&
               !c["processes"]["before"].value("read", false)) {
      no_process_check = c["processes"]["before"].value("reason", std::string("processes not listed"));
    }
  }
  if (!no_process_check.empty())
    notes.push_back("co-tenant processes not checked: " + no_process_check + "; the noise criterion still applies");
  q["points_remeasured"] = remeasured;
  q["notes"] = notes;
  q["criterion"] = json{{"source", "data/noise_criterion.json"},
                        {"noise_factor", policy.noise_factor},
                        {"max_attempts", policy.max_attempts}};
  rec.quality = q;
  return q;
}

}  // namespace divbench
