// Reading and merging the injection library's per-instruction counts (attribute/counts.hpp).
#include "divbench/attribute/counts.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "divbench/core/errors.hpp"

namespace divbench::attribute {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() <= 40 ? s : s.substr(0, 37) + "...";
}

// A count as the library writes it: a JSON integer 0..max. A negative, fractional or too large number
// (1e30 parses as a float) is refused, never wrapped or truncated.
std::uint64_t count_of(const json& v, const std::string& where, const std::string& key, std::uint64_t max = kMax) {
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= max) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0 && std::uint64_t(v.get<std::int64_t>()) <= max)
    return std::uint64_t(v.get<std::int64_t>());
  throw UsageError(where + ": (" + key + ") is " + shown(v) + ", not a count (an integer 0.." + std::to_string(max) + ")");
}

std::uint64_t add(std::uint64_t a, std::uint64_t b, const std::string& what);

// Two records of one function's launches as one: launches and blocks summed (UsageError naming `what` when
// a sum passes 2^64-1), the largest block, the fewest blocks an SM held (0: not recorded).
void merge_shape(LaunchShape& into, const LaunchShape& more, const std::string& what) {
  into.launches = add(into.launches, more.launches, what + ", launches");
  into.blocks = add(into.blocks, more.blocks, what + ", blocks");
  into.block_threads = std::max(into.block_threads, more.block_threads);
  into.blocks_per_sm = into.blocks_per_sm == 0 ? more.blocks_per_sm : std::min(into.blocks_per_sm, more.blocks_per_sm);
}

}  // namespace

double LaunchShape::resident_warps_per_sm(double sms) const {
  if (launches == 0 || block_threads == 0 || blocks_per_sm == 0 || sms <= 0) return 0;
  const double warps_per_block = std::ceil(double(block_threads) / 32.0);
  const double blocks_per_launch_per_sm = double(blocks) / double(launches) / sms;
  return std::max(1.0, warps_per_block * std::min(double(blocks_per_sm), std::max(1.0, std::ceil(blocks_per_launch_per_sm))));
}

namespace {

std::uint64_t add(std::uint64_t a, std::uint64_t b, const std::string& what) {
  if (a > kMax - b) throw UsageError(what + ": the sum passes 2^64-1");
  return a + b;
}

// x <= 32 * n, without computing 32 * n (it may not fit).
bool within_warp(std::uint64_t x, std::uint64_t n) { return x / 32 < n || (x / 32 == n && x % 32 == 0); }

std::string json_message(const json::exception& e) {
  std::string m = e.what();
  if (m.rfind("[json.exception.", 0) == 0 && m.find("] ") != std::string::npos) m = m.substr(m.find("] ") + 2);
  return m;
}

}  // namespace

PcCounts& PcCounts::operator+=(const PcCounts& o) {
  inst = add(inst, o.inst, "counts");
  thread_inst = add(thread_inst, o.thread_inst, "counts");
  pred_on = add(pred_on, o.pred_on, "counts");
  divergent = add(divergent, o.divergent, "counts");
  uniform = add(uniform, o.uniform, "counts");
  sectors = add(sectors, o.sectors, "counts");
  return *this;
}

const PcCounts* FunctionCounts::at(std::uint64_t pc) const {
  const auto it = pcs.find(pc);
  return it == pcs.end() ? nullptr : &it->second;
}

json to_json(const FunctionCounts& f) {
  json pcs = json::array();
  for (const auto& [pc, c] : f.pcs) {
    json row{pc, c.inst, c.thread_inst, c.pred_on, c.divergent, c.uniform};
    if (f.has_sectors) row.push_back(c.sectors);
    pcs.push_back(row);
  }
  return json{{"crc", f.crc}, {"name", f.name}, {"pcs", pcs}};
}

