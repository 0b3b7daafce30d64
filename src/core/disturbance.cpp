#include "divbench/core/disturbance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "divbench/core/stats.hpp"
#include "divbench/noise_criterion_data.hpp"  // generated from data/noise_criterion.json

namespace divbench {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

double number_at(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number()) throw std::runtime_error(where + "." + key + " is not a number");
  return j[key].get<double>();
}

bool is_count(const json& j) { return j.is_number_integer() || j.is_number_unsigned(); }

}  // namespace

NoiseCriterion parse_noise_criterion(const json& d) {
  if (!d.is_object() || d.value("schema", "") != "divbench.noise_criterion/1")
    throw std::runtime_error("noise criterion: schema is not divbench.noise_criterion/1");
  NoiseCriterion c;
  c.factor = number_at(d, "factor", "noise criterion");
  c.floor_cycles = number_at(d, "floor_cycles", "noise criterion");
  if (!d.contains("classes") || !d["classes"].is_object()) throw std::runtime_error("noise criterion: no classes");
  for (auto it = d["classes"].begin(); it != d["classes"].end(); ++it)
    c.classes[it.key()] = NoiseLevel{number_at(it.value(), "abs_cycles", "classes." + it.key()),
                                     number_at(it.value(), "rel", "classes." + it.key())};
  for (const auto& b : d.at("memory_bodies")) c.memory_bodies.push_back(b.get<std::string>());
  const json& fit = d.at("fit");
  c.c_min = number_at(fit, "c_min", "fit");
  for (auto it = fit.at("r2_min").begin(); it != fit.at("r2_min").end(); ++it) c.r2_min[it.key()] = it.value().get<double>();
  return c;
}

const NoiseCriterion& noise_criterion() {
  static const NoiseCriterion c = parse_noise_criterion(json::parse(build::noise_criterion_json));
  return c;
}

namespace {

std::string body_kind(const std::string& body, const NoiseCriterion& c) {
  return std::find(c.memory_bodies.begin(), c.memory_bodies.end(), body) != c.memory_bodies.end() ? "memory" : "compute";
}

std::string string_or(const json& j, const char* key, const std::string& fallback) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

}  // namespace

std::set<std::string> sampling_modes(const NoiseCriterion& c) {
  std::set<std::string> modes;
  for (const auto& [cls, level] : c.classes) modes.insert(cls.substr(0, cls.find('/')));
  return modes;
}

std::string noise_class(const json& point, const json& config, const NoiseCriterion& c) {
  const std::string sampling = string_or(point, "sampling", string_or(config, "sampling", "warp-per-sm"));
  const std::string body = string_or(point, "body", string_or(config, "body", "fma_chain"));
  return sampling + "/" + body_kind(body, c);
}

double allowed_spread(const NoiseCriterion& c, const std::string& cls, double median, double factor) {
  const auto it = c.classes.find(cls);
  if (it == c.classes.end()) return -1;
  return factor * std::max({it->second.abs_cycles, it->second.rel * median, c.floor_cycles});
}

std::vector<std::string> listed_co_tenants(const json& point) {
  std::vector<std::string> seen;
  if (!point.is_object() || !point.contains("conditions")) return seen;
  const json& cond = point["conditions"];
  if (!cond.is_object() || !cond.contains("processes") || !cond["processes"].is_object()) return seen;
  for (const char* side : {"before", "after"}) {
    const json& p = cond["processes"].contains(side) ? cond["processes"][side] : json();
    if (!p.is_object()) continue;
    if (p.contains("others") && p["others"].is_array())
      for (const auto& o : p["others"])
        if (is_count(o) && std::find(seen.begin(), seen.end(), std::to_string(o.get<long long>())) == seen.end())
          seen.push_back(std::to_string(o.get<long long>()));
    if (p.contains("others_count") && is_count(p["others_count"]))
      while (static_cast<long long>(seen.size()) < p["others_count"].get<long long>()) seen.push_back("?");
  }
  return seen;
}

std::optional<ProcessActivity> idle_activity(const json& point, const std::string& pid) {
  if (!point.is_object() || !point.contains("conditions") || !point["conditions"].is_object()) return std::nullopt;
  const json& procs = point["conditions"].value("processes", json());
  if (!procs.is_object() || !procs.contains("after") || !procs["after"].is_object()) return std::nullopt;
  const json& act = procs["after"].value("activity", json());
  if (!act.is_object() || act.value("read", false) != true || !act.contains("pids") || !act["pids"].is_object() ||
      !act["pids"].contains(pid))
    return std::nullopt;
  const json& a = act["pids"][pid];
  const auto count = [&](const char* k) -> std::optional<unsigned> {
    if (!a.is_object() || !a.contains(k) || !is_count(a[k]) || a[k].get<long long>() < 0) return std::nullopt;
    return static_cast<unsigned>(a[k].get<long long>());
  };
  const auto samples = count("samples"), sm = count("sm_max"), mem = count("mem_max");
  const bool since_first_reading = act.contains("since_us") && is_count(act["since_us"]) && act["since_us"].get<long long>() > 0;
  if (!samples || !sm || !mem || (*samples == 0 && !since_first_reading) || *sm > kIdleSmUtilPercent || *mem > 0)
    return std::nullopt;
  return ProcessActivity{*samples, *sm, *mem};
}

