#include "divbench/sass/census.hpp"

#include <algorithm>
#include <set>

namespace divbench::sass {

namespace {
const std::set<std::string> kCounted = {"BSSY", "BSYNC", "BREAK", "WARPSYNC", "BMOV", "BRA", "BRX", "JMP", "JMX",
                                        "EXIT", "CALL", "RET", "SSY", "SYNC", "PBK", "BRK", "PCNT", "CONT",
                                        "KILL", "BPT", "NANOSLEEP", "YIELD", "VOTE", "MATCH"};

// The modifier that names the form of interest; other modifiers (e.g. .REL.NOINC) are dropped.
std::string form_of(const Instruction& i) {
  // Full warp: WARPSYNC.ALL, or (sm_70..sm_89 listings) the immediate WARPSYNC 0xffffffff.
  if (i.base == "WARPSYNC")
    return i.has("ALL") || (!i.operands.empty() && i.operands[0] == "0xffffffff") ? "ALL" : "mask";
  if (i.base == "BRA") {
    if (i.has("U")) return "U";
    if (i.has("DIV")) return "DIV";
    if (i.has("CONV")) return "CONV";
    return "";
  }
  if (i.base == "BSSY" || i.base == "BSYNC" || i.base == "BREAK") {
    for (const char* m : {"RECONVERGENT", "RELIABLE"})
      if (i.has(m)) return m;
    return i.modifiers.empty() ? "" : i.modifiers.front();
  }
  return "";
}
}  // namespace

int Census::count(const std::string& base, const std::string& form) const {
  auto it = counts.find(base);
  if (it == counts.end()) return 0;
  auto jt = it->second.find(form);
  return jt == it->second.end() ? 0 : jt->second;
}

int Census::total(const std::string& base) const {
  auto it = counts.find(base);
  int t = 0;
  if (it != counts.end())
    for (const auto& [f, n] : it->second) t += n;
  return t;
}

Census& Census::operator+=(const Census& o) {
  for (const auto& [b, forms] : o.counts)
    for (const auto& [f, n] : forms) counts[b][f] += n;
  nesting_depth = std::max(nesting_depth, o.nesting_depth);
  instructions += o.instructions;
  return *this;
}

Census take_census(const Function& f) {
  Census c;
  for (const auto& i : f.instructions) {
    c.instructions++;
    if (kCounted.count(i.base)) c.counts[i.base][form_of(i)]++;
  }
  return c;
}

json to_json(const Census& c) {
  json j = json::object();
  j["instructions"] = c.instructions;
  j["nesting_depth"] = c.nesting_depth;
  json by = json::object();
  for (const auto& [b, forms] : c.counts) {
    json fj = json::object();
    for (const auto& [f, n] : forms) fj[f.empty() ? "bare" : f] = n;
    by[b] = fj;
  }
  j["opcodes"] = by;
  // Table II style flat columns.
  j["bssy"] = c.total("BSSY");
  j["bssy_reconvergent"] = c.count("BSSY", "RECONVERGENT");
  j["bssy_reliable"] = c.count("BSSY", "RELIABLE");
  j["bsync"] = c.total("BSYNC");
  j["break"] = c.total("BREAK");
  j["bra_u"] = c.count("BRA", "U");
  j["bra_div"] = c.count("BRA", "DIV");
  j["warpsync_all"] = c.count("WARPSYNC", "ALL");
  j["warpsync_mask"] = c.count("WARPSYNC", "mask");
  j["bmov"] = c.total("BMOV");
  j["ssy"] = c.total("SSY");
  j["sync"] = c.total("SYNC");
  j["pbk"] = c.total("PBK");
  j["brk"] = c.total("BRK");
  j["exit"] = c.total("EXIT");
  return j;
}

}  // namespace divbench::sass