namespace {

// Per pc: what one instruction's counts can be; and the function's totals fit in 64 bits (the join sums them).
void check_function(const FunctionCounts& f, const std::string& where) {
  std::uint64_t inst = 0, thread = 0, divergent = 0;
  for (const auto& row : f.pcs) {
    const std::uint64_t pc = row.first;  // not a structured binding: clang before 16 (the fuzz build) cannot
    const PcCounts& c = row.second;      // capture one in the lambda
    const auto impossible = [&](const std::string& why) {
      throw UsageError(where + " impossible counts at pc " + std::to_string(pc) + " of " + f.name + ": " + why);
    };
    if (!within_warp(c.thread_inst, c.inst))
      impossible("thread_inst " + std::to_string(c.thread_inst) + " > 32 x inst " + std::to_string(c.inst));
    if (c.inst > 0 && c.thread_inst == 0) impossible("executed " + std::to_string(c.inst) + " times by no thread");
    if (c.pred_on > c.thread_inst)
      impossible("thread_inst_pred_on " + std::to_string(c.pred_on) + " > thread_inst " + std::to_string(c.thread_inst));
    // An indirect branch or call reaches several targets per execution, each counted divergent or
    // uniform: only a two-way branch has divergent + uniform <= executions (the join checks that).
    if (c.uniform > c.inst) impossible("uniform " + std::to_string(c.uniform) + " > inst " + std::to_string(c.inst));
    if (!within_warp(c.divergent, c.inst))
      impossible("divergent " + std::to_string(c.divergent) + " > 32 x inst " + std::to_string(c.inst));
    inst = add(inst, c.inst, where + " inst of " + f.name);
    thread = add(thread, c.thread_inst, where + " thread_inst of " + f.name);
    divergent = add(divergent, c.divergent, where + " divergent of " + f.name);
  }
}

}  // namespace

FunctionCounts function_counts_from_json(const json& j, const std::string& file, const std::string& pointer) {
  FunctionCounts f;
  f.origin = file + ": (" + pointer + ")";
  const std::string& where = file;
  const std::string where_entry = f.origin;
  try {
    if (!j.is_object()) throw UsageError(where_entry + " is " + shown(j) + ", not {\"crc\", \"name\", \"pcs\"}");
    f.crc = static_cast<std::uint32_t>(count_of(j.at("crc"), where, pointer + "/crc", 0xffffffffu));
    if (!j.at("name").is_string() || j["name"].get<std::string>().empty())
      throw UsageError(where + ": (" + pointer + "/name) is " + shown(j["name"]) + ", not a function name");
    f.name = j["name"].get<std::string>();
    const json& pcs = j.at("pcs");
    if (!pcs.is_array()) throw UsageError(where + ": (" + pointer + "/pcs) is " + shown(pcs) + ", not a list of rows");
    // Six columns, or seven with the sectors: the same number in every row of a function.
    const std::size_t columns = !pcs.empty() && pcs[0].is_array() && pcs[0].size() == 7 ? 7 : 6;
    f.has_sectors = columns == 7;
    for (std::size_t r = 0; r < pcs.size(); ++r) {
      const json& row = pcs[r];
      const std::string key = pointer + "/pcs/" + std::to_string(r);
      if (!row.is_array() || row.size() != columns)
        throw UsageError(where + ": (" + key + ") is " + shown(row) + ", not [pc, inst, thread_inst, pred_on, divergent, uniform" +
                         (columns == 7 ? ", sectors]" : "]") + (columns == 7 ? " like the function's first row" : ""));
      const std::uint64_t pc = count_of(row[0], where, key + "/0");
      PcCounts c{count_of(row[1], where, key + "/1"), count_of(row[2], where, key + "/2"),
                 count_of(row[3], where, key + "/3"), count_of(row[4], where, key + "/4"),
                 count_of(row[5], where, key + "/5")};
      if (columns == 7) c.sectors = count_of(row[6], where, key + "/6");
      if (!f.pcs.emplace(pc, c).second)
        throw UsageError(where + ": (" + key + ") a second row for pc " + std::to_string(pc) + " of " + f.name +
                         ": one row per pc");
    }
  } catch (const json::exception& e) {
    throw UsageError(where_entry + " malformed function entry (" + json_message(e) + ")");
  }
  check_function(f, where_entry);
  return f;
}

