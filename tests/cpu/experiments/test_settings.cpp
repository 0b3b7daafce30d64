// Declared settings (bench/harness/settings.hpp), without a GPU: typed values from one declaration,
// a reader cannot read what it did not declare, every registered experiment's declaration is
// consistent, and the command line main.cpp registers is exactly the declarations.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "divbench/core/errors.hpp"
#include "harness/common_settings.hpp"
#include "harness/experiment.hpp"
#include "harness/runner.hpp"

using namespace divbench;

TEST(Settings, TypedValuesFromTheDeclaration) {
  const SettingValues v({reps_setting(), paths_setting().with_default("1,2"), seed_setting(), no_samples_setting(),
                         body_setting(), warmup_setting()},
                        {{"--reps", "7"}, {"--seed", "18446744073709551615"}, {"--undeclared", "x"}});
  EXPECT_TRUE(v.has("--reps"));
  EXPECT_EQ(v.integer("--reps"), 7);
  EXPECT_EQ(v.ints("--k"), std::vector<int>({1, 2}));            // this reader's declared default
  EXPECT_EQ(v.whole("--seed"), 18446744073709551615ull);
  EXPECT_FALSE(v.flag("--no-samples"));
  EXPECT_EQ(v.text("--body"), "fma_chain");
  EXPECT_FALSE(v.has("--warmup"));
  EXPECT_THROW(v.integer("--warmup"), std::logic_error);  // no default: its reader asks has() first
  EXPECT_THROW(v.has("--iters"), std::logic_error);       // read but not declared: a programming error
  EXPECT_THROW(v.has("--undeclared"), std::logic_error);
}

