// Predicted a, b, s per architecture from kernel facts and fitted constants (slope_prediction.hpp).
#include "divbench/model/slope_prediction.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "divbench/core/errors.hpp"
#include "divbench/core/result.hpp"

namespace divbench::model {

using namespace sass;  // the analyzer's loop facts, control words and kernel-facts readers

const std::vector<std::string>& predicted_bodies() {
  static const std::vector<std::string> v{"fma_chain", "fma_indep", "int_alu", "sfu", "mem_divergent"};
  return v;
}

namespace {

const char* kBStatus =
    "not predicted: no model of the per-path overhead (the path branch, BSSY/BSYNC, __syncwarp, the loop over paths)";

json loop_json(const LoopFacts& l, const CostPrediction& p) {
  json listing = json::array();
  for (const auto& i : l.instructions) listing.push_back(i.text);
  json stalls = json::array();
  for (const auto& i : l.instructions) stalls.push_back(i.control ? json(i.control->stall) : json(nullptr));
  return json{{"header", l.header},
              {"instruction_count", p.instructions},
              {"stall_sum", p.stall_sum ? json(*p.stall_sum) : json(nullptr)},
              {"taken_branches", p.taken_branches},
              {"variable_latency_waits", p.variable_latency_waits},
              {"memory_waits", p.memory_waits},
              {"instructions", listing},
              {"stalls", stalls}};
}

std::string arch_of(int sm) { return "sm_" + std::to_string(sm); }

json caveats(int sm, const CostConstants& c) {
  json v = json::array();
  if (sm != c.sm)
    v.push_back("B and W were fitted on " + arch_of(c.sm) + " measurements; on " + arch_of(sm) +
                " they are an assumption (its branch cost and SFU latency may differ)");
  if (sm < 70)
    v.push_back("pre-Volta: stalls come from each bundle's 64-bit control word (maxas layout); a dual-issued pair "
                "shows stall 0 on its first instruction; not checked against a Pascal GPU");
  v.push_back("one warp alone on its scheduler: no contention from other warps is modelled");
  return v;
}

}  // namespace

json predict_body(const json& facts, int sm, const std::string& body, const CostConstants& c, std::uint32_t n) {
  json j{{"body", body}};
  std::vector<LoopFacts> loops;
  try {
    loops = body_work_loops(facts, sm, body);
  } catch (const UsageError& e) {
    j["a"] = nullptr;
    j["a_status"] = std::string("not predicted: ") + e.what();
    j["b"] = nullptr;
    j["b_status"] = kBStatus;
    j["s"] = nullptr;
    j["s_status"] = "not predicted: a is not predicted";
    return j;
  }
  // Placements (several kway_kernel<Body, Pad>) run the same loop; the first one is reported and
  // the others must agree with it.
  const CostPrediction p = predict_loop_cost(loops.front(), c);
  bool same = true;
  for (std::size_t i = 1; i < loops.size(); ++i) {
    const CostPrediction q = predict_loop_cost(loops[i], c);
    same = same && q.a == p.a && q.lower_bound == p.lower_bound;
  }
  j["functions"] = loops.size();
  j["functions_agree"] = same;
  j["a"] = p.a ? json(*p.a) : json(nullptr);
  j["a_lower_bound"] = p.lower_bound ? json(*p.lower_bound) : json(nullptr);
  j["a_status"] = p.status;
  j["b"] = nullptr;
  j["b_status"] = kBStatus;
  j["s"] = p.a ? json(std::round(*p.a * n * 1e3) / 1e3) : json(nullptr);
  j["s_status"] = p.a ? "a*n: b is not included (not predicted)" : "not predicted: a is not predicted";
  j["loop"] = loop_json(loops.front(), p);
  return j;
}

json model_json(const CostConstants& c, int sm) {
  return json{{"name", "in-order issue from control-word stalls + B per taken jump + W per variable-latency wait"},
              {"doc", "docs/sass.md (Loop-cost model)"},
              {"taken_branch_cycles", c.taken_branch ? json(*c.taken_branch) : json(nullptr)},
              {"variable_latency_cycles", c.variable_latency ? json(*c.variable_latency) : json(nullptr)},
              {"constants_fitted_on", arch_of(c.sm)},
              {"constants_here", c.sm == sm ? "fitted on this architecture"
                                            : "assumed: fitted on " + arch_of(c.sm) + ", not measured on " + arch_of(sm)},
              {"constants_source", c.source},
              {"caveats", caveats(sm, c)}};
}

std::vector<std::pair<std::string, json>> predict_slopes(const std::vector<json>& facts,
                                                         const std::vector<std::string>& facts_paths,
                                                         const CostConstants& c, const std::string& constants_path,
                                                         std::uint32_t n) {
  // Architecture -> the first document holding its k-way kernels.
  std::map<int, std::size_t> where;
  for (std::size_t d = 0; d < facts.size(); ++d) {
    if (!facts[d].is_object() || facts[d].value("schema", "") != kKernelFactsSchema)
      throw UsageError(facts_paths[d] + ": not a " + std::string(kKernelFactsSchema) + " document");
    for (const auto& cb : facts[d].at("cubins")) {
      const int sm = cb.value("sm", 0);
      if (!where.count(sm) && !find_functions(facts[d], sm, {"kway_kernel"}).empty()) where[sm] = d;
    }
  }
  if (where.empty()) throw UsageError("kernels predict: no kway_kernel in the given kernel facts");
  const Provenance prov = make_provenance("divbench kernels predict");
  std::vector<std::pair<std::string, json>> out;
  for (const auto& [sm, d] : where) {
    const json& f = facts[d];
    std::set<std::string> ptxas;
    for (const auto& cb : f["cubins"])
      if (cb.value("sm", 0) == sm && !cb.value("ptxas", "").empty()) ptxas.insert(cb.value("ptxas", ""));
    json doc = json::object();
    doc["schema"] = kPredictedSchema;
    doc["arch"] = arch_of(sm);
    doc["sm"] = sm;
    doc["n"] = n;
    doc["status"] = "predicted from SASS; not measured on this architecture";
    doc["model"] = model_json(c, sm);
    doc["toolkit"] = json{{"ptxas", json(std::vector<std::string>(ptxas.begin(), ptxas.end()))},
                          {"nvdisasm", f.contains("provenance") ? f["provenance"].value("nvdisasm_version", "") : ""}};
    json bodies = json::array();
    for (const auto& b : predicted_bodies()) bodies.push_back(predict_body(f, sm, b, c, n));
    doc["bodies"] = bodies;
    doc["default_body"] = predicted_bodies().front();
    doc["s"] = bodies[0]["s"];
    doc["run"] = json{{"created", prov.created},
                      {"git", prov.git},
                      {"kernel_facts", facts_paths[d]},
                      {"kernel_facts_git", f.contains("provenance") ? f["provenance"].value("git", "") : ""},
                      {"constants", constants_path}};
    out.emplace_back(arch_of(sm), std::move(doc));
  }
  return out;
}

std::string prediction_summary(const json& doc) {
  std::ostringstream s;
  s << doc.value("arch", "?") << " (constants " << doc["model"].value("constants_fitted_on", "?") << "):";
  for (const auto& b : doc["bodies"]) {
    char buf[96];
    if (b["a"].is_number())
      std::snprintf(buf, sizeof buf, " %s a=%.2f", b["body"].get<std::string>().c_str(), b["a"].get<double>());
    else if (b.contains("a_lower_bound") && b["a_lower_bound"].is_number())
      std::snprintf(buf, sizeof buf, " %s a>=%.2f", b["body"].get<std::string>().c_str(), b["a_lower_bound"].get<double>());
    else
      std::snprintf(buf, sizeof buf, " %s a=n/a", b["body"].get<std::string>().c_str());
    s << buf;
  }
  s << "\n";
  return s.str();
}

namespace {

void diff(const json& a, const json& b, const std::string& path, std::vector<std::string>& out) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    if (std::fabs(x - y) > 1e-9 * std::max(1.0, std::fabs(x)))
      out.push_back(path + ": committed " + a.dump() + ", regenerated " + b.dump());
    return;
  }
  if (a.type() != b.type()) {
    out.push_back(path + ": committed " + a.dump() + ", regenerated " + b.dump());
    return;
  }
  if (a.is_object()) {
    for (const auto& [k, v] : a.items()) {
      if (path.empty() && k == "run") continue;
      const std::string p = path.empty() ? k : path + "." + k;
      if (!b.contains(k)) out.push_back(p + ": committed " + v.dump() + ", regenerated (absent)");
      else diff(v, b[k], p, out);
    }
    for (const auto& [k, v] : b.items())
      if (!(path.empty() && k == "run") && !a.contains(k))
        out.push_back((path.empty() ? k : path + "." + k) + ": committed (absent), regenerated " + v.dump());
    return;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) {
      out.push_back(path + ": committed " + std::to_string(a.size()) + " entries, regenerated " + std::to_string(b.size()));
      return;
    }
    for (std::size_t i = 0; i < a.size(); ++i) diff(a[i], b[i], path + "." + std::to_string(i), out);
    return;
  }
  if (a != b) out.push_back(path + ": committed " + a.dump() + ", regenerated " + b.dump());
}

}  // namespace

std::vector<std::string> compare_predictions(const json& committed, const json& regenerated) {
  std::vector<std::string> out;
  diff(committed, regenerated, "", out);
  return out;
}

}  // namespace divbench::model
