// `divbench attribute diff`: the verdict on two attribute documents (include/divbench/attribute/diff.hpp).
#include "divbench/attribute/diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "divbench/attribute/diff_ci.hpp"
#include "divbench/attribute/report.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/model/kernel_facts.hpp"

namespace divbench::attribute {
namespace {

// One branch's numbers, as the diff compares them.
struct Branch {
  const json* doc = nullptr;
  std::uint64_t pc = 0;
  std::string source;  // "" when the line table gave none
  std::string file;    // source without ":line"
  long line = -1;
  std::size_t ordinal = 0;  // among the kernel's branches of the same key base (line, or the kernel)
  double executions = 0, divergent = 0, region_warp = 0, region_thread = 0, cycles_lost = 0;
  std::optional<double> lanes_inside, efficiency;
};

struct Kernel {
  const json* doc = nullptr;
  std::string mangled, name;  // name: demangled
  std::vector<Branch> branches;  // pc order
  bool has_lines = false;
  double spread = 0;  // "nondeterministic": {"spread": x}
};

double num(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? std::max(0.0, it->get<double>()) : 0.0;
}

std::string where(const std::string& what, std::size_t k, std::size_t b = std::string::npos) {
  std::string s = what + ": (/kernels/" + std::to_string(k);
  if (b != std::string::npos) s += "/branches/" + std::to_string(b);
  return s + ")";
}

std::vector<Kernel> read_kernels(const json& doc) {
  std::vector<Kernel> out;
  for (const auto& jk : doc.at("kernels")) {
    Kernel k;
    k.doc = &jk;
    k.mangled = jk.at("name").get<std::string>();
    k.name = model::demangle(k.mangled);
    if (const auto nd = jk.find("nondeterministic"); nd != jk.end() && nd->is_object()) k.spread = num(*nd, "spread");
    for (const auto& jb : jk.at("branches")) {
      Branch b;
      b.doc = &jb;
      b.pc = jb.at("pc").get<std::uint64_t>();
      if (jb.at("source").is_string()) b.source = jb.at("source").get<std::string>();
      b.file = b.source;
      if (const auto colon = b.source.rfind(':'); colon != std::string::npos) {
        try {
          std::size_t used = 0;
          b.line = std::stol(b.source.substr(colon + 1), &used);
          if (used == b.source.size() - colon - 1) {
            // One spelling of the file ("build/../src/k.cu" is "src/k.cu"): builds in other folders still match.
            b.file = std::filesystem::path(b.source.substr(0, colon)).lexically_normal().string();
            b.source = b.file + ":" + std::to_string(b.line);
          } else {
            b.line = -1;
          }
        } catch (const std::exception&) {
          b.line = -1;
        }
      }
      b.executions = num(jb, "executions");
      b.divergent = num(jb, "divergent_executions");
      b.region_warp = num(jb, "region_warp_instructions");
      b.region_thread = num(jb, "region_thread_instructions");
      b.cycles_lost = num(jb, "cycles_lost");
      if (b.region_warp > 0) {
        b.lanes_inside = b.region_thread / b.region_warp;
        b.efficiency = b.region_thread / (32.0 * b.region_warp);
      }
      k.has_lines = k.has_lines || !b.source.empty();
      k.branches.push_back(std::move(b));
    }
    std::stable_sort(k.branches.begin(), k.branches.end(), [](const Branch& a, const Branch& b) { return a.pc < b.pc; });
    out.push_back(std::move(k));
  }
  return out;
}

// The key a branch is matched on: by line (source + ordinal on that line) or by its ordinal in the kernel.
std::vector<std::string> keys(std::vector<Branch>& branches, bool by_line) {
  std::map<std::string, std::size_t> seen;
  std::vector<std::string> out;
  for (auto& b : branches) {
    const std::string base = by_line ? b.source : std::string();
    b.ordinal = seen[base]++;
    out.push_back(base + "#" + std::to_string(b.ordinal));
  }
  return out;
}

json opt_num(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json before_after(const json& a, const json& b) { return json{{"base", a}, {"new", b}}; }

json branch_side(const Branch& b) {
  return json{{"pc", b.pc},
              {"source", b.source.empty() ? json(nullptr) : json(b.source)},
              {"ordinal", b.ordinal},
              {"instruction", b.doc->value("instruction", std::string())},
              {"executions", b.executions},
              {"divergent_executions", b.divergent},
              {"active_lanes_inside", opt_num(b.lanes_inside)},
              {"region_efficiency", opt_num(b.efficiency)},
              {"cycles_lost", b.cycles_lost}};
}

// |a - b| beyond the tolerance: exact (spread 0) or relative to the larger.
bool differs(double a, double b, double spread) {
  if (spread <= 0) return a != b;
  return std::fabs(a - b) > spread * std::max(std::fabs(a), std::fabs(b));
}

std::string short_name(const std::string& demangled) {
  // "ns::Kernel<...>(args)" -> "ns::Kernel<...>": the argument list adds nothing to a table.
  std::string s = demangled;
  if (s.size() > 90) s = s.substr(0, 87) + "...";
  return s;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The file of NEW each file of BASE's branches is (by their normalised paths): the same path, else the one
// file of NEW with the same name and the longest common suffix of path components (a checkout in another
// folder); a file of NEW no file of BASE takes maps to itself. The result maps NEW's paths to BASE's.
std::map<std::string, std::string> map_files(const std::vector<Branch>& base, const std::vector<Branch>& next) {
  std::set<std::string> fb, fn;
  for (const auto& b : base)
    if (b.line >= 0) fb.insert(b.file);
  for (const auto& b : next)
    if (b.line >= 0) fn.insert(b.file);
  std::map<std::string, std::string> out;
  std::set<std::string> taken;
  const auto parts = [](const std::string& f) {
    std::vector<std::string> v;
    for (const auto& c : std::filesystem::path(f)) v.push_back(c.string());
    return v;
  };
  for (const auto& f : fb)
    if (fn.count(f)) out[f] = f, taken.insert(f);
  for (const auto& f : fb) {
    if (fn.count(f)) continue;
    const auto pf = parts(f);
    std::string best;
    std::size_t best_len = 0;
    bool tie = false;
    for (const auto& g : fn) {
      if (taken.count(g)) continue;
      const auto pg = parts(g);
      std::size_t n = 0;
      while (n < pf.size() && n < pg.size() && pf[pf.size() - 1 - n] == pg[pg.size() - 1 - n]) ++n;
      if (n == 0) continue;
      if (n > best_len) best = g, best_len = n, tie = false;
      else if (n == best_len) tie = true;
    }
    if (!best.empty() && !tie) out[best] = f, taken.insert(best);
  }
  for (const auto& g : fn)
    if (!out.count(g) && !fb.count(g)) out[g] = g;
  return out;
}

}  // namespace

void check_attribute_document(const json& doc, const std::string& what) {
  if (!doc.is_object()) throw UsageError(what + ": not a JSON object (a divbench.attribute/1 document)");
  const auto s = doc.find("schema");
  if (s == doc.end() || !s->is_string())
    throw UsageError(what + ": no \"schema\" key (a divbench.attribute/1 document, from divbench attribute --out)");
  if (s->get<std::string>() != kAttributeSchema)
    throw UsageError(what + ": schema " + one_line(s->get<std::string>()) + ", not " + kAttributeSchema);
  const auto ks = doc.find("kernels");
  if (ks == doc.end() || !ks->is_array()) throw UsageError(what + ": (/kernels) missing or not an array");
  if (ks->empty())
    throw UsageError(what + ": (/kernels) is empty: divbench attribute writes no document without a kernel (a run that "
                            "counted nothing fails)");
  for (std::size_t k = 0; k < ks->size(); ++k) {
    const json& jk = (*ks)[k];
    if (!jk.is_object() || !jk.contains("name") || !jk["name"].is_string() || jk["name"].get<std::string>().empty())
      throw UsageError(where(what, k) + " a kernel without a name");
    if (!jk.contains("branches") || !jk["branches"].is_array()) throw UsageError(where(what, k) + " no branches array");
    if (const auto nd = jk.find("nondeterministic"); nd != jk.end() && !nd->is_null() && *nd != json(false)) {
      if (!nd->is_object() || !nd->contains("spread") || !(*nd)["spread"].is_number() ||
          !((*nd)["spread"].get<double>() >= 0 && (*nd)["spread"].get<double>() <= 1))
        throw UsageError(where(what, k) + " nondeterministic must be {\"spread\": x} with x a number in 0..1 (or false)");
    }
    for (std::size_t b = 0; b < jk["branches"].size(); ++b) {
      const json& jb = jk["branches"][b];
      if (!jb.is_object()) throw UsageError(where(what, k, b) + " a branch that is not an object");
      if (!jb.contains("pc") || !jb["pc"].is_number_unsigned())
        throw UsageError(where(what, k, b) + " pc missing or not a non-negative integer");
      if (!jb.contains("source") || !(jb["source"].is_string() || jb["source"].is_null()))
        throw UsageError(where(what, k, b) + " source missing (a string \"file:line\" or null)");
      for (const char* key : {"executions", "divergent_executions", "region_warp_instructions",
                              "region_thread_instructions", "cycles_lost"}) {
        const auto it = jb.find(key);
        // cycles_lost is a difference of sums: divbench wrote negative ones (rounding residues like -5.2e-08,
        // and where its model's terms did not hold, -465) before its costs were clamped at 0 (attribution.cpp);
        // such a document is read with its negative costs as 0, and the verdict says so (negative_costs).
        const bool cost = std::string(key) == "cycles_lost";
        if (it == jb.end() || !it->is_number() || !std::isfinite(it->get<double>()) || (!cost && it->get<double>() < 0))
          throw UsageError(where(what, k, b) + " " + key + " missing or not a " + (cost ? "finite number" : "finite number >= 0"));
      }
      // Counts divbench could not have written: a two-way branch diverges at most once per execution, and
      // a region runs at most 32 threads per warp instruction (an indirect branch counts each extra target).
      const bool indirect = jb.value("indirect", false) == true;
      if (!indirect && jb["divergent_executions"].get<double>() > jb["executions"].get<double>())
        throw UsageError(where(what, k, b) + " divergent_executions " + fmt("%.17g", jb["divergent_executions"].get<double>()) +
                         " > executions " + fmt("%.17g", jb["executions"].get<double>()) +
                         ": impossible for a two-way branch (not a document divbench wrote)");
      if (jb["region_thread_instructions"].get<double>() > 32.0 * jb["region_warp_instructions"].get<double>())
        throw UsageError(where(what, k, b) + " region_thread_instructions > 32 x region_warp_instructions: impossible");
    }
  }
}

json diff_documents(const json& base, const json& next, const DiffOptions& o, const std::string& base_label,
                    const std::string& new_label) {
  check_attribute_document(base, "BASE " + base_label);
  check_attribute_document(next, "NEW " + new_label);
  std::vector<Kernel> kb = read_kernels(base), kn = read_kernels(next);
  json findings = json::array(), warnings = json::array();
  // One entry per finding, same order: what `--annotations` and `--sarif` need (rule, kernel, file, line).
  json regressions = json::array();
  const auto regress = [&](const char* rule, const Kernel& k, const Branch& b, const std::string& text,
                           const json& cycles_base) {
    findings.push_back(text);
    regressions.push_back({{"rule", rule},
                           {"kernel", k.name},
                           {"mangled", k.mangled},
                           {"file", b.line >= 0 ? json(b.file) : json(nullptr)},
                           {"line", b.line >= 0 ? json(b.line) : json(nullptr)},
                           {"ordinal", b.ordinal},
                           {"pc", b.pc},
                           {"message", text},
                           {"cycles_lost", before_after(cycles_base, b.cycles_lost)}});
  };
  const auto side = [](const json& doc, const std::string& label) {
    const json& p = doc.value("provenance", json::object());
    return json{{"input", label},
                {"git", p.value("git", std::string())},
                {"command", doc.value("program", json::object()).value("command", std::string())},
                {"device", doc.value("device", json::object()).value("name", std::string())},
                {"cost_model", doc.value("cost_model", json::object()).value("file", std::string())}};
  };
  const json sb = side(base, base_label), sn = side(next, new_label);
  if (sb["device"] != sn["device"])
    warnings.push_back("the documents come from different GPUs (" + sb["device"].get<std::string>() + ", " +
                       sn["device"].get<std::string>() + "): counts and estimates may differ for that reason");
  const auto cm = [](const json& d) {
    const json c = d.value("cost_model", json::object());
    return json{c.value("taken_branch_cycles", json(nullptr)), c.value("variable_latency_cycles", json(nullptr))};
  };
  if (cm(base) != cm(next))
    warnings.push_back("the cost models' constants differ: estimated cycles lost may change with equal counts");
  // PC-sampled time (the default run) is a sample: its part of the estimate moves from run to run.
  const auto sampled = [](const json& d) {
    const json c = d.value("collection", json::object());
    return c.contains("pc_sampling") && c["pc_sampling"].is_object();
  };
  // Negative costs an earlier divbench wrote (read as 0 by num()): said, never a reason to refuse the document.
  const auto negatives = [](const json& d) {
    std::size_t n = 0;
    for (const auto& k : d["kernels"])
      for (const auto& b : k["branches"]) n += b["cycles_lost"].get<double>() < 0;
    return n;
  };
  for (const auto& [label, d] : {std::pair<std::string, const json*>{"BASE", &base}, {"NEW", &next}})
    if (const std::size_t n = negatives(*d))
      warnings.push_back(label + " holds " + std::to_string(n) + " branch(es) with a negative cycles_lost (written by a divbench "
                         "before costs were clamped at 0, where its model's terms did not hold): read as 0");
  if (sampled(base) || sampled(next))
    warnings.push_back(std::string(sampled(base) && sampled(next) ? "BASE and NEW" : sampled(base) ? "BASE" : "NEW") +
                       " priced waits with PC samples, which move from run to run: estimated cycles lost may change "
                       "with equal counts; for an exact gate make both with --no-pc-sampling");

  // Kernels by demangled name; the k-th of a name with the k-th.
  std::map<std::string, std::vector<std::size_t>> by_name_new;
  for (std::size_t i = 0; i < kn.size(); ++i) by_name_new[kn[i].name].push_back(i);
  std::map<std::string, std::size_t> taken;
  std::vector<bool> new_used(kn.size(), false);
  json kernels = json::array(), added = json::array(), removed = json::array();
  std::size_t n_matched_branches = 0, n_changed = 0, n_added_divergent = 0, n_removed_divergent = 0;
  bool any_ordinal = false;

  const auto new_divergent_finding = [&](const Kernel& k, const Branch& b, const std::string& why) {
    std::string at = b.source;
    if (at.empty()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "pc 0x%llx", static_cast<unsigned long long>(b.pc));
      at = buf;
    }
    return short_name(k.name) + " " + at + ": " + why + " (" + fmt("%.0f", b.divergent) + " divergent executions, " +
           fmt("%.4g", b.cycles_lost) + " cycles lost)";
  };

  for (auto& K : kb) {
    auto& list = by_name_new[K.name];
    std::size_t& t = taken[K.name];
    if (t >= list.size()) {
      std::size_t div = 0;
      for (const auto& b : K.branches) div += b.divergent > 0;
      removed.push_back({{"name", K.name}, {"mangled", K.mangled}, {"divergent_branches", div}, {"cycles_lost", num(*K.doc, "cycles_lost")}});
      continue;
    }
    Kernel& N = kn[list[t++]];
    new_used[&N - kn.data()] = true;
    const bool by_line = K.has_lines && N.has_lines;
    any_ordinal = any_ordinal || !by_line;
    const double spread = std::max(K.spread, N.spread);
    const auto kb_keys = keys(K.branches, by_line), kn_keys = keys(N.branches, by_line);
    std::map<std::string, std::size_t> new_at;
    for (std::size_t i = 0; i < kn_keys.size(); ++i) new_at[kn_keys[i]] = i;
    std::vector<long> match(K.branches.size(), -1);
    std::vector<std::string> matched_by(K.branches.size());
    std::vector<bool> nb_used(N.branches.size(), false);
    // Exact keys: every branch by ordinal without a line table; with one, the branches without a line.
    for (std::size_t i = 0; i < kb_keys.size(); ++i) {
      if (by_line && K.branches[i].line >= 0) continue;
      if (const auto it = new_at.find(kb_keys[i]); it != new_at.end() && (!by_line || N.branches[it->second].line < 0)) {
        match[i] = static_cast<long>(it->second);
        matched_by[i] = by_line ? "source_line" : "branch_ordinal";
        nb_used[it->second] = true;
      }
    }
    // With a line table, per source file: lines move when code is inserted or removed above a branch. Rounds
    // of one line offset d each, the offset that pairs the most branches (line + d, same ordinal on the line)
    // first, equal counts preferring d = 0: a branch keeps its line unless most of its neighbours moved with
    // it. Pairs never cross (order in the file is kept). An offset other than 0 must pair at least two
    // branches, or the last one left on each side, so that a removed branch and an unrelated added one are
    // not taken for one branch that moved. A file of BASE is the file of NEW with the same name and the
    // longest common path suffix (two checkouts of one tree in other folders hold the same files).
    // The offsets tried in a round: 0 and those of the unmatched branches paired in file order (the k-th
    // left of an ordinal in BASE with the k-th in NEW); each is counted by lookup, so a round costs
    // O(n log n) per offset tried, not O(n^2).
    if (by_line) {
      const std::map<std::string, std::string> file_of_new = map_files(K.branches, N.branches);
      std::map<std::string, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> per_file;
      for (std::size_t i = 0; i < K.branches.size(); ++i)
        if (K.branches[i].line >= 0) per_file[K.branches[i].file].first.push_back(i);
      for (std::size_t j = 0; j < N.branches.size(); ++j)
        if (N.branches[j].line >= 0)
          if (const auto f = file_of_new.find(N.branches[j].file); f != file_of_new.end()) per_file[f->second].second.push_back(j);
      for (auto& [file, p] : per_file) {
        auto& [bi, ni] = p;
        const auto by_pos = [](const std::vector<Branch>& v) {
          return [&v](std::size_t a, std::size_t b) {
            return std::pair(v[a].line, v[a].ordinal) < std::pair(v[b].line, v[b].ordinal);
          };
        };
        std::sort(bi.begin(), bi.end(), by_pos(K.branches));
        std::sort(ni.begin(), ni.end(), by_pos(N.branches));
        std::map<std::pair<long, std::size_t>, std::size_t> new_pos;  // (line, ordinal) -> position in ni
        for (std::size_t y = 0; y < ni.size(); ++y) new_pos[{N.branches[ni[y]].line, N.branches[ni[y]].ordinal}] = y;
        std::map<std::size_t, std::size_t> pairs;  // position in bi -> position in ni, increasing in both
        const auto crosses = [&](std::size_t x, std::size_t y) {
          const auto after = pairs.upper_bound(x);
          if (after != pairs.end() && after->second <= y) return true;
          if (after != pairs.begin() && std::prev(after)->second >= y) return true;
          return false;
        };
        const auto partner = [&](std::size_t x, long d) -> std::optional<std::size_t> {
          const Branch& b = K.branches[bi[x]];
          const auto it = new_pos.find({b.line + d, b.ordinal});
          if (it == new_pos.end() || nb_used[ni[it->second]] || crosses(x, it->second)) return std::nullopt;
          return it->second;
        };
        while (true) {
          std::size_t left_b = 0, left_n = 0;
          std::map<std::size_t, std::vector<std::size_t>> open_b, open_n;  // ordinal -> positions left
          for (std::size_t x = 0; x < bi.size(); ++x)
            if (match[bi[x]] < 0) ++left_b, open_b[K.branches[bi[x]].ordinal].push_back(x);
          for (std::size_t y = 0; y < ni.size(); ++y)
            if (!nb_used[ni[y]]) ++left_n, open_n[N.branches[ni[y]].ordinal].push_back(y);
          if (left_b == 0 || left_n == 0) break;
          std::map<long, std::size_t> candidates{{0, 0}};
          for (const auto& [ord, xs] : open_b)
            if (const auto ys = open_n.find(ord); ys != open_n.end())
              for (std::size_t k = 0; k < xs.size() && k < ys->second.size(); ++k)
                ++candidates[N.branches[ni[ys->second[k]]].line - K.branches[bi[xs[k]]].line];
          // The most frequent offsets of the pairing in order (at most 64) and 0.
          std::vector<std::pair<std::size_t, long>> ranked;
          for (const auto& [off, n] : candidates) ranked.emplace_back(n, off);
          std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : std::labs(a.second) < std::labs(b.second);
          });
          if (ranked.size() > 64) ranked.resize(64);
          if (std::none_of(ranked.begin(), ranked.end(), [](const auto& r) { return r.second == 0; })) ranked.emplace_back(0, 0);
          long d = 0;
          std::size_t best = 0;
          for (const auto& [unused, off] : ranked) {
            std::size_t n = 0;
            for (const auto& [ord, xs] : open_b)
              for (std::size_t x : xs) n += partner(x, off).has_value();
            if (n > best || (n == best && (off == 0 || (d != 0 && std::labs(off) < std::labs(d))))) {
              d = off;
              best = n;
            }
          }
          if (best == 0 || (d != 0 && best < 2 && !(left_b == 1 && left_n == 1))) break;
          std::size_t applied = 0;
          for (std::size_t x = 0; x < bi.size(); ++x) {
            if (match[bi[x]] >= 0) continue;
            const auto y = partner(x, d);
            if (!y) continue;
            match[bi[x]] = static_cast<long>(ni[*y]);
            matched_by[bi[x]] = d == 0 ? "source_line" : "lines_moved";
            nb_used[ni[*y]] = true;
            pairs.emplace(x, *y);
            ++applied;
          }
          if (applied == 0) break;
        }
      }
    }

