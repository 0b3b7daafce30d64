// The loop-cost constants as a document (divbench.loop_cost/1): written, read back, and found at run time
// (loop_cost.hpp: constants_from_json, default_constants_path, load_constants).
#include "divbench/model/loop_cost.hpp"
#include "loop_cost_detail.hpp"
#include "divbench/core/process.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/model/kernel_facts.hpp"

namespace divbench::model {

namespace detail {

json constants_json(const CostConstants& c) {
  json j{{"schema", kLoopCostSchema},
         {"sm", c.sm},
         {"arch", "sm_" + std::to_string(c.sm)},
         {"taken_branch_cycles", c.taken_branch ? json(*c.taken_branch) : json(nullptr)},
         {"variable_latency_cycles", c.variable_latency ? json(*c.variable_latency) : json(nullptr)},
         {"source", c.source}};
  if (c.divergent_path) {
    j["divergent_path_cycles"] = *c.divergent_path;
    j["divergent_path"] = json{{"cycles", *c.divergent_path},
                               {"min", c.divergent_path_min},
                               {"max", c.divergent_path_max},
                               {"series", c.divergent_path_series},
                               {"quantity", "median over the (body, placement, n) series of the cost sweep of ((T(2) - T(1)) of "
                                            "the k-way kernel - (T(2) - T(1)) of its no-divergence control) / 2: one divergent "
                                            "branch execution beyond its instructions"}};
  }
  if (!c.memory_levels.empty()) {
    j["memory_levels"] = memory_levels_json(c.memory_levels);
    j["memory_source"] = c.memory_source;
  }
  if (c.band_below && c.band_above) {
    std::string basis =
        "measured a minus the prediction from the same placement's loop, over the fitted bodies and every "
        "placement of the cost sweep, to the whole cycle";
    basis += c.excess_from_offset
                 ? ". Every fitted loop that ran a cycle or more above its prediction started at byte excess_from_offset or later "
                   "of a fetch_block_bytes block: a loop starting there gets [a - below, a + above], one starting "
                   "earlier in its block [a - below, a]"
                 : ": an interval [a - below, a + above] per prediction";
    j["placement_band_cycles"] = json{{"below", *c.band_below}, {"above", *c.band_above}, {"basis", basis}};
    if (c.excess_from_offset) {
      j["placement_band_cycles"]["fetch_block_bytes"] = kFetchBlockBytes;
      j["placement_band_cycles"]["excess_from_offset"] = *c.excess_from_offset;
    }
  }
  return j;
}

}  // namespace detail

CostConstants constants_from_json(const json& j, const std::string& what) {
  try {
    if (j.value("schema", "") != kLoopCostSchema) throw UsageError(what + ": not a " + kLoopCostSchema + " document");
    CostConstants c;
    // An integer within range, never a wrapped or truncated one ("sm_-2147483648", a band of 1e308).
    const auto whole = [&](const json& v, const char* key, long long lo, long long hi) {
      if (!(v.is_number_integer() || v.is_number_unsigned()) ||
          (v.is_number_unsigned() ? v.get<std::uint64_t>() > std::uint64_t(hi) : v.get<long long>() < lo || v.get<long long>() > hi))
        throw UsageError(what + ": (" + key + ") is " + v.dump() + ", not an integer " + std::to_string(lo) + ".." +
                         std::to_string(hi));
      return static_cast<int>(v.get<long long>());
    };
    c.sm = whole(j.at("sm"), "/sm", 10, 999);  // sm_10 .. sm_999: an architecture number, as 90
    if (!j.at("taken_branch_cycles").is_null()) c.taken_branch = j.at("taken_branch_cycles").get<double>();
    if (!j.at("variable_latency_cycles").is_null()) c.variable_latency = j.at("variable_latency_cycles").get<double>();
    c.source = j.at("source");
    if (j.contains("divergent_path_cycles") && !j["divergent_path_cycles"].is_null())
      c.divergent_path = j["divergent_path_cycles"].get<double>();
    if (c.divergent_path && !(*c.divergent_path >= 0 && *c.divergent_path <= 1e6))
      throw UsageError(what + ": (/divergent_path_cycles) is " + std::to_string(*c.divergent_path) + ", outside 0..1e6 cycles");
    // Cycles per taken branch or per variable-latency wait: a small non-negative number (a cost model
    // with -1e300 would predict nonsense slopes without a word).
    for (const auto& [key, v] : {std::pair{"taken_branch_cycles", c.taken_branch}, {"variable_latency_cycles", c.variable_latency}})
      if (v && !(*v >= 0 && *v <= 1e6))
        throw UsageError(what + ": (/" + key + ") is " + std::to_string(*v) + ", outside 0..1e6 cycles");
    if (j.contains("memory_levels") && !j["memory_levels"].is_null()) {
      c.memory_levels = memory_levels_from_json(j["memory_levels"], what);
      c.memory_source = j.value("memory_source", json(nullptr));
    }
    if (j.contains("placement_band_cycles") && !j["placement_band_cycles"].is_null()) {
      const json& band = j["placement_band_cycles"];
      if (!band.is_object())
        throw UsageError(what + ": (/placement_band_cycles) is " + band.dump() + ", not {\"below\", \"above\"}");
      c.band_below = band.at("below").get<double>();
      c.band_above = band.at("above").get<double>();
      // The band [a - below, a + above]: both sides a distance in cycles, so a_min <= a <= a_max.
      for (const auto& [key, v] : {std::pair{"below", *c.band_below}, {"above", *c.band_above}})
        if (!(v >= 0 && v <= 1e6))
          throw UsageError(what + ": (/placement_band_cycles/" + key + ") is " + json(v).dump() +
                           ", outside 0..1e6 cycles (the band must have a_min <= a_max)");
      if (band.contains("excess_from_offset"))
        c.excess_from_offset = whole(band["excess_from_offset"], "/placement_band_cycles/excess_from_offset", 0, kFetchBlockBytes - 1);
    }
    return c;
  } catch (const json::exception& e) {
    // "[json.exception.type_error.302] (/sm) type must be number, but is string": the key path kept.
    std::string m = e.what();
    if (m.rfind("[json.exception.", 0) == 0 && m.find("] ") != std::string::npos) m = m.substr(m.find("] ") + 2);
    throw UsageError(what + ": malformed " + kLoopCostSchema + " (" + m + ")");
  }
}

std::string default_constants_path(const std::string& exe_dir) {
  namespace fs = std::filesystem;
  if (exe_dir.empty()) return "";
  std::error_code ec;  // a path that is not there sets it: each check has its own
  const fs::path beside = fs::path(exe_dir) / "loop_cost.json";
  if (fs::is_regular_file(beside, ec)) return beside.string();
  std::error_code abs_ec;
  const fs::path start = fs::absolute(exe_dir, abs_ec);
  if (!abs_ec)
    for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
      const fs::path committed = dir / kCommittedConstantsFile;
      if (fs::is_regular_file(committed, ec)) return committed.string();
      if (dir == dir.parent_path()) break;
    }
  // An install (cmake --install, the .deb): <prefix>/share/divbench/loop_cost.json for <prefix>/bin/divbench.
  const fs::path installed = fs::path(installed_data_dir(exe_dir)) / "loop_cost.json";
  if (fs::is_regular_file(installed, ec)) return installed.string();
  return "";
}

