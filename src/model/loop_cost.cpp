// The loop-cost model: an in-order issue schedule from control words with two constants (B, W),
// its fit to measured a values, and its use on a cost result (loop_cost.hpp).
#include "divbench/model/loop_cost.hpp"
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

using namespace sass;  // the analyzer's loop facts, control words and kernel-facts readers

bool is_memory_access(const std::string& b) {
  static const char* const kPrefixes[] = {"LD", "ST", "ATOM", "TEX", "TLD", "TMML", "TXD", "TXQ", "SU"};
  if (b == "RED" || b == "CCTL") return true;
  for (const char* p : kPrefixes)
    if (b.rfind(p, 0) == 0) return true;
  return false;
}

namespace {

bool memory_class(const LoopInstruction& i) { return is_memory_access(i.base); }

bool schedulable(const LoopFacts& l, std::string* why) {
  if (l.instructions.empty()) {
    if (why) *why = "not predicted: empty loop";
    return false;
  }
  if (!l.single_path) {
    if (why) *why = "not predicted: the loop has more than one path per iteration";
    return false;
  }
  for (const auto& i : l.instructions)
    if (!i.control) {
      if (why) *why = "not predicted: no decoded control words (stall fields) in this listing";
      return false;
    }
  return true;
}

// Scoreboard waits inside the loop, classified by the producer that last set each waited scoreboard
// (cyclically: a producer later in the loop feeds the next iteration's consumer).
void count_waits(const LoopFacts& l, int& var, int& mem) {
  var = mem = 0;
  const std::size_t n = l.instructions.size();
  for (std::size_t c = 0; c < n; ++c) {
    const int mask = l.instructions[c].control->wait_mask;
    for (int b = 0; b < 6; ++b) {
      if (!(mask & (1 << b))) continue;
      for (std::size_t d = 1; d <= n; ++d) {
        const auto& p = l.instructions[(c + n - d) % n];
        if (p.control->write_barrier == b) {
          (memory_class(p) ? mem : var) += 1;
          break;
        }
        if (p.control->read_barrier == b) break;
      }
    }
  }
}

}  // namespace

double simulate_period(const LoopFacts& l, double B, double W, double M) {
  if (!schedulable(l, nullptr)) throw std::invalid_argument("simulate_period: loop is not schedulable");
  constexpr int kIterations = 24;
  std::array<double, 6> ready{};  // when each scoreboard is released
  double t = 0;
  std::vector<double> starts;
  for (int it = 0; it < kIterations; ++it) {
    for (std::size_t k = 0; k < l.instructions.size(); ++k) {
      const auto& i = l.instructions[k];
      const ControlWord& w = *i.control;
      double issue = t;
      for (int b = 0; b < 6; ++b)
        if (w.wait_mask & (1 << b)) issue = std::max(issue, ready[b]);
      if (k == 0) starts.push_back(issue);
      if (w.write_barrier >= 0 && w.write_barrier < 6) ready[w.write_barrier] = issue + (memory_class(i) ? M : W);
      if (w.read_barrier >= 0 && w.read_barrier < 6) ready[w.read_barrier] = std::max(ready[w.read_barrier], issue);
      t = issue + w.stall + (i.jump ? B : 0.0);
    }
  }
  // The schedule is periodic after a transient; average over the second half.
  const int h = kIterations / 2;
  return (starts[kIterations - 1] - starts[h - 1]) / (kIterations - h);
}

namespace {
// Periods are sums of stalls and the constants: rounding removes floating-point residue.
double tidy(double x) { return std::round(x * 1e6) / 1e6; }
}  // namespace