    json jb = json::array(), jadded = json::array(), jremoved = json::array();
    for (std::size_t i = 0; i < K.branches.size(); ++i) {
      const Branch& b = K.branches[i];
      if (match[i] < 0) {
        n_removed_divergent += b.divergent > 0;
        jremoved.push_back(branch_side(b));
        continue;
      }
      const Branch& a = N.branches[static_cast<std::size_t>(match[i])];
      ++n_matched_branches;
      const bool changed = differs(b.executions, a.executions, spread) || differs(b.divergent, a.divergent, spread) ||
                           differs(b.region_warp, a.region_warp, spread) ||
                           differs(b.region_thread, a.region_thread, spread) ||
                           differs(b.cycles_lost, a.cycles_lost, spread);
      n_changed += changed;
      json reasons = json::array();
      std::vector<const char*> rules;  // the rule of each reason (diff_ci.hpp)
      if (b.divergent == 0 && a.divergent > 0) {
        if (!o.allow_new_divergent_branches) {
          reasons.push_back("now diverges (it did not in BASE)");
          rules.push_back(kRuleNowDivergent);
        }
      } else {
        if (a.divergent > 0 && b.efficiency && a.efficiency) {
          const double drop = *b.efficiency - *a.efficiency, limit = o.max_efficiency_drop + spread * *b.efficiency;
          if (drop > limit + 1e-12) {
            reasons.push_back("region efficiency " + fmt("%.4f", *b.efficiency) + " -> " + fmt("%.4f", *a.efficiency) +
                              " (drop " + fmt("%.4f", drop) + " > " + fmt("%.4f", limit) + ")");
            rules.push_back(kRuleEfficiencyDrop);
          }
        }
        if (a.cycles_lost > 0 && b.cycles_lost > 0) {
          const double rise = a.cycles_lost / b.cycles_lost - 1, limit = o.max_cycles_lost_rise + spread;
          if (rise > limit + 1e-12) {
            reasons.push_back("cycles lost " + fmt("%.4g", b.cycles_lost) + " -> " + fmt("%.4g", a.cycles_lost) +
                              " (+" + fmt("%.2f", 100 * rise) + "% > " + fmt("%.2f", 100 * limit) + "%)");
            rules.push_back(kRuleCyclesLostRise);
          }
        } else if (a.cycles_lost > 0 && b.divergent > 0) {
          reasons.push_back("cycles lost 0 -> " + fmt("%.4g", a.cycles_lost));
          rules.push_back(kRuleCyclesLostRise);
        }
      }
      for (std::size_t r = 0; r < reasons.size(); ++r) {
        const std::string at = a.source.empty() ? "branch #" + std::to_string(a.ordinal) : a.source;
        regress(rules[r], N, a, short_name(K.name) + " " + at + ": " + reasons[r].get<std::string>(), b.cycles_lost);
      }
      const json sb_ = branch_side(b), sa = branch_side(a);
      json row{{"matched_by", matched_by[i]},
               {"source", before_after(sb_["source"], sa["source"])},
               {"ordinal", a.ordinal},
               {"pc", before_after(b.pc, a.pc)},
               {"executions", before_after(b.executions, a.executions)},
               {"divergent_executions", before_after(b.divergent, a.divergent)},
               {"active_lanes_inside", before_after(sb_["active_lanes_inside"], sa["active_lanes_inside"])},
               {"region_efficiency", before_after(sb_["region_efficiency"], sa["region_efficiency"])},
               {"cycles_lost", before_after(b.cycles_lost, a.cycles_lost)},
               {"changed", changed},
               {"regression", !reasons.empty()},
               {"reasons", reasons}};
      jb.push_back(std::move(row));
    }
    for (std::size_t j = 0; j < N.branches.size(); ++j) {
      if (nb_used[j]) continue;
      const Branch& a = N.branches[j];
      json row = branch_side(a);
      const bool reg = a.divergent > 0 && !o.allow_new_divergent_branches;
      n_added_divergent += a.divergent > 0;
      row["regression"] = reg;
      if (reg) regress(kRuleNewDivergentBranch, N, a, new_divergent_finding(N, a, "a new divergent branch"), nullptr);
      jadded.push_back(std::move(row));
    }
    json jk{{"name", K.name},
            {"mangled", before_after(K.mangled, N.mangled)},
            {"matching", by_line ? "source_line" : "branch_ordinal"},
            {"tolerance", {{"nondeterministic", spread > 0}, {"spread", spread}}},
            {"cycles_lost", before_after(num(*K.doc, "cycles_lost"), num(*N.doc, "cycles_lost"))},
            {"branch_targets_threads_divergent",
             before_after(num(*K.doc, "branch_targets_threads_divergent"), num(*N.doc, "branch_targets_threads_divergent"))},
            {"inst_executed", before_after(num(*K.doc, "inst_executed"), num(*N.doc, "inst_executed"))},
            {"branches", jb},
            {"branches_added", jadded},
            {"branches_removed", jremoved}};
    if (!by_line)
      jk["matching_note"] = std::string("no line table in ") + (!K.has_lines && !N.has_lines ? "BASE and NEW" : !K.has_lines ? "BASE" : "NEW") +
                            " (build with -lineinfo): branches matched by their ordinal in the kernel";
    kernels.push_back(std::move(jk));
  }
  for (std::size_t i = 0; i < kn.size(); ++i) {
    if (new_used[i]) continue;
    const Kernel& N = kn[i];
    std::size_t div = 0;
    for (auto& b : N.branches) {
      if (b.divergent <= 0) continue;
      ++div;
      ++n_added_divergent;
      if (!o.allow_new_divergent_branches)
        regress(kRuleNewKernelDivergentBranch, N, b, new_divergent_finding(N, b, "a divergent branch of a new kernel"), nullptr);
    }
    added.push_back({{"name", N.name}, {"mangled", N.mangled}, {"divergent_branches", div}, {"cycles_lost", num(*N.doc, "cycles_lost")}});
  }
  if (any_ordinal)
    warnings.push_back("some kernels have no line table in one build: their branches are matched by ordinal in the kernel "
                       "(a branch added before another shifts the ordinals)");
  return json{{"schema", kDiffSchema},
              {"base", sb},
              {"new", sn},
              {"thresholds",
               {{"max_efficiency_drop", o.max_efficiency_drop},
                {"max_cycles_lost_rise", o.max_cycles_lost_rise},
                {"allow_new_divergent_branches", o.allow_new_divergent_branches}}},
              {"regression", !findings.empty()},
              {"findings", findings},
              {"regressions", regressions},
              {"warnings", warnings},
              {"kernels_added", added},
              {"kernels_removed", removed},
              {"kernels", kernels},
              {"summary",
               {{"kernels_matched", kernels.size()},
                {"kernels_added", added.size()},
                {"kernels_removed", removed.size()},
                {"branches_matched", n_matched_branches},
                {"branches_changed", n_changed},
                {"divergent_branches_added", n_added_divergent},
                {"divergent_branches_removed", n_removed_divergent},
                {"regressions", findings.size()}}}};
}

