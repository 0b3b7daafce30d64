// What the harness prints: progress on stderr, results on stdout (console table, JSON or CSV).
#pragma once
#include <ostream>
#include <string>

#include "divbench/core/result.hpp"
#include "experiment.hpp"

namespace divbench {

class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet) {}
  void note(const std::string& line) const;
  // Said even under --quiet: what makes a result not what it seems (disturbed points, the verdict).
  void warn(const std::string& line) const;
  void point(std::size_t done, std::size_t total, const std::string& name, const PointResult& r) const;

 private:
  bool quiet_;
};

// --list: the experiments, or with format "json" every experiment's declaration (axes and settings,
// each setting with type, default, unit, help and valid values) and the harness's settings.
void print_experiment_list(std::ostream& os, const std::string& format);

// Console: a table of points and the fit; json: the document; csv: one row per point.
// The console (or JSON, CSV) report of one result; `headline`: the experiment's declared summary values,
// printed as "key = value unit  (help)" before the whole summary.
void report_result(std::ostream& os, const std::string& format, bool quiet, const ResultRecord& rec, const json& doc,
                   const std::vector<SummaryField>& headline = {});

// The CSV form of a result's points (header + rows); shared with tests.
std::string points_csv(const ResultRecord& rec);

}  // namespace divbench
