#include "experiment.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "common_settings.hpp"
#include "divbench/core/errors.hpp"

namespace divbench {

std::vector<Experiment>& experiment_registry() {
  static std::vector<Experiment> experiments;
  return experiments;
}

const Experiment* find_experiment(const std::string& name, const std::string& kind) {
  for (const auto& e : experiment_registry())
    if (e.kind == kind && (e.name == name || std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end()))
      return &e;
  return nullptr;
}

std::vector<PointSpec> with_declared_axes(const std::string& experiment, const std::vector<AxisDecl>& axes,
                                          std::vector<PointSpec> points) {
  for (auto& pt : points) {
    check_point_axes(experiment, axes, pt.axes);
    pt.label = axes_label(axes, pt.axes);
    pt.run = [run = std::move(pt.run), coords = pt.axes] {
      PointResult r = run();
      (r.timed ? r.point.axes : r.raw["axes"]) = coords;
      return r;
    };
  }
  return points;
}

namespace {

const SettingSpec* find_spec(const std::vector<SettingSpec>& v, const std::string& option) {
  for (const auto& s : v)
    if (s.option == option) return &s;
  return nullptr;
}

std::string names_of(const std::string& kind) {
  std::string s;
  for (const auto& e : experiment_registry())
    if (e.kind == kind) s += (s.empty() ? "" : ", ") + e.name;
  return s;
}

// An own setting named like a shared one: an alias, which reaches its experiment only when it runs alone.
bool is_alias(const SettingSpec& s) { return !s.shared && find_spec(shared_settings(), s.option) != nullptr; }

}  // namespace

void check_declaration(const Experiment& e) {
  std::set<std::string> seen;
  for (const auto& s : e.settings) {
    if (!seen.insert(s.option).second) throw std::logic_error(e.name + ": " + s.option + " is declared twice");
    if (find_spec(harness_settings(), s.option))
      throw std::logic_error(e.name + ": " + s.option + " is the harness's setting");
    if (const SettingSpec* sh = find_spec(shared_settings(), s.option))
      if ((sh->type == SettingType::flag) != (s.type == SettingType::flag))
        throw std::logic_error(e.name + ": " + s.option + " is declared a flag in one place and not in another");
    if (s.type == SettingType::list && !s.parse) throw std::logic_error(e.name + ": list " + s.option + " has no parser");
  }
  for (const auto& a : e.axes)
    if (!a.option.empty() && !seen.count(a.option))
      throw std::logic_error(e.name + ": axis " + a.name + " names " + a.option + ", which it does not declare");
}

std::vector<SettingSpec> declared_options() {
  std::vector<SettingSpec> out = harness_settings();
  std::vector<std::string> order;
  std::map<std::string, SettingSpec> first;               // the shared declaration, else the first own one
  std::map<std::string, std::vector<std::string>> owners; // "EXP: help" of each own declaration
  for (const auto& e : experiment_registry())
    for (const auto& s : e.settings) {
      if (!first.count(s.option)) {
        order.push_back(s.option);
        const SettingSpec* sh = find_spec(shared_settings(), s.option);
        first.emplace(s.option, sh ? *sh : s);
      }
      if (!s.shared) owners[s.option].push_back(e.name + (is_alias(s) ? " alone" : "") + ": " + s.help);
    }
  for (const auto& o : order) {
    SettingSpec s = first.at(o);
    const auto& own = owners[o];
    if (!s.shared && own.size() == 1) {
      s.help = own.front();
    } else if (!own.empty()) {
      std::string h = s.shared ? s.help : "";
      for (const auto& x : own) h += (h.empty() ? "" : " | ") + x;
      s.help = h;
    }
    out.push_back(s);
  }
  return out;
}

Selection select_experiments(const SettingValues& h) {
  Selection sel;
  if (h.flag("--all")) {
    for (const auto& e : experiment_registry())
      if (e.in_all) sel.experiments.push_back(&e);
    sel.who = "--all";
    return sel;
  }
  for (const std::string kind : {"sweep", "probe"}) {
    if (!h.has("--" + kind)) continue;
    const std::string name = h.text("--" + kind);
    const Experiment* e = find_experiment(name, kind);
    if (!e) throw UsageError("unknown " + kind + " '" + name + "' (" + kind + "s: " + names_of(kind) + ")");
    sel.experiments.push_back(e);
    sel.who = "--" + kind + " " + name;
    break;
  }
  return sel;
}

std::vector<SettingValues> resolve_settings(const Selection& sel, const CommandLine& cl, std::vector<std::string>& notes) {
  const bool alone = sel.experiments.size() == 1;
  // What reaches each experiment: its declared options as given, less an alias among several.
  std::vector<std::map<std::string, std::string>> reach(sel.experiments.size());
  std::vector<std::string> accepted;
  for (std::size_t i = 0; i < sel.experiments.size(); ++i) {
    const Experiment& e = *sel.experiments[i];
    for (const auto& s : e.settings) {
      if (!alone && is_alias(s)) {
        if (cl.has(s.option))
          notes.push_back(s.option + " does not reach " + e.name + " under " + sel.who + " (there it is: " + s.help +
                          "; run " + e.name + " alone, or give --axis NAME=VALUES)");
        continue;
      }
      accepted.push_back(s.option);
      if (cl.has(s.option)) reach[i][s.option] = cl.given.at(s.option);
    }
  }
  std::vector<std::string> given;
  for (const auto& [opt, text] : cl.given) given.push_back(opt);
  check_options(given, sel.who, accepted);  // the one accepted-options check (axes.hpp)

  for (const auto& [name, values] : cl.axis) {
    bool found = false;
    std::vector<std::string> settable;
    for (std::size_t i = 0; i < sel.experiments.size(); ++i)
      for (const auto& a : sel.experiments[i]->axes) {
        const SettingSpec* s = a.option.empty() ? nullptr : find_spec(sel.experiments[i]->settings, a.option);
        if (!s || !s->sets_values) continue;
        if (std::find(settable.begin(), settable.end(), a.name) == settable.end()) settable.push_back(a.name);
        if (a.name != name) continue;
        found = true;
        if (cl.has(a.option) && reach[i].count(a.option))
          throw UsageError("--axis " + name + ": " + a.option + " sets the same axis of " + sel.experiments[i]->name +
                           "; give one of them");
        reach[i][a.option] = values;
      }
    if (!found) {
      std::string list;
      for (const auto& a : settable) list += (list.empty() ? "" : ", ") + a;
      throw UsageError("--axis " + name + ": " + sel.who + " has no axis of that name that a value sets (" +
                       (list.empty() ? "none is settable" : "settable: " + list) + ")");
    }
  }

  std::vector<SettingValues> out;
  for (std::size_t i = 0; i < sel.experiments.size(); ++i) {
    std::vector<SettingSpec> declared = sel.experiments[i]->settings;
    for (const auto& h : harness_settings()) declared.push_back(h);  // --metrics and the like: every experiment's
    for (const auto& [opt, text] : reach[i]) parse_setting(*find_spec(declared, opt), text);  // exit 2 now
    std::map<std::string, std::string> given = reach[i];
    for (const auto& h : harness_settings())
      if (cl.has(h.option)) given[h.option] = cl.given.at(h.option);
    out.emplace_back(std::move(declared), std::move(given));
  }
  return out;
}

}  // namespace divbench