namespace {

std::string cell(const json& v, const char* f) {
  if (v.is_null()) return "–";
  return fmt(f, v.get<double>());
}

std::string pair_cell(const json& ba, const char* f) {
  const std::string a = cell(ba["base"], f), b = cell(ba["new"], f);
  return a == b ? a : a + " → " + b;
}

std::string cycles_cell(const json& ba) {
  std::string s = pair_cell(ba, "%.4g");
  const double a = ba["base"].get<double>(), b = ba["new"].get<double>();
  if (a > 0 && a != b) s += " (" + fmt("%+.1f", 100 * (b / a - 1)) + "%)";
  return s;
}

std::string src_cell(const json& source, std::size_t ordinal) {
  if (source.is_null()) return "branch #" + std::to_string(ordinal);
  std::string s = source.get<std::string>();
  // The last two path components: enough to find the line, short enough for a table.
  const auto p1 = s.rfind('/');
  if (p1 != std::string::npos && p1 > 0) {
    const auto p2 = s.rfind('/', p1 - 1);
    if (p2 != std::string::npos) s = s.substr(p2 + 1);
  }
  return "`" + s + "`" + (ordinal ? " #" + std::to_string(ordinal) : "");
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '`') out += "'";
    else out += c;
  }
  return out;
}

}  // namespace