void set_memory_levels(CostConstants& c, const std::string& path) {
  const json m = read_json_file(path);
  c.memory_levels = memory_levels_from_result(m, path);
  c.memory_source = json{{"file", path}, {"device", m.value("device", json(nullptr))}, {"git", m.value("git", json(nullptr))}};
}

void set_call_path(CostConstants& c, const std::string& path) {
  const json m = read_json_file(path);
  if (m.value("schema", "") != "divbench.call_path/1")
    throw UsageError(path + ": not a call-path probe result (schema divbench.call_path/1)");
  const json summary = m.contains("summary") && m["summary"].is_object() ? m["summary"] : json::object();
  const auto cycles = [&](const char* key) -> std::optional<double> {
    if (!summary.contains(key) || summary[key].is_null()) return std::nullopt;
    const json& v = summary[key];
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1e6))
      throw UsageError(path + ": (/summary/" + key + ") is not a number of cycles in 0..1e6");
    return v.get<double>();
  };
  c.divergent_call_path = cycles("divergent_call_path_cycles");
  c.call_round_trip = cycles("call_round_trip_cycles");
  if (!c.divergent_call_path && !c.call_round_trip)
    throw UsageError(path + ": (/summary) has neither divergent_call_path_cycles nor call_round_trip_cycles");
  c.call_path_source = json{{"file", path}, {"device", m.value("device", json(nullptr))}, {"git", m.value("git", json(nullptr))}};
}

Expected<LoadedConstants> load_constants(const std::string& path) {
  using Result = Expected<LoadedConstants>;
  const std::string exe_dir = own_executable_dir();
  const std::string used = path.empty() ? default_constants_path(exe_dir) : path;
  if (used.empty())  // every place default_constants_path looked, in its order
    return Result::failure(
        exe_dir.empty() ? std::string("no loop-cost constants: /proc/self/exe cannot be read, so there is no default (give the file)")
                        : "no loop-cost constants: no loop_cost.json next to the executable (" + exe_dir + "/loop_cost.json), no " +
                              kCommittedConstantsFile + " in " + exe_dir + " or any folder above it, no installed " +
                              installed_data_dir(exe_dir) + "/loop_cost.json (give the file)");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(used, ec)) return Result::failure(used + ": no such file");
  try {
    return LoadedConstants{constants_from_json(read_json_file(used), used), used};
  } catch (const std::exception& e) {
    return Result::failure(e.what());
  }
}

}  // namespace divbench::model
