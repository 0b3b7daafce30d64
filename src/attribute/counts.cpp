// Reading and merging the injection library's per-instruction counts (attribute/counts.hpp).
#include "divbench/attribute/counts.hpp"

#include <algorithm>
#include <filesystem>

#include "divbench/core/errors.hpp"

namespace divbench::attribute {

namespace fs = std::filesystem;

PcCounts& PcCounts::operator+=(const PcCounts& o) {
  inst += o.inst;
  thread_inst += o.thread_inst;
  pred_on += o.pred_on;
  divergent += o.divergent;
  uniform += o.uniform;
  return *this;
}

const PcCounts* FunctionCounts::at(std::uint64_t pc) const {
  const auto it = pcs.find(pc);
  return it == pcs.end() ? nullptr : &it->second;
}

json to_json(const FunctionCounts& f) {
  json pcs = json::array();
  for (const auto& [pc, c] : f.pcs) pcs.push_back({pc, c.inst, c.thread_inst, c.pred_on, c.divergent, c.uniform});
  return json{{"crc", f.crc}, {"name", f.name}, {"pcs", pcs}};
}

FunctionCounts function_counts_from_json(const json& j) {
  FunctionCounts f;
  try {
    f.crc = j.at("crc").get<std::uint32_t>();
    f.name = j.at("name").get<std::string>();
    for (const auto& row : j.at("pcs")) {
      if (!row.is_array() || row.size() != 6) throw UsageError("counts: a pcs row is not [pc, inst, thread_inst, pred_on, divergent, uniform]");
      PcCounts c{row[1].get<std::uint64_t>(), row[2].get<std::uint64_t>(), row[3].get<std::uint64_t>(),
                 row[4].get<std::uint64_t>(), row[5].get<std::uint64_t>()};
      // An indirect branch or call reaches several targets per execution, each counted divergent or
      // uniform: only a two-way branch has divergent + uniform <= executions (the join checks that).
      if (c.thread_inst > 32 * c.inst || c.uniform > c.inst || c.divergent > 32 * c.inst)
        throw UsageError("counts: impossible counts at pc " + std::to_string(row[0].get<std::uint64_t>()) + " of " + f.name);
      f.pcs[row[0].get<std::uint64_t>()] += c;
    }
  } catch (const json::exception& e) {
    throw UsageError(std::string("counts: malformed function entry (") + e.what() + ")");
  }
  return f;
}

RunCounts read_counts(const std::string& path) {
  const json doc = read_json_file(path);
  RunCounts r;
  try {
    if (doc.value("schema", "") != kCountsSchema) throw UsageError(path + ": not a " + std::string(kCountsSchema) + " document");
    r.device = doc.value("device", json::object());
    for (const auto& m : doc.at("metrics")) r.metrics.push_back(m.get<std::string>());
    r.dropped_records = doc.value("dropped_records", std::uint64_t{0});
    const fs::path dir = fs::path(path).parent_path();
    for (const auto& c : doc.at("cubins")) {
      const auto file = c.at("file").get<std::string>();
      if (file.empty() || fs::path(file).is_absolute() || file.find("..") != std::string::npos)
        throw UsageError(path + ": a cubin file name outside its folder: " + file);
      r.cubins[c.at("crc").get<std::uint32_t>()] = (dir / file).string();
    }
    for (const auto& f : doc.at("functions")) r.functions.push_back(function_counts_from_json(f));
    if (doc.contains("launches"))
      for (const auto& [name, n] : doc.at("launches").items()) r.launches[name] += n.get<std::uint64_t>();
  } catch (const json::exception& e) {
    throw UsageError(path + ": malformed counts (" + e.what() + ")");
  }
  r.processes = 1;
  return r;
}

void merge_counts(RunCounts& into, const RunCounts& more) {
  if (into.processes == 0) {
    into = more;
    return;
  }
  into.processes += more.processes;
  into.dropped_records += more.dropped_records;
  for (const auto& [name, n] : more.launches) into.launches[name] += n;
  if (into.device.empty()) into.device = more.device;
  if (into.metrics.empty()) into.metrics = more.metrics;
  for (const auto& [crc, file] : more.cubins) into.cubins.emplace(crc, file);
  for (const auto& f : more.functions) {
    auto it = std::find_if(into.functions.begin(), into.functions.end(),
                           [&](const FunctionCounts& g) { return g.crc == f.crc && g.name == f.name; });
    if (it == into.functions.end()) {
      into.functions.push_back(f);
      continue;
    }
    for (const auto& [pc, c] : f.pcs) it->pcs[pc] += c;
  }
}

}  // namespace divbench::attribute