CostPrediction predict_loop_cost(const LoopFacts& l, const CostConstants& c) {
  CostPrediction p;
  p.instructions = l.instruction_count();
  p.stall_sum = l.stall_sum();
  p.taken_branches = l.taken_branches;
  std::string why;
  if (!schedulable(l, &why)) {
    p.status = why;
    return p;
  }
  count_waits(l, p.variable_latency_waits, p.memory_waits);
  if (!c.taken_branch) {
    p.status = "not predicted: the taken-branch constant B is not fitted";
    return p;
  }
  const double B = *c.taken_branch;
  if (p.variable_latency_waits > 0 && !c.variable_latency) {
    p.lower_bound = tidy(simulate_period(l, B, 0, 0));
    p.status = "lower bound: the loop waits on a variable-latency instruction and W is not fitted";
    return p;
  }
  const double W = c.variable_latency.value_or(0);
  if (p.memory_waits > 0) {
    p.lower_bound = tidy(simulate_period(l, B, W, 0));
    p.status = "lower bound: the loop waits on a memory access, whose latency the model does not include";
    return p;
  }
  p.a = tidy(simulate_period(l, B, W, 0));
  p.status = "predicted";
  return p;
}

json to_json(const CostPrediction& p) {
  return json{{"a", p.a ? json(*p.a) : json(nullptr)},
              {"lower_bound", p.lower_bound ? json(*p.lower_bound) : json(nullptr)},
              {"status", p.status},
              {"instructions", p.instructions},
              {"stall_sum", p.stall_sum ? json(*p.stall_sum) : json(nullptr)},
              {"taken_branches", p.taken_branches},
              {"variable_latency_waits", p.variable_latency_waits},
              {"memory_waits", p.memory_waits}};
}

namespace {

struct Candidate {
  double B = 0, W = 0, err = std::numeric_limits<double>::infinity();
};

// The measurements of one body (one work loop): every file of it. The objective sums
// ((p - a_i) / a_i)^2 over its files = p^2 * S2 - 2p * S1 + N with S1 = sum 1/a_i, S2 = sum 1/a_i^2, so a
// grid point costs one simulation per body, not per file (kernels fit stays linear in its inputs). A
// body measured once keeps the direct form (bit-identical to fitting file by file).
struct BodyGroup {
  const MeasuredLoop* first = nullptr;
  double s1 = 0, s2 = 0;
  int n = 0;
};

std::vector<BodyGroup> group_by_body(const std::vector<const MeasuredLoop*>& used) {
  std::vector<BodyGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const auto* m : used) {
    auto [it, fresh] = index.emplace(m->body, groups.size());
    if (fresh) groups.push_back({m, 0, 0, 0});
    BodyGroup& g = groups[it->second];
    g.s1 += 1 / m->a;
    g.s2 += 1 / (m->a * m->a);
    ++g.n;
  }
  return groups;
}

double objective(const std::vector<BodyGroup>& groups, double B, double W) {
  double e = 0;
  for (const auto& g : groups) {
    const double p = simulate_period(g.first->loop, B, W, 0);
    if (g.n == 1) {
      const double r = (p - g.first->a) / g.first->a;
      e += r * r;
    } else {
      e += std::max(0.0, p * p * g.s2 - 2 * p * g.s1 + g.n);
    }
  }
  return e;
}

// Grid search of B in [0, 64] and, when needed, W in [0, 256]: 1-cycle steps, then 0.1 and 0.01
// around the best point so far.
Candidate search(const std::vector<const MeasuredLoop*>& used, bool need_w) {
  const std::vector<BodyGroup> groups = group_by_body(used);
  Candidate best;
  auto scan = [&](double b0, double b1, double w0, double w1, double step) {
    for (double B = std::max(0.0, b0); B <= b1 + 1e-9; B += step)
      for (double W = std::max(0.0, w0); W <= (need_w ? w1 : 0.0) + 1e-9; W += step) {
        const double e = objective(groups, B, W);
        if (e < best.err - 1e-15) best = {B, W, e};
      }
  };
  scan(0, 64, 0, 256, 1.0);
  for (double step : {0.1, 0.01}) {
    const Candidate c = best;
    scan(c.B - 10 * step, c.B + 10 * step, c.W - 10 * step, c.W + 10 * step, step);
  }
  best.B = std::round(best.B * 100) / 100;
  best.W = std::round(best.W * 100) / 100;
  return best;
}