void check_pcs_inside(const FunctionCounts& f, const std::function<bool(std::uint64_t)>& is_instruction,
                      std::uint64_t code_bytes) {
  for (const auto& [pc, c] : f.pcs)
    if (!is_instruction(pc))
      throw UsageError(f.origin + " pc " + std::to_string(pc) + " of " + f.name + " is not an instruction of its code (" +
                       std::to_string(code_bytes) + " bytes): counts of another build?");
}

RunCounts read_counts(const std::string& path) { return counts_from_json(read_json_file(path), path); }

RunCounts counts_from_json(const json& doc, const std::string& path) {
  RunCounts r;
  try {
    if (!doc.is_object() || doc.value("schema", "") != kCountsSchema)
      throw UsageError(path + ": not a " + std::string(kCountsSchema) + " document");
    r.device = doc.value("device", json::object());
    if (!r.device.is_object()) throw UsageError(path + ": (/device) is " + shown(r.device) + ", not an object");
    for (const auto& m : doc.at("metrics")) r.metrics.push_back(m.get<std::string>());
    if (doc.contains("dropped_records")) r.dropped_records = count_of(doc["dropped_records"], path, "/dropped_records");
    const fs::path dir = fs::path(path).parent_path();
    const json& cubins = doc.at("cubins");
    if (!cubins.is_array()) throw UsageError(path + ": (/cubins) is " + shown(cubins) + ", not a list");
    for (std::size_t i = 0; i < cubins.size(); ++i) {
      const json& c = cubins[i];
      const std::string key = "/cubins/" + std::to_string(i);
      if (!c.is_object()) throw UsageError(path + ": (" + key + ") is " + shown(c) + ", not {\"crc\", \"file\"}");
      const auto file = c.at("file").get<std::string>();
      if (file.empty() || fs::path(file).is_absolute() || file.find("..") != std::string::npos)
        throw UsageError(path + ": (" + key + "/file) a cubin file name outside its folder: " + file);
      const auto crc = static_cast<std::uint32_t>(count_of(c.at("crc"), path, key + "/crc", 0xffffffffu));
      if (!r.cubins.emplace(crc, (dir / file).string()).second && r.cubins[crc] != (dir / file).string())
        throw UsageError(path + ": (" + key + "/crc) a second file for the cubin of crc " + std::to_string(crc));
    }
    const json& functions = doc.at("functions");
    if (!functions.is_array()) throw UsageError(path + ": (/functions) is " + shown(functions) + ", not a list");
    std::set<std::pair<std::uint32_t, std::string>> seen;
    for (std::size_t i = 0; i < functions.size(); ++i) {
      FunctionCounts f = function_counts_from_json(functions[i], path, "/functions/" + std::to_string(i));
      if (!seen.emplace(f.crc, f.name).second)
        throw UsageError(f.origin + " a second entry for " + f.name + " (crc " + std::to_string(f.crc) +
                         "): one entry per function");
      r.functions.push_back(std::move(f));
    }
    if (doc.contains("launch_sampling")) {
      const json& ls = doc["launch_sampling"];
      if (!ls.is_object() || !ls.contains("counted_launches") || !ls["counted_launches"].is_object())
        throw UsageError(path + ": (/launch_sampling) is " + shown(ls) + ", not {\"first\", \"counted_launches\"}");
      r.sample_first = count_of(ls.value("first", json(0)), path, "/launch_sampling/first");
      for (const auto& [name, n] : ls["counted_launches"].items())
        r.counted_launches[name] = add(r.counted_launches[name], count_of(n, path, "/launch_sampling/counted_launches/" + name),
                                       path + ": (/launch_sampling/counted_launches/" + name + ")");
    }
    if (doc.contains("launch_shapes")) {
      const json& shapes = doc["launch_shapes"];
      if (!shapes.is_object()) throw UsageError(path + ": (/launch_shapes) is " + shown(shapes) + ", not {function: {...}}");
      for (const auto& [name, sh] : shapes.items()) {
        const std::string at = "/launch_shapes/" + name;
        if (!sh.is_object()) throw UsageError(path + ": (" + at + ") is " + shown(sh) + ", not an object");
        LaunchShape one;
        for (const auto& [key, field] : {std::pair{"launches", &one.launches}, {"blocks", &one.blocks},
                                         {"block_threads", &one.block_threads}, {"blocks_per_sm", &one.blocks_per_sm}}) {
          if (!sh.contains(key)) throw UsageError(path + ": (" + at + ") has no \"" + key + "\"");
          *field = count_of(sh[key], path, at + "/" + key);
        }
        merge_shape(r.shapes[name], one, path + ": (" + at + ")");
      }
    }
    if (doc.contains("launches")) {
      const json& launches = doc["launches"];
      if (!launches.is_object()) throw UsageError(path + ": (/launches) is " + shown(launches) + ", not {function: n}");
      for (const auto& [name, n] : launches.items())
        r.launches[name] = add(r.launches[name], count_of(n, path, "/launches/" + name), path + ": (/launches/" + name + ")");
    }
  } catch (const json::exception& e) {
    throw UsageError(path + ": malformed counts (" + json_message(e) + ")");
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
  into.dropped_records = add(into.dropped_records, more.dropped_records, "counts: dropped_records of the merged runs");
  for (const auto& [name, n] : more.launches)
    into.launches[name] = add(into.launches[name], n, "counts: launches of " + name + " in the merged runs");
  for (const auto& [name, sh] : more.shapes) {
    merge_shape(into.shapes[name], sh, "counts: the launch shapes of " + name + " in the merged runs");
  }
  for (const auto& [name, n] : more.counted_launches)
    into.counted_launches[name] = add(into.counted_launches[name], n, "counts: counted launches of " + name + " in the merged runs");
  into.sample_first = std::max(into.sample_first, more.sample_first);
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
    try {
      for (const auto& [pc, c] : f.pcs) it->pcs[pc] += c;
      it->has_sectors = it->has_sectors && f.has_sectors;  // a sum with a run that did not count them is not one
    } catch (const UsageError&) {
      throw UsageError(f.origin + ": the counts of " + f.name + " summed with " + it->origin + " pass 2^64-1");
    }
    check_function(*it, f.origin + " summed with " + it->origin);
  }
}

json extrapolate_sampled(RunCounts& counts) {
  json out = json::array();
  for (auto& f : counts.functions) {
    const auto c = counts.counted_launches.find(f.name);
    const auto l = counts.launches.find(f.name);
    if (c == counts.counted_launches.end() || l == counts.launches.end() || c->second == 0 || l->second <= c->second) continue;
    const double factor = double(l->second) / double(c->second);
    const auto up = [&](std::uint64_t v) { return static_cast<std::uint64_t>(std::ceil(double(v) * factor)); };
    const auto down = [&](std::uint64_t v) { return static_cast<std::uint64_t>(std::floor(double(v) * factor)); };
    for (auto& [pc, r] : f.pcs) {
      // inst up, the rest down: thread <= 32 inst, pred_on <= thread, divergent + uniform <= inst still hold.
      r.inst = up(r.inst);
      r.thread_inst = down(r.thread_inst);
      r.pred_on = down(r.pred_on);
      r.divergent = down(r.divergent);
      r.uniform = down(r.uniform);
      r.sectors = down(r.sectors);
    }
    out.push_back({{"name", f.name}, {"launches", l->second}, {"counted_launches", c->second}, {"factor", factor}});
  }
  return out;
}

}  // namespace divbench::attribute
