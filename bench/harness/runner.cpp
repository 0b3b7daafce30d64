#include "runner.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

#include "divbench/core/errors.hpp"
#include "divbench/core/process.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/run_conditions.hpp"
#include "divbench/core/samples.hpp"
#include "divbench/model/loop_cost.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/clock.hpp"
#include "divbench/cuda/device_info.hpp"
#include "divbench/cuda/nvml.hpp"
#include "divbench/cupti/metrics.hpp"
#include "gbench.hpp"
#include "interrupt.hpp"
#include "measure.hpp"
#include "output.hpp"
#include "common_settings.hpp"
#include "report.hpp"

namespace divbench {
namespace {

struct Job {
  const PreparedExperiment* exp;
  int device;
  std::string stem;
  ResultRecord record;
  std::vector<PointSpec> points;
  std::vector<bool> ran;
  std::vector<std::string> timed_names, raw_names;  // benchmark names of record.points / points_extra
};


// One stderr line per disturbed point and the verdict line (also under --quiet: a result that is not
// to be trusted is never silent). Returns 1 when the result is not trustworthy.
int report_verdict(const Progress& progress, const json& q, const std::vector<std::string>& names,
                   const std::string& experiment, const std::string& path) {
  for (const auto& d : q["disturbed"]) {
    const std::size_t i = d["index"].get<std::size_t>();
    std::string why;
    for (const auto& r : d["reasons"]) why += (why.empty() ? "" : "; ") + r.get<std::string>();
    progress.warn("DISTURBED " + (i < names.size() ? names[i] : "point " + std::to_string(i)) + ": " + why);
  }
  if (q["trustworthy"].get<bool>()) {
    progress.warn("verdict " + experiment + ": trustworthy (" + std::to_string(q["points_remeasured"].get<int>()) +
        " point(s) re-measured)");
    return 0;
  }
  std::string why;
  for (const auto& r : q["reasons"]) why += (why.empty() ? "" : "; ") + r.get<std::string>();
  std::fprintf(stderr, "divbench: verdict %s: NOT TRUSTWORTHY: %s%s (exit 4)\n", experiment.c_str(), why.c_str(),
               path.empty() ? "" : ("; written marked untrustworthy to " + path).c_str());
  return 1;
}

}  // namespace

std::vector<PreparedExperiment> prepare_experiments(const CommandLine& cl, std::vector<std::string>* notes) {
  const SettingValues h(harness_settings(), cl.given);
  const Selection sel = select_experiments(h);
  std::vector<std::string> dropped;
  const std::vector<SettingValues> values = resolve_settings(sel, cl, dropped);
  std::vector<PreparedExperiment> out;
  for (std::size_t i = 0; i < sel.experiments.size(); ++i) out.push_back(sel.experiments[i]->prepare(values[i]));
  if (notes) *notes = dropped;
  return out;
}

int run_dynamic(const CommandLine& cl, const std::vector<std::string>& gb_args) {
  const SettingValues opts(harness_settings(), cl.given);
  for (const auto& h : harness_settings())  // each harness setting given is valid, whatever runs
    if (cl.has(h.option)) parse_setting(h, cl.given.at(h.option));
  if (opts.flag("--list")) {
    print_experiment_list(std::cout, opts.text("--format"));
    return kExitOk;
  }
  // Everything that can be checked without a GPU is checked first (exit 2 before exit 3).
  std::vector<std::string> dropped;
  const std::vector<PreparedExperiment> prepared = prepare_experiments(cl, &dropped);
  check_benchmark_flags(gb_args);
  std::vector<char*> gb_argv;
  std::vector<std::string> gb_store = gb_args;
  for (auto& s : gb_store) gb_argv.push_back(s.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data()))
    throw UsageError("unrecognized Google Benchmark flag");
  // Output targets are checked (and released again, leaving nothing) before the device is looked
  // for; with --device all they are planned again once the devices are known.
  const std::string out_target = opts.text("--out");
  const bool all_devices = opts.text("--device") == "all";
  // The output rule (check_output): the inputs of this run are the loop-cost constants (given, or
  // the committed file found from the executable); neither divbench's own --out (the file, or each
  // result file of --out DIR/) nor Google Benchmark's --benchmark_out may land on them, and
  // --benchmark_out is none of the result files of `plan`.
  std::vector<std::string> inputs{model::default_constants_path(own_executable_dir())};
  for (const auto& p : prepared) inputs.insert(inputs.end(), p.inputs.begin(), p.inputs.end());
  auto check_outputs = [&](const OutputPlan& plan, const std::vector<std::string>& stems) {
    std::vector<std::string> results;
    for (const auto& s : stems)
      if (!plan.path_of(s).empty()) results.push_back(plan.path_of(s));
    for (const auto& r : results) check_output("--out", r, inputs);
    check_benchmark_out(gb_args, inputs, out_target, results);
  };
  {
    std::vector<std::string> stems_one;
    for (const auto& p : prepared) stems_one.push_back(p.result_name);
    OutputPlan check(out_target, stems_one);
    check_outputs(check, stems_one);
  }

