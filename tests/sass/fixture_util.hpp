// Helpers shared by the SASS tests: load a hand-made nvdisasm -json fixture and index the
// analysis by offsets.
#pragma once
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "divbench/sass/analysis.hpp"
#include "divbench/sass/parse.hpp"

namespace divbench::sass::test {

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline std::string fixture_path(const std::string& name) { return std::string(DIVBENCH_SASS_FIXTURES) + "/" + name; }

// Parses fixtures/<name>.json (and merges fixtures/<name>.txt when it exists).
inline Function load_fixture(const std::string& name) {
  auto fns = parse_nvdisasm_json_text(read_text(fixture_path(name + ".json")));
  std::ifstream txt(fixture_path(name + ".txt"));
  if (txt) merge_text_listing(fns, parse_nvdisasm_text(read_text(fixture_path(name + ".txt")), 90));
  return fns.at(0);
}

// A fixture and its analysis (which keeps a pointer to the function: both together, heap-allocated).
struct AnalyzedFixture {
  Function f;
  FunctionAnalysis a;
};
inline std::unique_ptr<AnalyzedFixture> load_analyzed(const std::string& name) {
  auto l = std::make_unique<AnalyzedFixture>();
  l->f = load_fixture(name);
  l->a = analyze(l->f);
  return l;
}

// start -> successor starts (sorted)
inline std::map<std::uint64_t, std::set<std::uint64_t>> edges(const Cfg& cfg) {
  std::map<std::uint64_t, std::set<std::uint64_t>> m;
  for (const auto& b : cfg.blocks) {
    auto& s = m[b.start];
    for (int x : b.succ) s.insert(cfg.blocks[x].start);
  }
  return m;
}

}  // namespace divbench::sass::test
