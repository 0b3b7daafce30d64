#include "output.hpp"

#include <filesystem>

#include "divbench/core/errors.hpp"

namespace divbench {
namespace fs = std::filesystem;

OutputPlan::OutputPlan(const std::string& out, const std::vector<std::string>& stems) {
  if (out.empty()) return;
  std::error_code ec;
  const bool dir = out.back() == '/' || fs::is_directory(out, ec);
  if (!dir && stems.size() > 1)
    throw UsageError("--out " + out + ": " + std::to_string(stems.size()) +
                     " results would be written; give a directory (ending in '/' to create it)");
  try {
    if (dir) {
      fs::path d = fs::path(out).lexically_normal();
      if (!d.has_filename() && d.has_parent_path()) d = d.parent_path();  // "results/a100/" -> "results/a100"
      if (!fs::is_directory(d, ec)) {
        const fs::path parent = d.has_parent_path() ? d.parent_path() : fs::path(".");
        if (!fs::is_directory(parent, ec))
          throw UsageError("--out " + out + ": parent directory '" + parent.string() + "' does not exist");
        if (!fs::create_directory(d, ec) || ec)
          throw UsageError("--out " + out + ": cannot create directory: " + ec.message());
        created_dir_ = d.string();
      }
      for (const auto& s : stems) files_[s] = std::make_unique<ReservedFile>((d / (s + ".json")).string());
    } else {
      files_[stems.at(0)] = std::make_unique<ReservedFile>(out);
    }
  } catch (...) {
    files_.clear();
    if (!created_dir_.empty()) fs::remove(created_dir_, ec);
    throw;
  }
}

OutputPlan::~OutputPlan() {
  files_.clear();  // removes uncommitted temporaries
  std::error_code ec;
  if (!created_dir_.empty() && fs::is_empty(created_dir_, ec)) fs::remove(created_dir_, ec);
}

std::string OutputPlan::path_of(const std::string& stem) const {
  const auto it = files_.find(stem);
  return it == files_.end() ? std::string() : it->second->path();
}

std::string OutputPlan::commit(const std::string& stem, const json& doc) {
  const auto it = files_.find(stem);
  if (it == files_.end()) return {};
  it->second->commit(json_text(doc));
  const std::string path = it->second->path();
  files_.erase(it);
  return path;
}

}  // namespace divbench