  const std::vector<int> devices = resolve_devices(opts.text("--device"));  // NoDeviceError (exit 3) without a GPU
  const bool many_devices = all_devices && devices.size() > 1;
  auto stem_of = [&](const PreparedExperiment& p, int dev) {
    return p.result_name + (many_devices ? "_dev" + std::to_string(dev) : "");
  };
  std::vector<std::string> stems;
  for (int dev : devices)
    for (const auto& p : prepared) stems.push_back(stem_of(p, dev));
  OutputPlan output(out_target, stems);
  if (many_devices) check_outputs(output, stems);  // the per-device result files (_dev<N>) are known only now

  const bool quiet = opts.flag("--quiet");
  const std::string format = opts.text("--format");
  const bool metrics = opts.flag("--metrics");
  const Progress progress(quiet);
  for (const auto& d : dropped) progress.note(d);
  for (const auto& p : prepared)
    for (const auto& n : p.notes) progress.note(p.name + ": " + n);
  std::vector<std::unique_ptr<Job>> jobs;
  for (int dev : devices) {
    DeviceRecord info = query_device(dev);
    progress.note("device " + std::to_string(dev) + ": " + info.name + " (cc " + info.cc + ", " +
                  std::to_string(info.sm_count) + " SMs, measured SM clock " +
                  std::to_string(static_cast<int>(info.measured_sm_clock_mhz)) + " MHz)");
    for (const auto& p : prepared) {
      auto job = std::make_unique<Job>();
      job->exp = &p;
      job->device = dev;
      job->stem = stem_of(p, dev);
      job->record.experiment = p.name;
      job->record.device = info;
      job->record.provenance = make_provenance(cl.text);
      job->record.config = p.config;
      job->points = p.plan(info);
      job->ran.assign(job->points.size(), false);
      jobs.push_back(std::move(job));
    }
  }