bool needs_w(const LoopFacts& l) {
  int var = 0, mem = 0;
  count_waits(l, var, mem);
  return var > 0;
}

bool predictable(const LoopFacts& l) {
  if (!schedulable(l, nullptr)) return false;
  int var = 0, mem = 0;
  count_waits(l, var, mem);
  return mem == 0;
}

CostConstants constants_for(const std::vector<const MeasuredLoop*>& used, int sm) {
  CostConstants c;
  c.sm = sm;
  if (used.empty()) return c;
  bool w = false;
  for (const auto* m : used) w = w || needs_w(m->loop);
  const Candidate best = search(used, w);
  c.taken_branch = best.B;
  if (w) c.variable_latency = best.W;
  return c;
}

}  // namespace

CostFit fit_constants(const std::vector<MeasuredLoop>& measured, int sm, const json& source) {
  CostFit fit;
  std::vector<const MeasuredLoop*> used;
  for (const auto& m : measured)
    if (predictable(m.loop) && m.a > 0) used.push_back(&m);
  fit.constants = constants_for(used, sm);
  json src = source;
  json names = json::array();
  for (const auto* m : used) names.push_back(m->body);
  src["bodies_fitted"] = names;
  src["objective"] = "least squares of (predicted - measured) / measured over the bodies fitted";
  fit.constants.source = src;
  // Leave one body out: the constants fitted without any file of this body (computed once per body).
  const std::set<const MeasuredLoop*> used_set(used.begin(), used.end());
  std::map<std::string, CostConstants> loo_by_body;
  for (const auto& m : measured) {
    BodyFit b;
    b.body = m.body;
    b.a = m.a;
    b.used = used_set.count(&m) > 0;
    b.fitted = predict_loop_cost(m.loop, fit.constants);
    if (b.used) {
      auto it = loo_by_body.find(m.body);
      if (it == loo_by_body.end()) {
        std::vector<const MeasuredLoop*> rest;
        for (const auto* u : used)
          if (u->body != m.body) rest.push_back(u);
        it = loo_by_body.emplace(m.body, constants_for(rest, sm)).first;
      }
      b.loo = predict_loop_cost(m.loop, it->second);
    }
    fit.bodies.push_back(std::move(b));
  }
  return fit;
}

namespace {

json rel_err(const std::optional<double>& pred, double a) {
  return pred && a > 0 ? json((*pred - a) / a) : json(nullptr);
}

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

}  // namespace

json to_json(const CostFit& f) {
  json j = constants_json(f.constants);
  json bodies = json::array();
  for (const auto& b : f.bodies) {
    bodies.push_back(json{{"body", b.body},
                          {"a", b.a},
                          {"fitted", b.used},
                          {"a_predicted", b.fitted.a ? json(*b.fitted.a) : json(nullptr)},
                          {"a_rel_err", rel_err(b.fitted.a, b.a)},
                          {"a_predicted_loo", b.loo.a ? json(*b.loo.a) : json(nullptr)},
                          {"a_rel_err_loo", rel_err(b.loo.a, b.a)},
                          {"a_lower_bound", b.fitted.lower_bound ? json(*b.fitted.lower_bound) : json(nullptr)},
                          {"prediction", to_json(b.fitted)}});
  }
  j["bodies"] = bodies;
  return j;
}