std::vector<std::string> idle_co_tenants(const json& point) {
  std::vector<std::string> idle;
  for (const auto& pid : listed_co_tenants(point))
    if (pid != "?" && idle_activity(point, pid)) idle.push_back(pid);
  return idle;
}

std::vector<std::string> co_tenants(const json& point) {
  std::vector<std::string> active;
  for (const auto& pid : listed_co_tenants(point))
    if (pid == "?" || !idle_activity(point, pid)) active.push_back(pid);
  return active;
}

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() <= 40 ? s : s.substr(0, 37) + "...";
}

// The flags the verdict reads, when they are there but not of their type: a verdict that skipped them
// would call a point quiet that no one can tell is (throttled: 1, PIDs as strings, a count of 5.0).
void add_ill_typed_reasons(const json& point, PointVerdict& v) {
  if (!point.is_object()) {
    v.reasons.push_back("ill_typed: the point is " + shown(point) + ", not an object");
    return;
  }
  if (point.contains("throttled") && !point["throttled"].is_null() && !point["throttled"].is_boolean())
    v.reasons.push_back("ill_typed: throttled is " + shown(point["throttled"]) + ", not true or false");
  if (point.contains("launches_with_shared_sm") && !point["launches_with_shared_sm"].is_null() &&
      !(is_count(point["launches_with_shared_sm"]) && point["launches_with_shared_sm"].get<long long>() >= 0))
    v.reasons.push_back("ill_typed: launches_with_shared_sm is " + shown(point["launches_with_shared_sm"]) +
                        ", not a count");
  if (!point.contains("conditions") || !point["conditions"].is_object()) return;
  const json& cond = point["conditions"];
  if (!cond.contains("processes") || cond["processes"].is_null()) return;
  if (!cond["processes"].is_object()) {
    v.reasons.push_back("ill_typed: conditions.processes is " + shown(cond["processes"]) + ", not an object");
    return;
  }
  for (const char* side : {"before", "after"}) {
    if (!cond["processes"].contains(side)) continue;
    const json& p = cond["processes"][side];
    const std::string where = std::string("conditions.processes.") + side;
    if (!p.is_object()) {
      v.reasons.push_back("ill_typed: " + where + " is " + shown(p) + ", not an object");
      continue;
    }
    if (p.contains("others") && !p["others"].is_null()) {
      if (!p["others"].is_array()) {
        v.reasons.push_back("ill_typed: " + where + ".others is " + shown(p["others"]) + ", not a list of PIDs");
      } else {
        for (std::size_t i = 0; i < p["others"].size(); ++i)
          if (!is_count(p["others"][i]) || p["others"][i].get<long long>() < 0) {
            v.reasons.push_back("ill_typed: " + where + ".others[" + std::to_string(i) + "] is " + shown(p["others"][i]) +
                                ", not a PID");
            break;
          }
      }
    }
    if (p.contains("others_count") && !p["others_count"].is_null() &&
        !(is_count(p["others_count"]) && p["others_count"].get<long long>() >= 0))
      v.reasons.push_back("ill_typed: " + where + ".others_count is " + shown(p["others_count"]) + ", not a count");
  }
}

void add_condition_reasons(const json& point, PointVerdict& v) {
  add_ill_typed_reasons(point, v);
  if (!point.is_object()) return;
  if (point.contains("throttled") && point["throttled"].is_boolean() && point["throttled"].get<bool>())
    v.reasons.push_back("throttled: the SM clock moved or NVML named a throttling reason during the point");
  const auto others = co_tenants(point);
  if (!others.empty())
    v.reasons.push_back("co_tenant: " + std::to_string(others.size()) + " other process(es) on the GPU (" +
                        joined(others) + ")");
}

}  // namespace