TEST(Settings, GenericParsersRefuseNamingTheOption) {
  auto refusal = [](const SettingSpec& s, const std::string& t) {
    try {
      parse_setting(s, t);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal(reps_setting(), "0"), "--reps: 0 is outside 1..1000000");
  EXPECT_EQ(refusal(reps_setting(), "1e3"), "--reps: '1e3' is not a whole number");
  EXPECT_EQ(refusal(reps_setting(), "99999999999999999999"), "--reps: '99999999999999999999' is not a whole number");
  EXPECT_EQ(refusal(sampling_setting(), "both"), "--sampling: 'both' is not one of warp-per-sm|single");
  EXPECT_EQ(refusal(harness_settings().back(), "nan"), "--noise-factor: 'nan' is not a finite number");
  EXPECT_EQ(refusal(harness_settings().back(), "0.5"), "--noise-factor: 0.5 is outside 1..1000000");
  EXPECT_EQ(refusal(seed_setting(), "-1"), "--seed: '-1' is not a whole number in 0..18446744073709551615");
  EXPECT_EQ(refusal(placements_setting(), "9"), "--placements: 9 is outside 1..8");
  EXPECT_EQ(refusal(no_samples_setting(), "false"), "--no-samples is a flag: it takes no value");
  EXPECT_EQ(parse_setting(paths_setting(), "1-3,8"), json({1, 2, 3, 8}));
}

TEST(Settings, EveryRegisteredDeclarationIsConsistent) {
  ASSERT_FALSE(experiment_registry().empty());
  for (const auto& e : experiment_registry()) {
    SCOPED_TRACE(e.name);
    EXPECT_NO_THROW(check_declaration(e));
    for (const auto& s : e.settings) {
      EXPECT_FALSE(s.help.empty()) << s.option;
      EXPECT_EQ(s.option.rfind("--", 0), 0u) << s.option;
      if (!s.default_text.empty()) EXPECT_NO_THROW(parse_setting(s, s.default_text)) << s.option;  // a valid default
    }
  }
  // What check_declaration refuses.
  Experiment e{"demo", {}, "sweep", "", nullptr, false, {reps_setting(), reps_setting()}, {}};
  EXPECT_THROW(check_declaration(e), std::logic_error);  // twice
  e.settings = {reps_setting()};
  e.axes = {k_axis()};
  EXPECT_THROW(check_declaration(e), std::logic_error);  // an axis's option not declared
  e.settings = {SettingSpec{"--out", SettingType::text, "", "", "mine"}};
  e.axes = {};
  EXPECT_THROW(check_declaration(e), std::logic_error);  // the harness's own
  e.settings = {SettingSpec{"--k", SettingType::flag, "", "", "a flag"}};
  EXPECT_THROW(check_declaration(e), std::logic_error);  // a shared option's name, another kind
}

TEST(Settings, TheCommandLineIsTheDeclarations) {
  const std::vector<SettingSpec> cli = declared_options();
  std::set<std::string> options;
  for (const auto& s : cli) EXPECT_TRUE(options.insert(s.option).second) << s.option << " registered twice";
  for (const auto& h : harness_settings()) EXPECT_TRUE(options.count(h.option)) << h.option;
  for (const auto& e : experiment_registry())
    for (const auto& s : e.settings) EXPECT_TRUE(options.count(s.option)) << e.name << " " << s.option;
  // An own meaning of a shared option is named in its help (predication's --k: its arm counts).
  const auto k = std::find_if(cli.begin(), cli.end(), [](const SettingSpec& s) { return s.option == "--k"; });
  ASSERT_NE(k, cli.end());
  EXPECT_TRUE(k->shared);
  EXPECT_NE(k->help.find("predication alone: "), std::string::npos) << k->help;
}

// A new experiment with a new option touches only its own declaration: registered here (as an
// experiment's folder does with DIVBENCH_REGISTER_EXPERIMENT), it gets its option on the command line,
// its typed value, its refusals, --axis and its place in the accepted-options check with no line of
// the harness or main.cpp changed; then it is removed again.
namespace {

struct DemoConfig {
  std::vector<int> widths;
  double scale = 0;
};

Experiment demo_experiment() {
  SettingSpec widths{"--demo-widths", SettingType::list, "8,16", "lanes", "widths of the demo (a k list)"};
  widths.parse = [](const std::string& t) { return json(parse_setting(paths_setting(), t)); };
  SettingSpec scale{"--demo-scale", SettingType::number, "1.5", "", "a scale of the demo"};
  scale.min = 0;
  scale.max = 10;
  ExperimentDef<DemoConfig> d{
      "demo", {}, "probe", "a demo experiment (tests/cpu/experiments/test_settings.cpp)",
      [](const SettingValues& s) { return DemoConfig{s.ints("--demo-widths"), s.number("--demo-scale")}; },
      [](const DemoConfig& c) { return json{{"widths", c.widths}, {"scale", c.scale}}; }, nullptr,
      [](const DemoConfig&, const DeviceRecord&) { return std::vector<PointSpec>{}; }, nullptr, nullptr};
  d.axes = {{AxisSpec("width", AxisType::integer, "lanes", "--demo-widths", "the demo's widths"),
             [](const DemoConfig& c) { return json(c.widths); }}};
  d.settings = {widths, scale, reps_setting()};
  d.in_all = false;
  return make_experiment<DemoConfig>(d);
}

}  // namespace

TEST(Settings, ANewExperimentWithANewOptionNeedsOnlyItsDeclaration) {
  auto& reg = experiment_registry();
  reg.push_back(demo_experiment());
  struct Remove {
    ~Remove() {
      auto& r = experiment_registry();
      r.erase(std::remove_if(r.begin(), r.end(), [](const Experiment& e) { return e.name == "demo"; }), r.end());
    }
  } remove_again;
  const std::vector<SettingSpec> cli = declared_options();
  EXPECT_TRUE(std::any_of(cli.begin(), cli.end(), [](const SettingSpec& s) { return s.option == "--demo-scale"; }));
  const Experiment* e = find_experiment("demo", "probe");
  ASSERT_NE(e, nullptr);
  auto run = [e](CommandLine cl) {
    cl.set("--probe", "demo");
    std::vector<std::string> notes;
    return e->prepare(resolve_settings(Selection{{e}, "--probe demo"}, cl, notes).front());
  };
  EXPECT_EQ(run({}).config["widths"], json({8, 16}));  // its declared default
  EXPECT_EQ(run(CommandLine{}.set("--demo-scale", "2.5")).config["scale"], 2.5);
  CommandLine axis;
  axis.axis = {{"width", "1-3"}};
  EXPECT_EQ(run(axis).config["widths"], json({1, 2, 3}));
  EXPECT_EQ(run({}).config["axes"][0]["values"], json({8, 16}));
  EXPECT_THROW(run(CommandLine{}.set("--demo-scale", "11")), UsageError);
  EXPECT_THROW(run(CommandLine{}.set("--k", "3")), UsageError);  // not its option
  // Another experiment does not take it.
  CommandLine kway;
  kway.set("--sweep", "k").set("--demo-scale", "2");
  EXPECT_THROW(prepare_experiments(kway), UsageError);
}
