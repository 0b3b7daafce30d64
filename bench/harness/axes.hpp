// Declared axes: an experiment names once what its points vary over (name, type, unit, the values its
// configuration gives, the option that sets them) and which other options it reads (its settings).
// From that one declaration the harness derives:
//   - each point's benchmark label ("placement:1/k:7", "fma_chain/placement:0/n:0/k:1"),
//   - `axes` on every point of the result: {"k": 7, "placement": 1}, typed as declared,
//   - `config.axes` in the result: the declaration with the values that ran,
//   - the accepted options: an option that no axis or setting of the selected experiments declares is
//     refused in one place (check_options, exit 2 naming it) before any experiment parses.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench {

enum class AxisType { integer, string, number };
const char* axis_type_name(AxisType t);

// How an axis shows in a point's benchmark label.
enum class AxisLabel {
  keyed,        // "k:7"
  bare,         // "fma_chain": the value alone (string axes whose values name themselves)
  when_varied,  // "placement:1", only when the configuration gives the axis more than one value
};

struct AxisSpec {
  AxisSpec(std::string name_, AxisType type_, std::string unit_, std::string option_, std::string help_,
           AxisLabel label_ = AxisLabel::keyed, std::string label_key_ = "")
      : name(std::move(name_)), type(type_), unit(std::move(unit_)), option(std::move(option_)),
        help(std::move(help_)), label(label_), label_key(std::move(label_key_)) {}
  std::string name;    // the key in point.axes
  AxisType type = AxisType::integer;
  std::string unit;    // "paths", "iterations per path", "" for a name
  std::string option;  // the CLI option that sets its values ("--k"); "" when no option does
  std::string help;    // one line: what the axis is
  AxisLabel label = AxisLabel::keyed;
  std::string label_key;  // the key in the label when it is not `name` ("g" for group_size)
};

// An axis with the values one configuration gives it (config.axes[i].values).
struct AxisDecl {
  AxisSpec spec;
  json values = json::array();
};

// The axes several experiments share, declared once.
AxisSpec k_axis(const std::string& help = "divergent paths in the warp's region");  // --k
AxisSpec placement_axis();  // --placements: the code placement of the timed kernels, labelled when several
AxisSpec body_axis();       // --body: the work body (bare in labels)
AxisSpec map_axis();        // --map: the lane-to-path map (bare in labels)

// The values of a named axis: name(x) of each x in `values` ({Body::sfu} -> ["sfu"]).
template <class T, class Name>
json axis_names(const std::vector<T>& values, Name name) {
  json j = json::array();
  for (const T& x : values) j.push_back(name(x));
  return j;
}
AxisSpec n_axis(const std::string& option);  // iterations per path ("--n", or "" where fixed)

// The declaration as the result records it under config.axes.
json axes_config_json(const std::vector<AxisDecl>& axes);

// Checks a point's coordinates against the declaration: every declared axis present with a value of its
// type, nothing undeclared. std::logic_error naming the experiment and the axis otherwise (a mistake in
// the experiment's plan, not the user's input).
void check_point_axes(const std::string& experiment, const std::vector<AxisDecl>& axes, const json& point_axes);

// The benchmark label of a point: its axes in declaration order, joined by '/'.
std::string axes_label(const std::vector<AxisDecl>& axes, const json& point_axes);

// The one accepted-options check. `who` names the selection as the user gave it ("--probe order",
// "--all"); `accepted` is what the selected experiments declare (their axes' options and settings).
// UsageError "WHO: OPTION does not apply (...)" for the first option given that neither they nor the
// harness (harness_settings()) take.
void check_options(const std::vector<std::string>& given, const std::string& who,
                   const std::vector<std::string>& accepted);

}  // namespace divbench