PointVerdict judge_timed_point(const json& point, const json& config, const NoiseCriterion& c, double factor) {
  PointVerdict v;
  add_condition_reasons(point, v);
  std::vector<double> cycles;
  std::vector<unsigned> smid;
  if (point.contains("samples") && point["samples"].is_object()) {
    const json& s = point["samples"];
    if (s.contains("cycles"))
      for (const auto& x : s["cycles"]) cycles.push_back(x.get<double>());
    if (s.contains("smid") && s["smid"].size() == cycles.size())
      for (const auto& x : s["smid"]) smid.push_back(x.get<unsigned>());
  }
  double spread = 0, med = 0;
  if (!cycles.empty()) {
    const auto [lo, hi] = std::minmax_element(cycles.begin(), cycles.end());
    spread = *hi - *lo;
    med = median(cycles);
  } else if (point.contains("max_cycles") && point.contains("min_cycles") && point.contains("median_cycles")) {
    spread = number_at(point, "max_cycles", "point") - number_at(point, "min_cycles", "point");
    med = number_at(point, "median_cycles", "point");
  } else {
    spread = -1;  // nothing to judge the noise by: the point cannot be called quiet
    v.reasons.push_back("no_spread: neither samples nor median/min/max cycles: its noise cannot be judged");
  }
  // The sampling mode must be one the criterion knows (a mode without a quiet level for this body kind,
  // such as grid/memory, is not judged on noise; a mode it has never heard of is not a quiet point).
  const json& own = point.contains("sampling") ? point["sampling"] : json();
  if (!own.is_null() && !own.is_string()) {
    v.reasons.push_back("unknown_class: sampling is " + shown(own) + ", not a sampling mode");
    spread = -1;
  } else {
    const std::string mode = string_or(point, "sampling", string_or(config, "sampling", "warp-per-sm"));
    const auto modes = sampling_modes(c);
    if (!modes.count(mode)) {
      std::string known;
      for (const auto& m : modes) known += (known.empty() ? "" : ", ") + m;
      v.reasons.push_back("unknown_class: sampling " + shown(json(mode)) + " has no noise class in the criterion (known: " +
                          known + ")");
      spread = -1;
    }
  }
  const std::string cls = noise_class(point, config, c);
  const double allowed = allowed_spread(c, cls, med, factor);
  if (spread >= 0 && allowed >= 0 && spread > allowed) {
    std::string detail = "noise: max-min " + fmt("%.0f", spread) + " cycles > " + fmt("%.0f", allowed) +
                         " allowed (" + cls + ")";
    if (string_or(point, "sampling", "") == "warp-per-sm" && !smid.empty()) {
      std::map<unsigned, std::vector<double>> by_sm;
      for (std::size_t i = 0; i < cycles.size(); ++i) by_sm[smid[i]].push_back(cycles[i]);
      for (auto& [sm, cs] : by_sm)
        if (std::fabs(median(cs) - med) > allowed) v.disagreeing_sms.push_back(sm);
      if (!v.disagreeing_sms.empty()) {
        detail += "; SMs ";
        for (std::size_t i = 0; i < v.disagreeing_sms.size() && i < 8; ++i)
          detail += (i ? ", " : "") + std::to_string(v.disagreeing_sms[i]);
        detail += v.disagreeing_sms.size() > 8 ? " ... disagree with the rest" : " disagree with the rest";
      }
    }
    v.reasons.push_back(detail);
  }
  if (point.contains("launches_with_shared_sm") && is_count(point["launches_with_shared_sm"]) &&
      point["launches_with_shared_sm"].get<long long>() > 0)
    v.reasons.push_back("shared_sm: " + std::to_string(point["launches_with_shared_sm"].get<long long>()) +
                        " launch(es) whose warps shared an SM");
  return v;
}

PointVerdict judge_raw_point(const json& point) {
  PointVerdict v;
  add_condition_reasons(point, v);
  return v;
}

