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
      out.push_back({m[1], {}, {}, {}});
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
      pending.clear();
    }
  }
  return out;
}

// The union of the given clusters as a SimpleGraph (entries: each cluster's first node).
inline SimpleGraph dot_graph(const std::vector<const DotCluster*>& clusters, std::string* problem) {
  std::map<std::uint64_t, std::set<std::uint64_t>> succ;
  SimpleGraph g;
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
