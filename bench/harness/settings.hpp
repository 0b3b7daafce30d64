// Declared settings (nvbench's model): every option of the dynamic experiments is declared once, with
// its type, default, unit, help and valid values, and everything else comes from those declarations:
//   - main.cpp registers the command line in one loop over them (cli_settings),
//   - an experiment reads typed values (SettingValues: given on the command line, else the declared
//     default), and reading an option it did not declare is a programming error (std::logic_error),
//   - the accepted-options check, `--axis NAME=VALUES` and `--list --format json` (the bad-input suite
//     generates its rows from that listing: tests/badinput/declared.py).
// The settings several experiments read with one meaning are declared by the harness (common_settings.hpp,
// `shared`); an experiment's own declarations sit in its folder. An experiment may declare its own setting
// under a shared option's name (predication's --k is its arm counts, order's its group sizes): that alias
// reaches it only when it runs alone, as the shared meaning is what the option means in a selection of
// several experiments (--all); the run says so on stderr when it drops one.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

enum class SettingType { flag, integer, number, text, list };
const char* setting_type_name(SettingType t);

struct SettingSpec {
  std::string option;        // "--reps"
  SettingType type = SettingType::text;
  std::string default_text;  // the default as the command line would give it; "" = none (the reader asks has())
  std::string unit;          // "launches", "" for a name
  std::string help;          // one line
  double min = -std::numeric_limits<double>::infinity();  // integer, number: valid range
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  // text: the valid values (empty: any)
  // The parser of a list (required) or another type's own (a body name, a 64-bit seed): text -> JSON
  // value, UsageError "OPTION: ..." on bad input. Without one, integer/number/text are parsed generically.
  std::function<json(const std::string&)> parse;
  bool shared = false;       // declared by the harness (common_settings.hpp): one meaning in every experiment
  bool sets_values = true;   // an axis with this option can be set by --axis NAME=VALUES (false: a count, --placements)

  SettingSpec with_default(std::string d) const;  // the same setting, this experiment's default
  SettingSpec with_help(std::string h) const;
};

// The value of `text` given to setting `s`, typed (integer: a JSON integer, list: an array); UsageError
// naming the option when it is not a valid value.
json parse_setting(const SettingSpec& s, const std::string& text);

// The spec's declaration as `--list --format json` prints it (option, type, default, unit, help, range,
// choices, shared).
json setting_json(const SettingSpec& s);

// What the command line gave: option -> text (a flag: "true"), and each `--axis NAME=VALUES` in order.
struct CommandLine {
  std::map<std::string, std::string> given;
  std::vector<std::pair<std::string, std::string>> axis;  // (NAME, VALUES) of each --axis
  std::string text;  // the whole command line, for provenance
  bool has(const std::string& option) const { return given.count(option) != 0; }
  CommandLine& set(const std::string& option, const std::string& text = "true") {
    given[option] = text;
    return *this;
  }
};

// The settings one reader (an experiment, or the harness) declared and the values that reach it.
class SettingValues {
 public:
  SettingValues(std::vector<SettingSpec> declared, std::map<std::string, std::string> given);
  bool has(const std::string& option) const;   // given on the command line (and reaching this reader)
  json value(const std::string& option) const; // given, else the declared default; UsageError when neither
  long long integer(const std::string& option) const;
  std::uint64_t whole(const std::string& option) const;
  double number(const std::string& option) const;
  std::string text(const std::string& option) const;
  bool flag(const std::string& option) const;
  std::vector<int> ints(const std::string& option) const;
  std::vector<std::uint32_t> counts(const std::string& option) const;
  const std::vector<SettingSpec>& declared() const { return declared_; }
  const SettingSpec& spec(const std::string& option) const;  // std::logic_error when not declared

 private:
  std::vector<SettingSpec> declared_;
  std::map<std::string, std::string> given_;
};

}  // namespace divbench
