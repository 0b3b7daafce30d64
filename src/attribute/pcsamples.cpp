// Reading and merging the PC sampling library's documents (attribute/pcsamples.hpp).
#include "divbench/attribute/pcsamples.hpp"

#include <algorithm>
#include <limits>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"

namespace divbench::attribute {

namespace {

// An unsigned integer no larger than `max` (nlohmann's get<> would wrap a negative or too large one).
std::uint64_t unsigned_at(const json& v, const std::string& what, std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    throw UsageError(what + " is not an unsigned integer");
  const auto n = v.get<std::uint64_t>();
  if (n > max) throw UsageError(what + " is out of range (" + std::to_string(n) + " > " + std::to_string(max) + ")");
  return n;
}

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const std::string& what) {
  if (a > std::numeric_limits<std::uint64_t>::max() - b) throw UsageError(what + " overflows 64 bits");
  return a + b;
}

void read_document(const json& doc, PcSamples& r) {
  if (!doc.is_object()) throw UsageError("not a JSON object");
  if (!doc.contains("schema") || !doc.at("schema").is_string() || doc.at("schema").get<std::string>() != kPcSamplesSchema)
    throw UsageError(std::string("not a ") + kPcSamplesSchema + " document");
  r.period_cycles = unsigned_at(doc.at("period_cycles"), "period_cycles");
  if (r.period_cycles < (std::uint64_t{1} << 5) || r.period_cycles > (std::uint64_t{1} << 31) ||
      (r.period_cycles & (r.period_cycles - 1)) != 0)
    throw UsageError("period_cycles " + std::to_string(r.period_cycles) + " is not 2^k with k in 5..31");
  r.total = unsigned_at(doc.at("total_samples"), "total_samples");
  r.dropped = unsigned_at(doc.at("dropped_samples"), "dropped_samples");
  if (doc.contains("hardware_buffer_mib"))
    r.hardware_buffer_mib = unsigned_at(doc.at("hardware_buffer_mib"), "hardware_buffer_mib", 1u << 20);
  if (doc.contains("hardware_buffer_full")) {
    if (!doc.at("hardware_buffer_full").is_boolean()) throw UsageError("hardware_buffer_full is not a boolean");
    r.hardware_buffer_full = doc.at("hardware_buffer_full").get<bool>();
  }
  const json& reasons = doc.at("stall_reasons");
  if (!reasons.is_array()) throw UsageError("stall_reasons is not an array");
  for (const auto& n : reasons) {
    if (!n.is_string()) throw UsageError("a stall reason is not a string");
    r.reasons.push_back(n.get<std::string>());
  }
  const json& functions = doc.at("functions");
  if (!functions.is_array()) throw UsageError("functions is not an array");
  std::uint64_t sum = 0;
  for (const auto& f : functions) {
    if (!f.is_object()) throw UsageError("a functions entry is not an object");
    const auto crc = static_cast<std::uint32_t>(unsigned_at(f.at("crc"), "a function's crc", std::numeric_limits<std::uint32_t>::max()));
    if (!f.at("name").is_string()) throw UsageError("a function's name is not a string");
    const PcSamples::Key key{crc, f.at("name").get<std::string>()};
    const json& pcs = f.at("pcs");
    if (!pcs.is_array()) throw UsageError("pcs of " + key.second + " is not an array");
    auto& samples = r.samples[key];
    for (const auto& row : pcs) {
      if (!row.is_array() || row.size() < 2 || row.size() > 3)
        throw UsageError("a pcs row of " + key.second + " is not [pc, samples, {reason: samples}]");
      const std::uint64_t pc = unsigned_at(row[0], "a pc of " + key.second);
      const std::string where = "pc " + std::to_string(pc) + " of " + key.second;
      const std::uint64_t n = unsigned_at(row[1], "the samples at " + where);
      samples[pc] = checked_add(samples[pc], n, "the samples at " + where);
      sum = checked_add(sum, n, "the samples of the document");
      if (row.size() < 3) continue;
      if (!row[2].is_object()) throw UsageError("the stall reasons at " + where + " are not an object");
      auto& stalls = r.stalls[key][pc];
      for (const auto& [index, v] : row[2].items()) {
        std::size_t used = 0;
        unsigned long long i = 0;
        try {
          i = std::stoull(index, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (index.empty() || used != index.size() || index[0] == '-' || index[0] == '+' || i >= r.reasons.size())
          throw UsageError("stall reason index \"" + index + "\" at " + where + " is not one of the " +
                           std::to_string(r.reasons.size()) + " stall_reasons");
        const std::uint64_t m = unsigned_at(v, "the " + r.reasons[i] + " samples at " + where);
        stalls[i] = checked_add(stalls[i], m, "the " + r.reasons[i] + " samples at " + where);
      }
    }
  }
  if (sum != r.total)
    throw UsageError("total_samples " + std::to_string(r.total) + " is not the sum of the pcs' samples (" + std::to_string(sum) + ")");
  if (doc.contains("errors")) {
    if (!doc.at("errors").is_array()) throw UsageError("errors is not an array");
    for (const auto& e : doc.at("errors")) {
      if (!e.is_string()) throw UsageError("an errors line is not a string");
      r.errors.push_back(e.get<std::string>());
    }
  }
}

}  // namespace

const std::map<std::uint64_t, std::uint64_t>* PcSamples::function(std::uint32_t crc, const std::string& name) const {
  const auto it = samples.find({crc, name});
  return it == samples.end() ? nullptr : &it->second;
}

PcSamples read_pcsamples(const std::string& path) {
  const json doc = read_json_file(path);
  PcSamples r;
  try {
    read_document(doc, r);
  } catch (const UsageError& e) {
    throw UsageError(path + ": malformed PC samples (" + e.what() + ")");
  } catch (const json::exception& e) {
    throw UsageError(path + ": malformed PC samples (" + e.what() + ")");
  }
  r.processes = 1;
  return r;
}

void merge_pcsamples(PcSamples& into, const PcSamples& more) {
  if (more.processes == 0) return;
  if (into.processes == 0) {
    into = more;
    return;
  }
  if (into.period_cycles != more.period_cycles)
    throw UsageError("PC samples of different periods cannot be summed (" + std::to_string(into.period_cycles) + " and " +
                     std::to_string(more.period_cycles) + " cycles)");
  into.processes += more.processes;
  into.total = checked_add(into.total, more.total, "the merged total_samples");
  into.dropped = checked_add(into.dropped, more.dropped, "the merged dropped_samples");
  into.hardware_buffer_full = into.hardware_buffer_full || more.hardware_buffer_full;
  into.hardware_buffer_mib = std::max(into.hardware_buffer_mib, more.hardware_buffer_mib);
  // Stall reasons by name: a reason the first document lacks is appended.
  std::vector<std::size_t> slot(more.reasons.size());
  for (std::size_t i = 0; i < more.reasons.size(); ++i) {
    std::size_t j = 0;
    while (j < into.reasons.size() && into.reasons[j] != more.reasons[i]) ++j;
    if (j == into.reasons.size()) into.reasons.push_back(more.reasons[i]);
    slot[i] = j;
  }
  for (const auto& [key, pcs] : more.samples) {
    auto& samples = into.samples[key];
    for (const auto& [pc, n] : pcs) samples[pc] = checked_add(samples[pc], n, "the merged samples at a pc of " + key.second);
  }
  for (const auto& [key, pcs] : more.stalls)
    for (const auto& [pc, per] : pcs) {
      auto& stalls = into.stalls[key][pc];
      for (const auto& [i, n] : per) stalls[slot[i]] = checked_add(stalls[slot[i]], n, "the merged stall samples of " + key.second);
    }
  into.errors.insert(into.errors.end(), more.errors.begin(), more.errors.end());
}

}  // namespace divbench::attribute
