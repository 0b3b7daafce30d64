#include "divbench/sass/analysis.hpp"

#include <cstdio>
#include <sstream>

#include "divbench/core/hex.hpp"
#include "divbench/core/provenance.hpp"
#include "divbench/sass/control_word.hpp"
#include "divbench/sass/nvdisasm.hpp"
#include "divbench/sass/pascal.hpp"

namespace divbench::sass {

FunctionAnalysis analyze(const Function& f) {
  FunctionAnalysis a;
  a.function = &f;
  a.cfg = build_cfg(f);
  a.pd = post_dominators(a.cfg, f);
  a.regions = barrier_regions(f, a.cfg);
  for (auto& r : pascal_regions(f, a.cfg)) a.regions.push_back(std::move(r));  // SSY/PBK/PCNT (sm_5x/6x)
  a.placement = place_reconvergence(f, a.cfg, a.pd, a.regions);
  a.census = take_census(f);
  a.census.nesting_depth = max_live_barriers(a.regions, f.instructions.size());
  return a;
}

CubinAnalysis analyze(const Cubin& c) {
  CubinAnalysis a;
  a.cubin = &c;
  for (const auto& f : c.functions) {
    a.functions.push_back(analyze(f));
    a.census += a.functions.back().census;
    a.counts += a.functions.back().placement.counts;
  }
  return a;
}


json to_json(const PlacementCounts& c) {
  json j = json::object();
  j["divergent_branches"] = c.divergent_branches;  // branches ...
  j["guarded_branches"] = c.guarded_branches;
  j["unguarded"] = c.unguarded;
  j["guard_records"] = c.guard_records();          // ... and guard records (one per guarding BSSY)
  j["at"] = c.at;
  j["after"] = c.after;
  j["before"] = c.before;
  j["unclosed"] = c.unclosed;
  j["bssy_guarding_nothing"] = c.bssy_guarding_nothing;
  j["ipdom_exact_rate"] = c.at + c.after + c.before ? json(c.ipdom_exact_rate()) : json(nullptr);
  return j;
}

json to_json(const FunctionAnalysis& a) {
  const Function& f = *a.function;
  json j = json::object();
  j["name"] = f.name;
  j["start"] = f.start;
  j["length"] = f.length;
  json entries = json::array();
  for (int e : a.cfg.entries) entries.push_back(a.cfg.blocks[e].start);
  j["entries"] = entries;
  json subs = json::object();
  for (const auto& [n, off] : f.subroutines) subs[n] = off;
  j["subroutines"] = subs;
  json blocks = json::array();
  for (const auto& b : a.cfg.blocks) {
    json succ = json::array();
    for (int s : b.succ) succ.push_back(a.cfg.blocks[s].start);
    blocks.push_back({{"start", b.start}, {"end", b.end}, {"succ", succ}});
  }
  j["blocks"] = blocks;
  json vx = json::array();
  for (int b : a.pd.virtual_exit_edges) vx.push_back(a.cfg.blocks[b].start);
  j["virtual_exit_edges"] = vx;
  json branches = json::array();
  for (const auto& r : a.placement.branches) {
    json bj = json::object();
    bj["offset"] = r.offset;
    bj["instruction"] = f.at(r.offset) ? f.at(r.offset)->text() : "";
    bj["ipdom"] = r.ipdom ? json(*r.ipdom) : json(nullptr);
    bj["barrier"] = r.barrier >= 0 ? json(r.barrier) : json(nullptr);
    bj["bssy"] = r.bssy ? json(*r.bssy) : json(nullptr);
    bj["bsync"] = r.bsync;
    bj["placement"] = r.placement;
    branches.push_back(bj);
  }
  j["branches"] = branches;
  json regions = json::array();
  for (const auto& r : a.regions) {
    regions.push_back({{"bssy", r.bssy_offset},
                       {"barrier", r.barrier},
                       {"modifier", r.modifier},
                       {"target", r.target},
                       {"bsync", r.bsync},
                       {"instructions", r.instructions.size()}});
  }
  j["barrier_regions"] = regions;
  j["bssy_guarding_nothing"] = a.placement.bssy_guarding_nothing;
  j["placement"] = to_json(a.placement.counts);
  j["census"] = to_json(a.census);
  json cw = json::array();
  for (const auto& ins : f.instructions) {
    if (!ins.control_flow && ins.base != "BREAK") continue;  // nvdisasm does not flag BREAK
    if (a.cfg.block_of_instruction[&ins - f.instructions.data()] < 0) continue;  // padding
    auto w = decode_control(ins);
    if (!w) continue;
    json wj = to_json(*w);
    json e = json::object();
    e["offset"] = ins.offset;
    e["instruction"] = ins.text();
    e["encoding"] = hex128(ins.encoding->lo, ins.encoding->hi);
    for (auto& [k, v] : wj.items()) e[k] = v;
    cw.push_back(e);
  }
  j["control_words"] = cw;
  return j;
}

json to_json(const CubinAnalysis& a) {
  const Cubin& c = *a.cubin;
  json j = json::object();
  j["source"] = c.source;
  j["cubin"] = c.path == c.source ? c.path : c.path.substr(c.path.find_last_of('/') + 1);
  j["sm"] = c.sm;
  j["arch"] = "sm_" + std::to_string(c.sm);
  j["producer"] = c.producer;
  j["ptxas"] = c.toolkit;
  j["census"] = to_json(a.census);
  j["placement"] = to_json(a.counts);
  json fns = json::array();
  for (const auto& f : a.functions) fns.push_back(to_json(f));
  j["functions"] = fns;
  return j;
}

json to_document(const std::vector<CubinAnalysis>& cubins, const std::string& nvdisasm, const std::string& command) {
  Provenance p = make_provenance(command);
  p.tools["nvdisasm"] = {nvdisasm, nvdisasm.empty() ? "" : tool_version(nvdisasm)};
  json doc = json::object();
  doc["schema"] = kSassSchema;
  doc["provenance"] = divbench::to_json(p);
  Census total;
  PlacementCounts counts;
  json cj = json::array();
  for (const auto& c : cubins) {
    total += c.census;
    counts += c.counts;
    cj.push_back(to_json(c));
  }
  doc["census"] = to_json(total);
  doc["placement"] = to_json(counts);
  doc["cubins"] = cj;
  return doc;
}

std::string summary(const CubinAnalysis& a) {
  std::ostringstream s;
  const auto& c = a.census;
  auto rate = [](const PlacementCounts& p) {
    char b[32];
    if (p.at + p.after + p.before == 0) return std::string("n/a");
    std::snprintf(b, sizeof b, "%.0f%%", 100.0 * p.ipdom_exact_rate());
    return std::string(b);
  };
  s << a.cubin->source;
  if (a.cubin->path != a.cubin->source) s << " [" << a.cubin->path.substr(a.cubin->path.find_last_of('/') + 1) << "]";
  s << "  sm_" << a.cubin->sm << "  " << a.functions.size() << " functions\n";
  s << "  BSSY " << c.total("BSSY") << " (RECONVERGENT " << c.count("BSSY", "RECONVERGENT") << ", RELIABLE "
    << c.count("BSSY", "RELIABLE") << ")  BSYNC " << c.total("BSYNC") << "  BREAK " << c.total("BREAK") << "  BRA.U "
    << c.count("BRA", "U") << "  BRA.DIV " << c.count("BRA", "DIV") << "  WARPSYNC " << c.total("WARPSYNC")
    << "  BMOV " << c.total("BMOV") << "  EXIT " << c.total("EXIT") << "  depth " << c.nesting_depth << "\n";
  if (c.total("SSY") + c.total("PBK"))
    s << "  SSY " << c.total("SSY") << "  SYNC " << c.total("SYNC") << "  PBK " << c.total("PBK") << "  BRK "
      << c.total("BRK") << "\n";
  const auto& p = a.counts;
  s << "  divergent branches " << p.divergent_branches << " (guarded " << p.guarded_branches << ", unguarded "
    << p.unguarded << "); guard records " << p.guard_records() << " (one per guarding BSSY): at " << p.at
    << ", after " << p.after << ", before " << p.before << ", unclosed " << p.unclosed << "; IPDom-exact "
    << rate(p) << " of guard records; BSSY guarding nothing " << p.bssy_guarding_nothing << "\n";
  for (const auto& f : a.functions) {
    const auto& q = f.placement.counts;
    s << "    " << f.function->name << ": " << f.cfg.blocks.size() << " blocks, " << q.divergent_branches
      << " divergent branches (guarded " << q.guarded_branches << ", unguarded " << q.unguarded << "), guard records "
      << q.guard_records() << " (at " << q.at << ", after " << q.after << ", before " << q.before << "), depth "
      << f.census.nesting_depth << "\n";
  }
  return s.str();
}

}  // namespace divbench::sass