  // Register every point of every job, then run them all in one Google Benchmark pass; with --metrics
  // the points' counter launches are queued and profiled together after the timed runs. A disturbed
  // point is measured again (measure.hpp); SIGINT/SIGTERM stop the run between points.
  const RetryPolicy policy{static_cast<int>(opts.integer("--max-attempts")),
                           opts.has("--noise-factor") ? opts.number("--noise-factor") : noise_criterion().factor,
                           &noise_criterion()};
  const InterruptGuard interrupts;
  DeferredMetrics deferred;
  std::size_t total = 0, done = 0;
  for (auto& j : jobs) total += j->points.size();
  for (auto& jp : jobs) {
    Job* j = jp.get();
    for (std::size_t i = 0; i < j->points.size(); ++i) {
      const std::string name =
          j->exp->name + (many_devices ? "/dev:" + std::to_string(j->device) : "") + "/" + j->points[i].label;
      benchmark::RegisterBenchmark(name.c_str(), [j, i, metrics, &progress, &done, total, name, &deferred, &policy](benchmark::State& st) {
        DIVBENCH_CUDA_CHECK(cudaSetDevice(j->device));
        if (interrupted_signal()) {
          st.SkipWithError("interrupted");
          return;
        }
        PointResult r;
        for (auto _ : st) {
          r = measure_point(j->points[i], j->record, policy, name,
                            [&progress](const std::string& line) { progress.warn(line); },
                            [] { return interrupted_signal() != 0; });
          st.SetIterationTime(r.seconds);
        }
        if (metrics && j->points[i].launch_once) {
          const bool timed = r.timed;
          const std::size_t at = timed ? j->record.points.size() : j->record.points_extra.size();
          deferred.add(j->device, {j->points[i].launch_once, j->points[i].launch_twin, j->points[i].launch_key},
                       [j, timed, at](json m) {
            (timed ? j->record.points[at].extra : j->record.points_extra[at])["metrics"] = std::move(m);
          });
        }
        for (const auto& [k, v] : r.counters) st.counters[k] = v;
        if (r.timed) {
          st.counters["median_cycles"] = r.point.cycles.median;
          st.counters["cv"] = r.point.cycles.cv;
          st.counters["clock_MHz"] = r.point.clock_mhz;
          j->record.points.push_back(r.point);
          j->timed_names.push_back(name);
        } else {
          j->record.points_extra.push_back(r.raw);
          j->raw_names.push_back(name);
        }
        j->ran[i] = true;
        progress.point(++done, total, name, r);
      })
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  std::unique_ptr<benchmark::BenchmarkReporter> display;
  if (quiet || format != "console") display = std::make_unique<SilentReporter>();
  else display = std::make_unique<GpuConsoleReporter>();
  const auto wall0 = std::chrono::steady_clock::now();
  benchmark::RunSpecifiedBenchmarks(display.get());
  benchmark::ClearRegisteredBenchmarks();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (const int sig = interrupted_signal()) {
    // The launches in flight end; nothing is written (the reserved outputs are removed by `output`).
    for (int dev : devices) {
      cudaSetDevice(dev);
      cudaDeviceSynchronize();
    }
    std::fprintf(stderr, "divbench: interrupted by %s after %zu of %zu points: no result written\n",
                 sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal", done, total);
    return kExitSignalBase + sig;
  }
  const json metrics_timing = deferred.run([&progress](const std::string& line) { progress.note(line); });

  double region_s = 0;
  int untrustworthy = 0;
  for (auto& j : jobs) {
    bool any = false;
    for (bool b : j->ran) any = any || b;
    if (!any) continue;  // filtered out, or --benchmark_list_tests
    j->exp->finalize(j->record);
    add_conditions_summary(j->record);
    double job_region_ms = 0, job_wall_ms = 0, job_gpu_ms = 0;
    std::size_t launches = 0;
    for (const auto& p : j->record.points) {
      job_region_ms += p.region_ms;
      job_wall_ms += p.wall_ms;
      job_gpu_ms += p.gpu_ms;
      launches += p.launches;
    }
    j->record.timing = json{{"points_wall_ms", job_wall_ms},
                            {"points_region_ms", job_region_ms},
                            {"points_gpu_ms", job_gpu_ms},
                            {"timed_launches", launches},
                            {"wall_over_region", job_region_ms > 0 ? job_wall_ms / job_region_ms : 0.0},
                            {"run_wall_s", wall_s},
                            {"sampling", j->record.config.contains("sampling") ? j->record.config["sampling"] : json(nullptr)}};
    if (!metrics_timing.is_null()) j->record.timing["metrics"] = metrics_timing;
    j->record.harness = benchmark_build_info();
    region_s += job_region_ms / 1000.0;
    json doc = to_json(j->record);
    doc["quality"] = add_verdict(j->record, doc, policy);
    report_result(std::cout, format, quiet, j->record, doc, j->exp->headline);
    const std::string path = output.commit(j->stem, doc);
    if (!path.empty()) progress.note("wrote " + path);
    std::vector<std::string> names = j->timed_names;
    names.insert(names.end(), j->raw_names.begin(), j->raw_names.end());
    untrustworthy += report_verdict(progress, j->record.quality, names, j->exp->name, path);
  }
  progress.note("total wall " + std::to_string(wall_s) + " s, summed in-kernel region time " +
                std::to_string(region_s) + " s");
  return untrustworthy > 0 ? kExitUntrustworthy : kExitOk;
}

}  // namespace divbench
