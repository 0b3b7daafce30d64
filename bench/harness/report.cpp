#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "common_settings.hpp"

namespace divbench {

void Progress::note(const std::string& line) const {
  if (!quiet_) std::fprintf(stderr, "[divbench] %s\n", line.c_str());
}

void Progress::warn(const std::string& line) const { std::fprintf(stderr, "[divbench] %s\n", line.c_str()); }

void Progress::point(std::size_t done, std::size_t total, const std::string& name, const PointResult& r) const {
  // A warp-per-SM launch whose warps shared an SM is said even under --quiet: its samples are not
  // what the mode promises (another context held SMs, or the scheduler placed two blocks together).
  const int shared = r.timed ? r.point.extra.value("launches_with_shared_sm", 0) : 0;
  if (shared > 0)
    warn("warning: " + name + ": " + std::to_string(shared) + " launch(es) ran two warps on one SM (warp-per-sm sampling)");
  if (quiet_) return;
  if (r.timed)
    std::fprintf(stderr, "[divbench] (%zu/%zu) %s: median %.0f cycles, cv %.2e, %.0f MHz%s\n", done, total,
                 name.c_str(), r.point.cycles.median, r.point.cycles.cv, r.point.clock_mhz,
                 r.point.throttled ? "  [THROTTLED]" : "");
  else
    std::fprintf(stderr, "[divbench] (%zu/%zu) %s: done\n", done, total, name.c_str());
}

void print_experiment_list(std::ostream& os, const std::string& format) {
  if (format == "json") {
    json list{{"schema", "divbench.experiments/1"}, {"harness_settings", json::array()}, {"experiments", json::array()}};
    for (const auto& s : harness_settings()) list["harness_settings"].push_back(setting_json(s));
    for (const auto& e : experiment_registry()) {
      json j{{"name", e.name}, {"aliases", e.aliases}, {"kind", e.kind}, {"help", e.help}, {"in_all", e.in_all},
             {"axes", json::array()}, {"settings", json::array()}};
      for (const auto& a : e.axes)
        j["axes"].push_back({{"name", a.name}, {"type", axis_type_name(a.type)}, {"unit", a.unit},
                             {"option", a.option.empty() ? json(nullptr) : json(a.option)}, {"help", a.help}});
      for (const auto& s : e.settings) j["settings"].push_back(setting_json(s));
      j["headline"] = json::array();
      for (const auto& f : e.headline) j["headline"].push_back({{"key", f.key}, {"unit", f.unit}, {"help", f.help}});
      list["experiments"].push_back(j);
    }
    os << list.dump(2) << "\n";
    return;
  }
  for (const char* kind : {"sweep", "probe"}) {
    os << kind << "s:\n";
    for (const auto& e : experiment_registry())
      if (e.kind == kind) {
        std::string names = e.name;
        for (const auto& a : e.aliases) names += ", " + a;
        os << "  " << std::left << std::setw(38) << names << e.help << (e.in_all ? "" : "  [not in --all]") << "\n";
      }
  }
}

namespace {

// The columns that name a point: its experiment's declared axes, in declaration order (point.axes is
// filled in that order), every axis any point has.
std::vector<std::string> axis_columns(const ResultRecord& rec) {
  std::vector<std::string> names;
  for (const auto& p : rec.points)
    for (const auto& [name, v] : p.axes.items())
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

// A coordinate as the console and the CSV show it: a string bare, a number as JSON writes it.
std::string axis_text(const json& axes, const std::string& name) {
  if (!axes.contains(name)) return "";
  const json& v = axes[name];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::string points_csv(const ResultRecord& rec) {
  std::ostringstream os;
  os << std::setprecision(10);
  const std::vector<std::string> axes = axis_columns(rec);
  os << "experiment,device";
  for (const auto& a : axes) os << ',' << a;
  os << ",median_cycles,min_cycles,max_cycles,cv,launches,throttled,clock_mhz,samples,disturbed,attempts\n";
  for (const auto& p : rec.points) {
    os << rec.experiment << ',' << '"' << rec.device.name << '"';
    for (const auto& a : axes) os << ',' << axis_text(p.axes, a);
    os << ',' << p.cycles.median << ',' << p.cycles.min << ',' << p.cycles.max << ',' << p.cycles.cv << ','
       << p.launches << ',' << (p.throttled ? "true" : "false") << ',' << p.clock_mhz << ',' << p.cycles.n << ','
       << (p.extra.value("disturbed", false) ? "true" : "false") << ',' << p.extra.value("attempts", 1) << '\n';
  }
  return os.str();
}

void report_result(std::ostream& os, const std::string& format, bool quiet, const ResultRecord& rec, const json& doc,
                   const std::vector<SummaryField>& headline) {
  if (format == "json") {
    os << json_text(doc);
    return;
  }
  if (format == "csv") {
    os << points_csv(rec);
    return;
  }
  if (quiet) return;
  os << "\n== " << rec.experiment << " on " << rec.device.name << " (cc " << rec.device.cc << ", "
     << rec.device.sm_count << " SMs)\n";
  // One column per declared axis (as wide as its name or widest value), then the measurement.
  const std::vector<std::string> axes = axis_columns(rec);
  std::vector<int> width;
  for (const auto& a : axes) {
    std::size_t w = a.size();
    for (const auto& p : rec.points) w = std::max(w, axis_text(p.axes, a).size());
    width.push_back(static_cast<int>(w) + 2);
  }
  if (!rec.points.empty()) {
    for (std::size_t j = 0; j < axes.size(); ++j) os << std::right << std::setw(width[j]) << axes[j];
    os << std::right << std::setw(16) << "median cyc" << std::setw(16) << "min cyc"
       << std::setw(16) << "max cyc" << std::setw(11) << "cv" << std::setw(8) << "n" << std::setw(9) << "launches"
       << std::setw(9) << "MHz";
    if (rec.has_fit) os << std::setw(12) << "resid %";
    os << "\n";
    for (std::size_t i = 0; i < rec.points.size(); ++i) {
      const auto& p = rec.points[i];
      for (std::size_t j = 0; j < axes.size(); ++j) os << std::setw(width[j]) << axis_text(p.axes, axes[j]);
      os << std::fixed << std::setprecision(0) << std::setw(16) << p.cycles.median
         << std::setw(16) << p.cycles.min << std::setw(16) << p.cycles.max << std::scientific << std::setprecision(2)
         << std::setw(11) << p.cycles.cv << std::setw(8) << p.cycles.n << std::setw(9) << p.launches << std::fixed
         << std::setprecision(0)
         << std::setw(9) << p.clock_mhz;
      if (rec.has_fit && i < rec.fit.residuals.size())
        os << std::setw(12) << std::setprecision(4) << 100.0 * rec.fit.residuals[i] / p.cycles.median;
      if (p.throttled) os << "  THROTTLED";
      if (p.extra.value("disturbed", false)) os << "  DISTURBED";
      os << "\n";
    }
    os << std::defaultfloat;
  }
  if (rec.has_fit) {
    const auto& f = rec.fit;
    os << std::setprecision(6) << "fit T(k) = s*k + c: s = " << f.s << " cycles/path, c = " << f.c
       << ", R^2 = " << std::setprecision(12) << f.r2 << ", max |residual| = " << std::setprecision(3)
       << 100.0 * f.max_rel_residual << "%\n";
    if (rec.summary.contains("s_layout_spread_rel")) {
      const json& sm = rec.summary;
      os << std::setprecision(6) << "s over " << sm["layout_placements"].get<int>()
         << " code placement(s): median " << sm["s_cycles_per_path"].get<double>() << ", min "
         << sm["s_layout_min"].get<double>() << ", max " << sm["s_layout_max"].get<double>() << ", spread "
         << std::setprecision(3) << 100.0 * sm["s_layout_spread_rel"].get<double>() << "% (beside max cv "
         << sm.value("max_cv", 0.0) << ")\n";
    }
    os << "k^2 term: q = " << f.quadratic.q << " (t = " << f.quadratic.t_stat << ", p = " << f.quadratic.p_value
       << ", share at max k " << 100.0 * f.quadratic.rel_effect << "%) -> "
       << (f.quadratic.superlinear ? "SUPER-LINEAR" : "no super-linear cost") << "\n";
  }
  for (const auto& f : headline) {
    if (!rec.summary.contains(f.key)) continue;
    const json& v = rec.summary[f.key];
    os << "  " << f.key << " = " << (v.is_string() ? v.get<std::string>() : v.dump()) << (f.unit.empty() ? "" : " " + f.unit)
       << "  (" << f.help << ")\n";
  }
  if (!rec.summary.empty()) os << "summary: " << rec.summary.dump() << "\n";
  for (const auto& raw : rec.points_extra) os << "point: " << raw.dump() << "\n";
  if (rec.quality.is_object()) {
    const json& q = rec.quality;
    if (q.value("trustworthy", false))
      os << "verdict: trustworthy (" << q.value("points_remeasured", 0) << " point(s) re-measured)\n";
    else
      os << "verdict: NOT TRUSTWORTHY: " << q.value("disturbed_points", 0) << " disturbed point(s), "
         << q["reasons"].size() << " reason(s) (stderr names them; exit 4)\n";
  }
}

}  // namespace divbench
