// The loop-cost model (loop_cost.hpp): the in-order issue schedule from control words with two
// constants (B, W), its prediction for one loop, the placement interval, and the model applied to every
// loop of any cubin's facts. The fit is loop_cost_fit.cpp, the constants' file loop_cost_constants.cpp,
// its use on divbench's own result documents loop_cost_documents.cpp.
#include "divbench/model/loop_cost.hpp"
#include "loop_cost_detail.hpp"

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

}  // namespace

namespace detail {

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

}  // namespace detail

using detail::count_waits;
using detail::schedulable;

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

}  // namespace divbench::model