std::vector<std::string> fit_reasons(const json& doc, const NoiseCriterion& c) {
  std::vector<std::string> reasons;
  const bool has_fit = doc.is_object() && doc.contains("fit") && !doc["fit"].is_null();
  if (!has_fit) {
    // A k-way sweep over two k or more is judged by its fit: one without a fit has not been judged (a
    // sweep of one k has none to make).
    if (doc.is_object() && doc.contains("experiment") && doc["experiment"] == "kway" && doc.contains("points") &&
        doc["points"].is_array()) {
      std::set<double> ks;
      for (const auto& p : doc["points"])
        if (p.is_object() && p.contains("k") && p["k"].is_number()) ks.insert(p["k"].get<double>());
      if (ks.size() >= 2)
        reasons.push_back("fit_missing: a k-way result over " + std::to_string(ks.size()) +
                          " values of k without a fit: c and R^2 cannot be judged");
    }
    return reasons;
  }
  const json& fit = doc["fit"];
  if (!fit.is_object()) {
    reasons.push_back("fit_missing: fit is " + shown(fit) + ", not an object with c and r2");
    return reasons;
  }
  const json& config = doc.contains("config") && doc["config"].is_object() ? doc["config"] : json::object();
  const std::string kind = body_kind(string_or(config, "body", "fma_chain"), c);
  const auto floor = c.r2_min.find(kind);
  std::vector<std::pair<std::string, const json*>> fits{{"fit", &fit}};
  if (fit.contains("placements") && !fit["placements"].is_null()) {
    if (!fit["placements"].is_array())
      reasons.push_back("fit_missing: fit.placements is " + shown(fit["placements"]) + ", not a list of fits");
    else if (fit["placements"].size() > 1)  // one placement: the fit itself
      for (std::size_t i = 0; i < fit["placements"].size(); ++i)
        fits.emplace_back("fit.placements[" + std::to_string(i) + "]", &fit["placements"][i]);
  }
  const auto finite = [](const json& f, const char* key) {
    return f.is_object() && f.contains(key) && f[key].is_number() && std::isfinite(f[key].get<double>());
  };
  for (const auto& [where, f] : fits) {
    bool whole = true;
    for (const char* key : {"c", "r2"})
      if (!finite(*f, key)) {
        const json v = f->is_object() && f->contains(key) ? (*f)[key] : json();
        reasons.push_back("fit_missing: " + where + "." + key + " is " +
                          (f->is_object() && f->contains(key) ? shown(v) : std::string("missing")) +
                          ", not a finite number: the fit cannot be judged");
        whole = false;
      }
    if (!whole) continue;
    const double cc = (*f)["c"].get<double>(), r2 = (*f)["r2"].get<double>();
    if (cc < c.c_min)
      reasons.push_back("fit_c: " + where + " c = " + fmt("%.6g", cc) + " < " + fmt("%g", c.c_min) +
                        ": a negative fixed cost is not physical");
    if (floor != c.r2_min.end() && r2 < floor->second)
      reasons.push_back("fit_r2: " + where + " R^2 = " + fmt("%.10g", r2) + " < " + fmt("%.10g", floor->second) +
                        " (the quiet floor for a " + kind + " body)");
  }
  return reasons;
}

json judge_result(const json& doc, const NoiseCriterion& c) {
  json disturbed = json::array();
  std::set<std::string> codes;
  const json& points = doc.at("points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    if (!p.value("disturbed", false)) continue;
    json why = p.contains("disturbed_reasons") ? p["disturbed_reasons"] : json::array();
    for (const auto& r : why) codes.insert(r.get<std::string>().substr(0, r.get<std::string>().find(':')));
    disturbed.push_back(json{{"index", i}, {"reasons", why}});
  }
  json reasons = json::array();
  if (points.empty()) reasons.push_back("no_points: the result has no points: nothing was measured to trust");
  if (!disturbed.empty()) {
    std::string list;
    for (const auto& s : codes) list += (list.empty() ? "" : ", ") + s;
    reasons.push_back("disturbed_points: " + std::to_string(disturbed.size()) + " of " +
                      std::to_string(points.size()) + " point(s) (" + list + ")");
  }
  for (auto& r : fit_reasons(doc, c)) reasons.push_back(std::move(r));
  json q{{"trustworthy", reasons.empty()},
         {"reasons", reasons},
         {"disturbed_points", disturbed.size()},
         {"disturbed", disturbed}};
  // Co-tenants that held a context but did no work while divbench ran (NVML's utilization samples):
  // not a disturbance, said here; the timing checks judge the points as usual.
  // A co-tenant is noted only when it was idle at every point that listed it: one that NVML showed at
  // work later in the run (its early points had no sample yet) is not called idle.
  std::map<std::string, ProcessActivity> idle;
  std::set<std::string> active;
  for (const auto& p : points) {
    for (const auto& pid : idle_co_tenants(p)) idle[pid] = *idle_activity(p, pid);
    for (const auto& pid : co_tenants(p)) active.insert(pid);
  }
  for (const auto& pid : active) idle.erase(pid);
  if (!idle.empty()) {
    json notes = json::array();
    for (const auto& [pid, a] : idle)
      notes.push_back("idle_co_tenant: process " + pid + " held a context on the GPU and NVML's utilization samples " +
                      "showed no work of it " +
                      (a.samples == 0 ? std::string("(none of the samples since divbench's first reading named it)")
                                      : "(SM at most " + std::to_string(a.sm_max) + "%, memory " +
                                            std::to_string(a.mem_max) + "%, over " + std::to_string(a.samples) +
                                            " samples)") +
                      ": not counted as a disturbance. NVML does not see a co-tenant that runs a small share of " +
                      "the time either; the timing checks judged every point");
    q["notes"] = notes;
  }
  return q;
}

}  // namespace divbench