std::string fit_summary(const CostFit& f) {
  std::ostringstream s;
  char buf[256];
  auto num = [](const std::optional<double>& v) {
    char b[32];
    if (!v) return std::string("n/a");
    std::snprintf(b, sizeof b, "%.2f", *v);
    return std::string(b);
  };
  s << "loop-cost model sm_" << f.constants.sm << ": B (taken branch) = " << num(f.constants.taken_branch)
    << " cycles, W (variable latency) = " << num(f.constants.variable_latency) << " cycles\n";
  for (const auto& b : f.bodies) {
    const auto shown = b.fitted.a ? b.fitted.a : b.fitted.lower_bound;
    std::snprintf(buf, sizeof buf, "  %-14s a = %9.3f  predicted %9s (%s)  leave-one-out %9s\n", b.body.c_str(), b.a,
                  num(shown).c_str(), b.fitted.a ? "fitted" : b.fitted.status.c_str(), num(b.loo.a).c_str());
    s << buf;
  }
  return s.str();
}

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
  if (abs_ec) return "";
  for (fs::path dir = start; !dir.empty(); dir = dir.parent_path()) {
    const fs::path committed = dir / kCommittedConstantsFile;
    if (fs::is_regular_file(committed, ec)) return committed.string();
    if (dir == dir.parent_path()) break;
  }
  return "";
}

