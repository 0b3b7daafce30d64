#include "gbench.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "divbench/build_info.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"

namespace divbench {
namespace {

std::string g_library_build = "unknown";

void read_library_build(const benchmark::BenchmarkReporter::Context& context) {
  std::ostringstream os;
  benchmark::BenchmarkReporter::PrintBasicContext(&os, context);
  g_library_build = os.str().find("built as DEBUG") != std::string::npos ? "debug" : "release";
}

struct FlagRule {
  const char* name;
  const char* refusal;  // nullptr: passed through
  const char* values = nullptr;  // passed through: the values it takes, '|'-separated ("" = any non-empty)
};

// Google Benchmark answers a bad value (--benchmark_format=xml) with its usage text and exit 0 without
// running anything: every value is checked here, before the device is looked for.
constexpr const char* kBool = "true|false|yes|no|on|off|1|0|t|f|y|n";
constexpr FlagRule kFlags[] = {
    {"--benchmark_filter", nullptr},
    {"--benchmark_list_tests", nullptr, kBool},
    {"--benchmark_out", nullptr, ""},
    {"--benchmark_out_format", nullptr, "console|json|csv"},
    {"--benchmark_format", nullptr, "console|json|csv"},
    {"--benchmark_color", nullptr, "auto|true|false|yes|no|on|off|1|0|t|f|y|n"},
    {"--benchmark_counters_tabular", nullptr, kBool},
    {"--benchmark_time_unit", nullptr, "ns|us|ms|s"},
    {"--benchmark_context", nullptr, ""},
    {"--benchmark_repetitions",
     "each point is already the median of --reps samples, and repeated runs would add points to the fit; use --reps"},
    {"--benchmark_min_time", "every point runs exactly --warmup + its timed launches; use --reps"},
    {"--benchmark_min_warmup_time", "warm-up is --warmup launches per point"},
    {"--benchmark_enable_random_interleaving", "points run once each, in plan order"},
    {"--benchmark_report_aggregates_only", "there are no repetitions to aggregate"},
    {"--benchmark_display_aggregates_only", "there are no repetitions to aggregate"},
    {"--benchmark_perf_counters", "CPU performance counters say nothing about the GPU; use --metrics"},
};

}  // namespace

void check_benchmark_flags(const std::vector<std::string>& gb_args) {
  std::string known;
  for (const auto& f : kFlags)
    if (!f.refusal) known += std::string(known.empty() ? "" : ", ") + f.name;
  for (std::size_t i = 1; i < gb_args.size(); ++i) {
    const std::string& a = gb_args[i];
    const std::string name = a.substr(0, a.find('='));
    const auto* rule = std::find_if(std::begin(kFlags), std::end(kFlags), [&](const FlagRule& f) { return name == f.name; });
    if (rule == std::end(kFlags))
      throw UsageError("unknown Google Benchmark flag " + name + " (passed through: " + known + ")");
    if (rule->refusal) throw UsageError(name + " is not supported: " + rule->refusal);
    if (!rule->values) continue;
    const bool has_value = a.find('=') != std::string::npos;
    const std::string value = has_value ? a.substr(a.find('=') + 1) : "";
    const std::string allowed = rule->values;
    if (allowed.empty()) {
      if (value.empty()) throw UsageError(name + ": needs a value (" + name + "=...)");
      if (name == "--benchmark_context" && value.find('=') == std::string::npos)
        throw UsageError(name + "=" + value + ": expected KEY=VALUE[,KEY=VALUE...]");
      continue;
    }
    if (!has_value && allowed == kBool) continue;  // a bare boolean flag means true
    if (("|" + allowed + "|").find("|" + value + "|") == std::string::npos)
      throw UsageError(name + "=" + value + ": expected one of " + allowed);
  }
}

void check_benchmark_out(const std::vector<std::string>& gb_args, const std::vector<std::string>& inputs,
                         const std::string& out, const std::vector<std::string>& results) {
  namespace fs = std::filesystem;
  const std::string flag = "--benchmark_out";
  // The same spelling after following every symlink that exists (a target not written yet is
  // compared by its normalized absolute path).
  auto resolved = [](const std::string& p) {
    std::error_code ec;
    fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::path(p).lexically_normal() : r;
  };
  for (std::size_t i = 1; i < gb_args.size(); ++i) {  // every occurrence: Google Benchmark takes the last
    const std::string& a = gb_args[i];
    if (a.rfind(flag + "=", 0) != 0) continue;
    const std::string file = a.substr(flag.size() + 1);
    if (file.empty()) throw UsageError(flag + ": needs a value (" + flag + "=...)");
    if (!out.empty() && (same_file(file, out) || resolved(file) == resolved(out)))
      throw UsageError(flag + " " + file + " is divbench's own --out: give Google Benchmark a file of its own");
    for (const auto& r : results)
      if (same_file(file, r) || resolved(file) == resolved(r))
        throw UsageError(flag + " " + file + " is a result divbench writes (--out " + out +
                         "): give Google Benchmark a file of its own");
    check_output(flag, file, inputs);
    std::string why;
    if (!path_is_writable(file, &why)) throw UsageError(flag + ": cannot write " + file + ": " + why);
  }
}

GpuConsoleReporter::GpuConsoleReporter()
    : benchmark::ConsoleReporter(::isatty(STDOUT_FILENO) ? OO_ColorTabular : OO_Tabular) {}

bool GpuConsoleReporter::ReportContext(const Context& context) {
  read_library_build(context);
  // What ConsoleReporter::ReportContext sets up, without printing the CPU banner.
  name_field_width_ = context.name_field_width;
  printed_header_ = false;
  prev_counters_.clear();
  return true;
}

bool SilentReporter::ReportContext(const Context& context) {
  read_library_build(context);
  return true;
}

json benchmark_build_info() {
  return json{{"benchmark_version", build::benchmark_version},
              {"benchmark_source", build::benchmark_source},
              {"benchmark_library_build", g_library_build}};
}

}  // namespace divbench
