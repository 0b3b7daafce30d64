// Reads `nvdisasm -bbcfg -poff` DOT output into per-cluster graphs keyed by block start offset:
// the independent CFG the analyzer is checked against.
#pragma once
#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "divbench/sass/cfg.hpp"

namespace divbench::sass::test {

struct DotCluster {
  std::string name;
  std::vector<std::string> nodes;                   // in order of appearance; first is the entry
  std::map<std::string, std::uint64_t> start;       // node -> first instruction offset
  std::set<std::string> ends_in_call;               // nodes whose last instruction is a CALL
  std::vector<std::pair<std::string, std::string>> edges;
};

inline std::vector<DotCluster> parse_bbcfg_dot(const std::string& dot) {
  static const std::regex cluster(R"re(^subgraph "cluster_(.*)" \{)re");
  static const std::regex node(R"re(^"([^"]+)"\s*$)re");
  static const std::regex edge(R"re(^"([^"]+)":\S* -> "([^"]+)":)re");
  static const std::regex offset(R"re(([0-9a-fA-F]{4,}):\\ )re");
  std::vector<DotCluster> out;
  std::istringstream in(dot);
  std::string line, pending;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, cluster)) {
      out.push_back({m[1], {}, {}, {}, {}});
      continue;
    }
    if (out.empty()) continue;
    auto& c = out.back();
    if (std::regex_search(line, m, edge)) {
      c.edges.emplace_back(m[1], m[2]);
    } else if (std::regex_match(line, m, node)) {
      pending = m[1];
      c.nodes.push_back(pending);
    } else if (!pending.empty() && line.rfind("[label=", 0) == 0) {
      if (std::regex_search(line, m, offset)) c.start[pending] = std::stoull(m[1], nullptr, 16);
      // The block's exit port (`<exit0>0210:\ \ \ CALL.REL.NOINC\ ...\l`) holds its last instruction.
      for (auto p = line.find("<exit"); p != std::string::npos; p = line.find("<exit", p + 1)) {
        const auto e = line.find("\\l", p);
        if (line.substr(p, e == std::string::npos ? std::string::npos : e - p).find("CALL.") != std::string::npos)
          c.ends_in_call.insert(pending);
      }
      pending.clear();
    }
  }
  return out;
}

// The union of the given clusters as a SimpleGraph (entries: each cluster's first node).
// nvdisasm draws a CALL whose callee's entry lies in the same cluster (a recursive __noinline__
// function calling itself) with an edge from the CALL's block to that entry, next to the
// fall-through edge to the return point; calls into another cluster get only the fall-through.
// The analyzer treats CALL as straight-line everywhere (docs/sass.md), so such call edges (source
// block ending in CALL, target a cluster entry) are dropped here; every other edge is compared.
inline SimpleGraph dot_graph(const std::vector<const DotCluster*>& clusters, std::string* problem,
                             int* call_edges_dropped = nullptr) {
  std::map<std::uint64_t, std::set<std::uint64_t>> succ;
  SimpleGraph g;
  std::set<std::uint64_t> cluster_entries;
  for (const auto* c : clusters)
    if (!c->nodes.empty() && c->start.count(c->nodes.front())) cluster_entries.insert(c->start.at(c->nodes.front()));
  for (const auto* c : clusters) {
    for (const auto& n : c->nodes) {
      auto it = c->start.find(n);
      if (it == c->start.end()) {
        if (problem) *problem += "node " + n + " of " + c->name + " has no instruction offset; ";
        continue;
      }
      succ[it->second];
    }
    if (!c->nodes.empty() && c->start.count(c->nodes.front())) g.entries.push_back(c->start.at(c->nodes.front()));
    for (const auto& [a, b] : c->edges) {
      if (!c->start.count(a) || !c->start.count(b)) continue;
      if (c->ends_in_call.count(a) && cluster_entries.count(c->start.at(b))) {
        if (call_edges_dropped) ++*call_edges_dropped;
        continue;
      }
      succ[c->start.at(a)].insert(c->start.at(b));
    }
  }
  for (const auto& [s, t] : succ) {
    g.starts.push_back(s);
    g.succ.emplace_back(t.begin(), t.end());
  }
  return g;
}

}  // namespace divbench::sass::test
