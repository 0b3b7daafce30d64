#include "settings.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <stdexcept>

#include "divbench/core/errors.hpp"

namespace divbench {

const char* setting_type_name(SettingType t) {
  switch (t) {
    case SettingType::flag: return "flag";
    case SettingType::integer: return "int";
    case SettingType::number: return "float";
    case SettingType::text: return "string";
    case SettingType::list: return "list";
  }
  return "?";
}

SettingSpec SettingSpec::with_default(std::string d) const {
  SettingSpec s = *this;
  s.default_text = std::move(d);
  return s;
}

SettingSpec SettingSpec::with_help(std::string h) const {
  SettingSpec s = *this;
  s.help = std::move(h);
  return s;
}

namespace {

std::string range_text(const SettingSpec& s) {
  auto num = [](double v) {
    std::string t = std::to_string(v);
    if (v == std::floor(v) && std::fabs(v) < 1e15) t = std::to_string(static_cast<long long>(v));
    return t;
  };
  return num(s.min) + ".." + num(s.max);
}

json parse_integer(const SettingSpec& s, const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 19 &&
                      text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string::npos &&
                      text != "-";
  errno = 0;
  const long long v = digits ? std::strtoll(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE) throw UsageError(s.option + ": '" + text + "' is not a whole number");
  if (v < s.min || v > s.max) throw UsageError(s.option + ": " + text + " is outside " + range_text(s));
  return json(v);
}

json parse_number(const SettingSpec& s, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    throw UsageError(s.option + ": '" + text + "' is not a finite number");
  if (v < s.min || v > s.max) throw UsageError(s.option + ": " + text + " is outside " + range_text(s));
  return json(v);
}

}  // namespace

json parse_setting(const SettingSpec& s, const std::string& text) {
  if (s.parse) return s.parse(text);
  switch (s.type) {
    case SettingType::flag:
      if (text == "true") return json(true);
      throw UsageError(s.option + " is a flag: it takes no value");
    case SettingType::integer: return parse_integer(s, text);
    case SettingType::number: return parse_number(s, text);
    case SettingType::text: {
      if (s.choices.empty()) return json(text);
      for (const auto& c : s.choices)
        if (c == text) return json(text);
      std::string list;
      for (const auto& c : s.choices) list += (list.empty() ? "" : "|") + c;
      throw UsageError(s.option + ": '" + text + "' is not one of " + list);
    }
    case SettingType::list: break;
  }
  throw std::logic_error(s.option + ": a list setting declares no parser");
}

json setting_json(const SettingSpec& s) {
  json j{{"option", s.option}, {"type", setting_type_name(s.type)},
         {"default", s.default_text.empty() ? json(nullptr) : json(s.default_text)}, {"unit", s.unit},
         {"help", s.help}, {"shared", s.shared}, {"sets_values", s.sets_values}};
  if (std::isfinite(s.min)) j["min"] = s.min;
  if (std::isfinite(s.max)) j["max"] = s.max;
  if (!s.choices.empty()) j["choices"] = s.choices;
  return j;
}

SettingValues::SettingValues(std::vector<SettingSpec> declared, std::map<std::string, std::string> given)
    : declared_(std::move(declared)), given_(std::move(given)) {
  for (auto it = given_.begin(); it != given_.end();)  // keep what this reader declared
    it = (std::none_of(declared_.begin(), declared_.end(), [&](const SettingSpec& s) { return s.option == it->first; }))
             ? given_.erase(it)
             : std::next(it);
}

const SettingSpec& SettingValues::spec(const std::string& option) const {
  for (const auto& s : declared_)
    if (s.option == option) return s;
  throw std::logic_error("the setting " + option + " is read but not declared");
}

bool SettingValues::has(const std::string& option) const {
  spec(option);
  return given_.count(option) != 0;
}

json SettingValues::value(const std::string& option) const {
  const SettingSpec& s = spec(option);
  const auto it = given_.find(option);
  if (it != given_.end()) return parse_setting(s, it->second);
  if (s.type == SettingType::flag) return json(false);
  if (s.default_text.empty()) throw std::logic_error(option + " has no declared default: its reader asks has() first");
  return parse_setting(s, s.default_text);
}

long long SettingValues::integer(const std::string& option) const { return value(option).get<long long>(); }
std::uint64_t SettingValues::whole(const std::string& option) const { return value(option).get<std::uint64_t>(); }
double SettingValues::number(const std::string& option) const { return value(option).get<double>(); }
std::string SettingValues::text(const std::string& option) const {
  const SettingSpec& s = spec(option);
  if (s.type == SettingType::text && !given_.count(option) && s.default_text.empty()) return "";
  return value(option).get<std::string>();
}
bool SettingValues::flag(const std::string& option) const { return value(option).get<bool>(); }
std::vector<int> SettingValues::ints(const std::string& option) const { return value(option).get<std::vector<int>>(); }
std::vector<std::uint32_t> SettingValues::counts(const std::string& option) const {
  return value(option).get<std::vector<std::uint32_t>>();
}

}  // namespace divbench
