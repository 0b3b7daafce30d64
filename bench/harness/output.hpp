// Where results go, decided and reserved before any GPU work: --out FILE (one result) or --out DIR
// (DIR/<result>.json; a DIR ending in '/' that does not exist yet is created, its parent must
// exist). Every target file is reserved up front (a temporary file next to it), so an unwritable
// target fails with exit 2 before the run; targets are committed atomically as results finish, and
// on failure the temporaries, and a directory this run created and left empty, are removed.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

class OutputPlan {
 public:
  // `stems`: the result file stems, one per result in run order (with several devices, each stem
  // gets "_dev<N>"). An empty `out` writes nothing. UsageError for a bad target.
  OutputPlan(const std::string& out, const std::vector<std::string>& stems);
  ~OutputPlan();
  OutputPlan(const OutputPlan&) = delete;
  OutputPlan& operator=(const OutputPlan&) = delete;

  // Path a result stem goes to ("" when nothing is written).
  std::string path_of(const std::string& stem) const;
  // Write the result of `stem` (atomically); returns its path, "" when nothing is written.
  std::string commit(const std::string& stem, const json& doc);

 private:
  std::string created_dir_;  // a directory this plan created (removed again if left empty)
  std::map<std::string, std::unique_ptr<ReservedFile>> files_;
};

}  // namespace divbench
