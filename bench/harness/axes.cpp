#include "axes.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "common_settings.hpp"
#include "divbench/core/errors.hpp"

namespace divbench {

const char* axis_type_name(AxisType t) {
  switch (t) {
    case AxisType::integer: return "int";
    case AxisType::string: return "string";
    case AxisType::number: return "float";
  }
  return "?";
}

AxisSpec k_axis(const std::string& help) { return {"k", AxisType::integer, "paths", "--k", help}; }

AxisSpec placement_axis() {
  return {"placement", AxisType::integer, "placement", "--placements",
          "code placement of the timed kernels (16-byte shifts)", AxisLabel::when_varied};
}

AxisSpec body_axis() { return {"body", AxisType::string, "", "--body", "work body of each path", AxisLabel::bare}; }

AxisSpec map_axis() { return {"map", AxisType::string, "", "--map", "lane-to-path map", AxisLabel::bare}; }

AxisSpec n_axis(const std::string& option) {
  return {"n", AxisType::integer, "iterations per path", option, "loop iterations of the work body on each path"};
}

json axes_config_json(const std::vector<AxisDecl>& axes) {
  json a = json::array();
  for (const auto& d : axes) {
    json j{{"name", d.spec.name}, {"type", axis_type_name(d.spec.type)}, {"unit", d.spec.unit},
           {"option", d.spec.option.empty() ? json(nullptr) : json(d.spec.option)}, {"values", d.values}};
    if (!d.spec.help.empty()) j["help"] = d.spec.help;
    a.push_back(j);
  }
  return a;
}

namespace {

bool has_type(const json& v, AxisType t) {
  switch (t) {
    case AxisType::integer: return v.is_number_integer();
    case AxisType::string: return v.is_string();
    case AxisType::number: return v.is_number();
  }
  return false;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

void check_point_axes(const std::string& experiment, const std::vector<AxisDecl>& axes, const json& point_axes) {
  if (!point_axes.is_object())
    throw std::logic_error(experiment + ": a point's axes are not an object: " + point_axes.dump());
  for (const auto& d : axes) {
    if (!point_axes.contains(d.spec.name))
      throw std::logic_error(experiment + ": a point lacks axis '" + d.spec.name + "' (" + point_axes.dump() + ")");
    if (!has_type(point_axes[d.spec.name], d.spec.type))
      throw std::logic_error(experiment + ": axis '" + d.spec.name + "' is declared " + axis_type_name(d.spec.type) +
                             ", a point gives " + point_axes[d.spec.name].dump());
  }
  for (auto it = point_axes.begin(); it != point_axes.end(); ++it)
    if (std::none_of(axes.begin(), axes.end(), [&](const AxisDecl& d) { return d.spec.name == it.key(); }))
      throw std::logic_error(experiment + ": a point gives axis '" + it.key() + "', which is not declared");
}

std::string axes_label(const std::vector<AxisDecl>& axes, const json& point_axes) {
  std::string label;
  for (const auto& d : axes) {
    if (d.spec.label == AxisLabel::when_varied && d.values.size() <= 1) continue;
    const std::string value = value_text(point_axes.at(d.spec.name));
    const std::string key = d.spec.label_key.empty() ? d.spec.name : d.spec.label_key;
    label += (label.empty() ? "" : "/") + (d.spec.label == AxisLabel::bare ? value : key + ":" + value);
  }
  return label;
}

void check_options(const std::vector<std::string>& given, const std::string& who,
                   const std::vector<std::string>& accepted) {
  std::set<std::string> ok(accepted.begin(), accepted.end());
  for (const auto& h : harness_settings()) ok.insert(h.option);
  for (const auto& opt : given) {
    if (ok.count(opt)) continue;
    std::set<std::string> takes(accepted.begin(), accepted.end());
    std::string list;
    for (const auto& a : takes) list += (list.empty() ? "" : " ") + a;
    throw UsageError(who + ": " + opt + " does not apply (" + (list.empty() ? "it takes no option" : "it takes " + list) +
                     ")");
  }
}

}  // namespace divbench