std::string diff_markdown(const json& v, std::size_t max_rows) {
  std::ostringstream md;
  const bool reg = v.value("regression", false);
  const json& s = v["summary"];
  md << "### divbench attribute diff: " << (reg ? "**divergence regression**" : "no divergence regression") << "\n\n";
  md << "BASE `" << md_escape(v["base"].value("input", std::string())) << "`";
  if (!v["base"].value("git", std::string()).empty()) md << " (" << v["base"]["git"].get<std::string>().substr(0, 12) << ")";
  md << " → NEW `" << md_escape(v["new"].value("input", std::string())) << "`";
  if (!v["new"].value("git", std::string()).empty()) md << " (" << v["new"]["git"].get<std::string>().substr(0, 12) << ")";
  const json& t = v["thresholds"];
  md << ". " << s["kernels_matched"] << " kernels and " << s["branches_matched"] << " branches matched, "
     << s["branches_changed"] << " changed; exact counts (CUPTI SASS metrics). Thresholds: region efficiency drop > "
     << fmt("%g", t["max_efficiency_drop"].get<double>()) << ", cycles lost rise > "
     << fmt("%g", 100 * t["max_cycles_lost_rise"].get<double>()) << "%, new divergent branches "
     << (t["allow_new_divergent_branches"].get<bool>() ? "allowed" : "not allowed") << ".\n\n";
  if (!v["findings"].empty()) {
    for (const auto& f : v["findings"]) md << "- " << md_escape(f.get<std::string>()) << "\n";
    md << "\n";
  }
  for (const auto& w : v["warnings"]) md << "> " << md_escape(w.get<std::string>()) << "\n";
  if (!v["warnings"].empty()) md << "\n";
  for (const char* what : {"kernels_added", "kernels_removed"})
    if (!v[what].empty()) {
      md << (std::string(what) == "kernels_added" ? "Kernels added: " : "Kernels removed: ");
      bool first = true;
      for (const auto& k : v[what]) {
        md << (first ? "" : ", ") << "`" << md_escape(short_name(k["name"].get<std::string>())) << "` ("
           << k["divergent_branches"] << " divergent branches)";
        first = false;
      }
      md << "\n\n";
    }
  std::vector<std::string> rows;
  for (const auto& k : v["kernels"]) {
    const std::string kn = "`" + md_escape(short_name(k["name"].get<std::string>())) + "`" +
                           (k["tolerance"]["nondeterministic"].get<bool>()
                                ? " (nondeterministic, ±" + fmt("%.1f", 100 * k["tolerance"]["spread"].get<double>()) + "%)"
                                : "");
    for (const auto& b : k["branches"]) {
      if (!b["changed"].get<bool>() && !b["regression"].get<bool>()) continue;
      std::string verdict = b["regression"].get<bool>() ? "**regression**" : "changed";
      if (b["matched_by"] == "lines_moved") verdict += " (lines moved)";
      rows.push_back("| " + kn + " | " + src_cell(b["source"]["new"], b["ordinal"].get<std::size_t>()) + " | " +
                     pair_cell(b["divergent_executions"], "%.0f") + " | " + pair_cell(b["active_lanes_inside"], "%.2f") +
                     " | " + pair_cell(b["region_efficiency"], "%.3f") + " | " + cycles_cell(b["cycles_lost"]) + " | " +
                     verdict + " |");
    }
    for (const auto& b : k["branches_added"]) {
      if (b["divergent_executions"].get<double>() <= 0) continue;
      rows.push_back("| " + kn + " | " + src_cell(b["source"], b["ordinal"].get<std::size_t>()) + " | new: " +
                     cell(b["divergent_executions"], "%.0f") + " | " + cell(b["active_lanes_inside"], "%.2f") + " | " +
                     cell(b["region_efficiency"], "%.3f") + " | " + cell(b["cycles_lost"], "%.4g") + " | " +
                     (b["regression"].get<bool>() ? "**new divergent branch**" : "new divergent branch (allowed)") + " |");
    }
    for (const auto& b : k["branches_removed"]) {
      if (b["divergent_executions"].get<double>() <= 0) continue;
      rows.push_back("| " + kn + " | " + src_cell(b["source"], b["ordinal"].get<std::size_t>()) + " | " +
                     cell(b["divergent_executions"], "%.0f") + " → removed | " + cell(b["active_lanes_inside"], "%.2f") +
                     " | " + cell(b["region_efficiency"], "%.3f") + " | " + cell(b["cycles_lost"], "%.4g") +
                     " | divergent branch removed |");
    }
  }
  if (rows.empty()) {
    md << "No matched branch changed.\n";
    return md.str();
  }
  md << "| kernel | source | divergent executions | active lanes inside | region efficiency | est. cycles lost | verdict |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < rows.size() && i < max_rows; ++i) md << rows[i] << "\n";
  if (rows.size() > max_rows) md << "\n" << rows.size() - max_rows << " more rows in the JSON verdict (--json).\n";
  return md.str();
}

std::string diff_console(const json& v) {
  std::ostringstream out;
  const json& s = v["summary"];
  out << "divbench attribute diff: " << (v["regression"].get<bool>() ? "REGRESSION" : "no regression") << " ("
      << s["kernels_matched"] << " kernels matched, " << s["kernels_added"] << " added, " << s["kernels_removed"]
      << " removed; " << s["branches_matched"] << " branches matched, " << s["branches_changed"] << " changed, "
      << s["divergent_branches_added"] << " divergent added, " << s["divergent_branches_removed"]
      << " divergent removed)\n";
  for (const auto& f : v["findings"]) out << "  regression: " << one_line(f.get<std::string>()) << "\n";
  for (const auto& w : v["warnings"]) out << "  note: " << one_line(w.get<std::string>()) << "\n";
  return out.str();
}

}  // namespace divbench::attribute