std::optional<CostConstants> load_constants(const std::string& path, std::string& used, std::string& why) {
  used = path.empty() ? default_constants_path(own_executable_dir()) : path;
  if (used.empty()) {
    why = std::string("no loop-cost constants: no loop_cost.json next to the executable and no ") +
          kCommittedConstantsFile + " above it (give the file)";
    return std::nullopt;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(used, ec)) {
    why = used + ": no such file";
    return std::nullopt;
  }
  try {
    return constants_from_json(read_json_file(used), used);
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
}

std::vector<std::string> kway_body_needles(const std::string& body) {
  std::string camel;
  bool up = true;
  for (char ch : body) {
    if (ch == '_') {
      up = true;
      continue;
    }
    camel += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    up = false;
  }
  return {"kway_kernel", std::to_string(camel.size()) + camel + "E"};
}

std::vector<LoopFacts> body_work_loops(const json& facts, int sm, const std::string& body) {
  std::vector<LoopFacts> out;
  auto fns = find_functions(facts, sm, kway_body_needles(body));
  // Name order with shorter names first: placement 0, 1, ... (the Pad is the only difference).
  std::sort(fns.begin(), fns.end(), [](const json* a, const json* b) {
    const std::string x = (*a)["name"].get<std::string>(), y = (*b)["name"].get<std::string>();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  for (const json* f : fns) {
    if (!f->contains("work_loop") || (*f)["work_loop"].is_null())
      throw UsageError("kway_kernel<" + body + "> (sm_" + std::to_string(sm) + "): no single work loop in its timed region");
    const int id = (*f)["work_loop"].get<int>();
    out.push_back(loop_from_json((*f)["loops"].at(static_cast<std::size_t>(id))));
  }
  if (out.empty()) throw UsageError("no kway_kernel<" + body + "> for sm_" + std::to_string(sm) + " in the kernel facts");
  return out;
}

namespace {

int device_sm(const json& result, const std::string& what) {
  try {
    const auto& d = result.at("device");
    if (d.contains("cc_major")) return d.at("cc_major").get<int>() * 10 + d.at("cc_minor").get<int>();
    if (const int sm = sm_of_cc(d.at("cc").get<std::string>())) return sm;
  } catch (const json::exception& e) {  // e.what(): the path of the key that is missing or wrong
    throw UsageError(what + ": no device compute capability (device.cc): " + e.what());
  }
  throw UsageError(what + ": device.cc is not MAJOR.MINOR");
}

// A difference of cycles per iteration to the whole cycle when it lies within 0.01 of one: a loop's
// steady state is a whole number of cycles, the rest (~1e-4) is the timer's noise.
double whole_cycles(double d) { return std::fabs(d - std::round(d)) < 0.01 ? std::round(d) : d; }

json facts_source(const json& facts, const std::string& facts_path) {
  json s{{"kernel_facts", facts_path}};
  if (facts.contains("provenance")) s["kernel_facts_git"] = facts["provenance"].value("git", "");
  return s;
}

}  // namespace

CostFit fit_from_cost_result(const json& cost, const std::string& cost_path, const json& facts,
                             const std::string& facts_path) {
  const int sm = device_sm(cost, cost_path);
  if (!cost.contains("summary") || !cost["summary"].contains("bodies") || !cost["summary"]["bodies"].is_array())
    throw UsageError(cost_path + ": no summary.bodies[] (a --sweep cost result)");
  std::vector<MeasuredLoop> measured;
  std::size_t index = 0;
  for (const auto& b : cost["summary"]["bodies"]) {
    const std::string where = "/summary/bodies/" + std::to_string(index++);  // the key path, as the json library names it
    if (b.contains("linear_in_n") && b["linear_in_n"] == false) continue;  // no a published: not linear in n
    if (!b.contains("body") || !b.contains("a") || !b["a"].is_number())
      throw UsageError(cost_path + ": (" + where + ") summary.bodies[] entry without body and numeric a");
    const double a = b["a"].get<double>();
    if (!std::isfinite(a) || a <= 0) throw UsageError(cost_path + ": body " + b["body"].get<std::string>() + " has a <= 0");
    const std::string body = b["body"].get<std::string>();
    measured.push_back({body, a, body_work_loops(facts, sm, body).front()});
  }
  json src = facts_source(facts, facts_path);
  src["measured"] = cost_path;
  src["measured_quantity"] = "summary.bodies[].a of --sweep cost (least-squares a of T(k,n) = k(an+b)+c)";
  if (cost.contains("device")) src["device"] = cost["device"].value("name", "");
  const json& p = cost.contains("provenance") ? cost["provenance"] : cost;
  src["measured_git"] = p.value("git", "");
  src["measured_created"] = p.value("created", "");
  CostFit fit = fit_constants(measured, sm, src);
  // D: what one divergent branch execution costs beyond its instructions. At k = 1 no branch of the
  // k-way kernel diverges, at k = 2 the branches of both paths do; its no-divergence control runs the
  // same steps without diverging. So (T(2) - T(1)) of the divergent kernel minus the same step of the
  // control, halved, per (body, placement, n) series of the linear bodies; the median over the series.
  // (b_divergence, the slope difference, also holds the constant-cache steps at k = 4 and 20 that only
  // the k-way kernel's parameter reads take: docs/dynamic.md.)
  if (cost.contains("points") && cost["points"].is_array()) {
    std::map<std::tuple<std::string, int, long long, std::string, int>, double> t;
    std::set<std::string> linear;
    for (const auto& b : cost["summary"]["bodies"])
      if (b.contains("body") && (!b.contains("linear_in_n") || b["linear_in_n"] != false)) linear.insert(b["body"].get<std::string>());
    for (const auto& pt : cost["points"]) {
      if (!pt.contains("axes") || !pt.contains("median_cycles") || !pt["median_cycles"].is_number()) continue;
      const json& a = pt["axes"];
      if (!a.contains("body") || !a.contains("placement") || !a.contains("n") || !a.contains("region") || !a.contains("k")) continue;
      t[{a["body"].get<std::string>(), a["placement"].get<int>(), a["n"].get<long long>(), a["region"].get<std::string>(),
         a["k"].get<int>()}] = pt["median_cycles"].get<double>();
    }
    std::vector<double> steps;
    for (const auto& [key, v] : t) {
      const auto& [body, placement, n, region, k] = key;
      if (region != "divergent" || k != 1 || !linear.count(body)) continue;
      const auto d2 = t.find({body, placement, n, "divergent", 2});
      const auto c1 = t.find({body, placement, n, "control", 1});
      const auto c2 = t.find({body, placement, n, "control", 2});
      if (d2 == t.end() || c1 == t.end() || c2 == t.end()) continue;
      steps.push_back(0.5 * ((d2->second - v) - (c2->second - c1->second)));
    }
    if (!steps.empty()) {
      std::sort(steps.begin(), steps.end());
      const std::size_t m = steps.size() / 2;
      fit.constants.divergent_path = steps.size() % 2 ? steps[m] : 0.5 * (steps[m - 1] + steps[m]);
      fit.constants.divergent_path_series = static_cast<int>(steps.size());
      fit.constants.divergent_path_min = steps.front();
      fit.constants.divergent_path_max = steps.back();
    }
  }
  // The placement band: each fitted body's a at each placement against the prediction from that
  // placement's own work loop (the kernels differ only by their placement filler).
  std::optional<double> lo, hi;
  std::optional<int> excess_from;
  json residuals = json::array();
  for (const auto& b : cost["summary"]["bodies"]) {
    if (!b.contains("placements") || !b["placements"].is_array()) continue;
    const std::string body = b.value("body", "");
    const auto used = std::find_if(fit.bodies.begin(), fit.bodies.end(),
                                   [&](const BodyFit& f) { return f.body == body && f.used; });
    if (used == fit.bodies.end()) continue;
    const std::vector<LoopFacts> loops = body_work_loops(facts, sm, body);
    for (const auto& pl : b["placements"]) {
      const int placement = pl.value("placement", -1);
      if (placement < 0 || placement >= static_cast<int>(loops.size()) || !pl.contains("a") || !pl["a"].is_number())
        continue;
      const LoopFacts& loop = loops[static_cast<std::size_t>(placement)];
      const CostPrediction pred = predict_loop_cost(loop, fit.constants);
      if (!pred.a) continue;
      const double r = whole_cycles(pl["a"].get<double>() - *pred.a);
      const int offset = static_cast<int>(loop.header % kFetchBlockBytes);
      lo = lo ? std::min(*lo, r) : r;
      hi = hi ? std::max(*hi, r) : r;
      if (r >= 1) excess_from = std::min(excess_from.value_or(kFetchBlockBytes), offset / 16 * 16);
      residuals.push_back(json{{"body", body}, {"placement", placement}, {"measured", pl["a"]}, {"predicted", *pred.a},
                               {"loop_start", loop.header}, {"fetch_block_offset", offset}});
    }
  }
  if (lo && hi) {
    fit.constants.band_below = std::max(0.0, -*lo);
    fit.constants.band_above = std::max(0.0, *hi);
    fit.constants.excess_from_offset = excess_from;  // none without a whole-cycle excess: the band everywhere
    fit.constants.source["placement_residuals"] = residuals;
  }
  return fit;
}

bool in_excess_region(const CostConstants& c, long loop_start) {
  return !c.excess_from_offset || loop_start % kFetchBlockBytes >= *c.excess_from_offset;
}

std::optional<std::pair<double, double>> prediction_interval(const CostPrediction& p, const CostConstants& c,
                                                            long loop_start) {
  if (!p.a) return std::nullopt;
  const double above = in_excess_region(c, loop_start) ? c.band_above.value_or(0) : 0.0;
  return std::make_pair(*p.a - c.band_below.value_or(0), *p.a + above);
}

json predict_loops(const json& facts, const std::string& function_regex, const CostConstants& c) {
  std::regex re;
  try {
    re = std::regex(function_regex);
  } catch (const std::regex_error& e) {
    throw UsageError("--function: not a regular expression: " + function_regex + " (" + e.what() + ")");
  }
  json loops = json::array();
  int matched = 0;
  for (const auto& cubin : facts.value("cubins", json::array())) {
    for (const auto& f : cubin.value("functions", json::array())) {
      const std::string name = f.value("name", ""), demangled = f.value("demangled", "");
      if (!std::regex_search(name, re) && !std::regex_search(demangled, re)) continue;
      ++matched;
      for (const auto& lj : f.value("loops", json::array())) {
        const LoopFacts l = loop_from_json(lj);
        if (l.timer_retry) continue;
        const CostPrediction pred = predict_loop_cost(l, c);
        const auto interval = prediction_interval(pred, c, l.header);
        const auto stall = l.stall_sum();
        loops.push_back(json{{"function", name},
                             {"sm", cubin.value("sm", 0)},
                             {"loop_start", l.header},
                             {"instructions", l.instruction_count()},
                             {"stall_sum", stall ? json(*stall) : json(nullptr)},
                             {"a_predicted", pred.a ? json(*pred.a) : json(nullptr)},
                             {"a_min", interval ? json(interval->first) : json(nullptr)},
                             {"a_max", interval ? json(interval->second) : json(nullptr)},
                             {"a_lower_bound", pred.lower_bound ? json(*pred.lower_bound) : json(nullptr)},
                             {"status", pred.status}});
      }
    }
  }
  if (matched == 0) throw UsageError("--function: no function matches " + function_regex);
  return json{{"loops", loops}};
}

CostFit fit_from_kway_results(const std::vector<json>& kway, const std::vector<std::string>& paths, const json& facts,
                              const std::string& facts_path) {
  if (kway.empty()) throw UsageError("kernels fit: no --kway results");
  const int sm = device_sm(kway.front(), paths.front());
  std::vector<MeasuredLoop> measured;
  std::map<std::string, LoopFacts> loops;
  json files = json::array(), gits = json::array();
  for (std::size_t i = 0; i < kway.size(); ++i) {
    const json& r = kway[i];
    if (device_sm(r, paths[i]) != sm) throw UsageError(paths[i] + ": another architecture than " + paths.front());
    double s = 0, n = 0;
    std::string body;
    try {
      body = r.at("config").at("body").get<std::string>();
      n = r.at("config").at("iters").get<double>();
      s = r.at("fit").at("s").get<double>();
    } catch (const json::exception& e) {  // e.what(): the path of the key that is missing or wrong
      throw UsageError(paths[i] + ": not a --sweep k result (config.body, config.iters, fit.s): " + e.what());
    }
    if (!(n > 0) || !(s > 0) || !std::isfinite(s)) throw UsageError(paths[i] + ": fit.s or config.iters not positive");
    auto loop = loops.find(body);  // once per body: the facts are searched per body, not per file
    if (loop == loops.end()) loop = loops.emplace(body, body_work_loops(facts, sm, body).front()).first;
    measured.push_back({body, s / n, loop->second});
    files.push_back(paths[i]);
    gits.push_back(r.value("git", ""));
  }
  json src = facts_source(facts, facts_path);
  src["measured"] = files;
  src["measured_git"] = gits;
  src["measured_quantity"] =
      "provisional: a ~ s/n from --sweep k results (fit.s at config.iters = n), which still includes b/n";
  if (kway.front().contains("device")) src["device"] = kway.front()["device"].value("name", "");
  return fit_constants(measured, sm, src);
}


json validate_loops(const json& loops_result, const std::string& loops_path, const json& facts, const CostConstants& c,
                    const std::function<std::string(const std::string&, int)>& needle) {
  if (loops_result.value("experiment", "") != "loops" || !loops_result.contains("summary") ||
      !loops_result["summary"].contains("loops") || !loops_result["summary"]["loops"].is_array())
    throw UsageError(loops_path + ": not a --sweep loops result (summary.loops[])");
  const int sm = device_sm(loops_result, loops_path);
  json rows = json::array();
  std::vector<double> errs;
  int within3 = 0, inside = 0, goal = 0;
  double widest = 0, beyond = 0;
  for (const auto& m : loops_result["summary"]["loops"]) {
    std::string body;
    int placement = 0;
    double measured = 0;
    try {
      body = m.at("body").get<std::string>();
      placement = m.at("placement").get<int>();
      measured = m.at("a").get<double>();
    } catch (const json::exception& e) {  // e.what(): the path of the key that is missing or wrong
      throw UsageError(loops_path + ": summary.loops[] entry without body, placement and a: " + e.what());
    }
    const auto fns = find_functions(facts, sm, {needle(body, placement)});
    if (fns.size() != 1 || !fns.front()->contains("work_loop") || (*fns.front())["work_loop"].is_null())
      throw UsageError("validation loop " + body + " placement " + std::to_string(placement) + ": " +
                       std::to_string(fns.size()) + " functions with a work loop in the facts for sm_" +
                       std::to_string(sm) + " (want 1)");
    const json& f = *fns.front();
    const LoopFacts loop = loop_from_json(f["loops"].at(f["work_loop"].get<std::size_t>()));
    const CostPrediction pred = predict_loop_cost(loop, c);
    const auto interval = prediction_interval(pred, c, loop.header);
    json row{{"body", body}, {"placement", placement}, {"measured", measured}, {"loop_start", loop.header},
             {"instructions", loop.instruction_count()},
             {"fetch_block_offset", loop.header % kFetchBlockBytes},
             {"excess_region", in_excess_region(c, loop.header)}};
    if (pred.a && measured > 0) {
      const double rel = *pred.a / measured - 1;
      const bool in = measured >= interval->first - 1e-9 && measured <= interval->second + 1e-9;
      row.update(json{{"predicted", *pred.a},
                      {"a_min", interval->first},
                      {"a_max", interval->second},
                      {"rel_err", rel},
                      {"in_interval", in}});
      errs.push_back(std::fabs(rel));
      within3 += std::fabs(rel) <= 0.03;
      inside += in;
      // The goal: within 3% of the point prediction, or inside an interval no wider than 8%.
      goal += std::fabs(rel) <= 0.03 || (in && (interval->second - interval->first) / *pred.a <= 0.08);
      // How far outside its interval the measurement lay, relative to the nearer end (0 inside).
      const double outside = measured < interval->first ? (interval->first - measured) / interval->first
                             : measured > interval->second ? (measured - interval->second) / interval->second
                                                           : 0.0;
      beyond = std::max(beyond, outside);
      widest = std::max(widest, (interval->second - interval->first) / *pred.a);
    } else {
      row.update(json{{"predicted", nullptr}, {"a_min", nullptr}, {"a_max", nullptr}, {"rel_err", nullptr},
                      {"in_interval", nullptr}, {"status", pred.status}});
    }
    rows.push_back(row);
  }
  json out{{"validation", rows}, {"oos_points", errs.size()}};
  if (errs.empty()) {
    out["oos_median_abs_err"] = nullptr;
    out["oos_max_abs_err"] = nullptr;
  } else {
    std::vector<double> sorted = errs;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    out["oos_median_abs_err"] = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    out["oos_max_abs_err"] = sorted.back();
  }
  // The address rule out of sample: a placement whose a lies a cycle or more above the body's lowest a
  // over its placements paid the placement excess; how many of those start in the excess region, and
  // how many points the region holds.
  std::map<std::string, double> lowest;
  for (const auto& r : rows) {
    const std::string b = r["body"].get<std::string>();
    const double m = r["measured"].get<double>();
    lowest[b] = lowest.count(b) ? std::min(lowest[b], m) : m;
  }
  int excess = 0, excess_in = 0, flagged = 0;
  for (const auto& r : rows) {
    const bool paid = whole_cycles(r["measured"].get<double>() - lowest[r["body"].get<std::string>()]) >= 1;
    const bool in = r["excess_region"].get<bool>();
    excess += paid;
    excess_in += paid && in;
    flagged += in;
  }
  out["placement_excess_points"] = excess;
  out["placement_excess_in_region"] = excess_in;
  out["excess_region_points"] = flagged;
  out["oos_within_3pct"] = within3;
  out["oos_goal_points"] = goal;  // within 3%, or inside an interval no wider than 8%
  out["oos_goal_met"] = !errs.empty() && goal == static_cast<int>(errs.size());
  out["oos_in_interval"] = inside;
  out["oos_max_interval_rel_width"] = widest;
  out["oos_max_outside_interval_rel"] = beyond;  // the model's error beyond its placement interval
  json src{{"measured", loops_path}};
  const json& p = loops_result.contains("provenance") ? loops_result["provenance"] : loops_result;
  src["measured_git"] = p.value("git", json(""));
  src["measured_created"] = p.value("created", json(""));
  src["note"] = "loops the constants were not fitted on (experiments/loops/), each predicted from its own placement's SASS";
  out["validation_source"] = src;
  return out;
}

}  // namespace divbench::model
