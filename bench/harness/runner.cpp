#include "runner.hpp"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/samples.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/clock.hpp"
#include "divbench/cuda/device_info.hpp"
#include "divbench/cupti/metrics.hpp"
#include "experiment.hpp"
#include "report.hpp"

namespace divbench {
namespace fs = std::filesystem;

namespace {

class NullReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

std::vector<const Experiment*> select_experiments(const RunOptions& o) {
  std::vector<const Experiment*> sel;
  auto names = [](const std::string& kind) {
    std::string s;
    for (const auto& e : experiment_registry())
      if (e.kind == kind) s += (s.empty() ? "" : ", ") + e.name;
    return s;
  };
  if (o.all) {
    for (const auto& e : experiment_registry()) sel.push_back(&e);
  } else if (!o.sweep.empty()) {
    const Experiment* e = find_experiment(o.sweep, "sweep");
    if (!e) throw UsageError("unknown sweep '" + o.sweep + "' (sweeps: " + names("sweep") + ")");
    sel.push_back(e);
  } else if (!o.probe.empty()) {
    const Experiment* e = find_experiment(o.probe, "probe");
    if (!e) throw UsageError("unknown probe '" + o.probe + "' (probes: " + names("probe") + ")");
    sel.push_back(e);
  }
  return sel;
}

// Where a result goes: --out FILE for a single result, --out DIR (existing, or ending in '/') otherwise.
std::string out_path(const RunOptions& o, const std::string& stem, int device, bool many_devices, bool many_results) {
  if (o.out.empty()) return {};
  const bool is_dir = fs::is_directory(o.out) || o.out.back() == '/';
  std::string name = stem + (many_devices ? "_dev" + std::to_string(device) : "") + ".json";
  if (is_dir) return (fs::path(o.out) / name).string();
  if (many_results)
    throw UsageError("--out " + o.out + ": several results would be written; give an existing directory");
  return o.out;
}

void check_out_target(const RunOptions& o) {
  if (o.out.empty()) return;
  if (o.out.back() == '/' || fs::is_directory(o.out)) {
    if (!fs::is_directory(o.out)) throw UsageError("--out " + o.out + ": directory does not exist");
    std::string why;
    if (!path_is_writable((fs::path(o.out) / ".divbench-probe").string(), &why))
      throw UsageError("--out " + o.out + ": " + why);
    return;
  }
  std::string why;
  if (!path_is_writable(o.out, &why)) throw UsageError("--out " + o.out + ": " + why);
}

struct Job {
  const Experiment* exp;
  int device;
  std::unique_ptr<RunContext> ctx;
  ResultRecord record;
  std::vector<PointSpec> points;
  std::vector<bool> ran;
};

}  // namespace

int run_dynamic(const RunOptions& opts, const std::vector<std::string>& gb_args) {
  if (opts.list) {
    print_experiment_list(std::cout);
    return kExitOk;
  }
  // Everything that can be checked without a GPU is checked first (exit 2 before exit 3).
  const auto selected = select_experiments(opts);
  for (const Experiment* e : selected)
    if (e->validate) e->validate(opts);
  check_out_target(opts);

  const std::vector<int> devices = resolve_devices(opts.device);  // NoDeviceError without a GPU
  const bool many_devices = devices.size() > 1;
  const bool many_results = many_devices || selected.size() > 1;
  for (const Experiment* e : selected) out_path(opts, e->result_name(opts), 0, many_devices, many_results);

  // Google Benchmark sees only its own flags.
  std::vector<char*> gb_argv;
  std::vector<std::string> gb_store = gb_args;
  for (auto& s : gb_store) gb_argv.push_back(s.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data()))
    throw UsageError("unrecognized Google Benchmark flag");

  const Progress progress(opts.quiet);
  std::vector<std::unique_ptr<Job>> jobs;
  for (int dev : devices) {
    DeviceRecord info = query_device(dev);
    progress.note("device " + std::to_string(dev) + ": " + info.name + " (cc " + info.cc + ", " +
                  std::to_string(info.sm_count) + " SMs, measured SM clock " +
                  std::to_string(static_cast<int>(info.measured_sm_clock_mhz)) + " MHz)");
    for (const Experiment* e : selected) {
      auto job = std::make_unique<Job>();
      job->exp = e;
      job->device = dev;
      job->ctx = std::make_unique<RunContext>(RunContext{opts, info});
      job->record.experiment = e->name;
      job->record.device = info;
      job->record.provenance = make_provenance(opts.command_line);
      job->record.config = e->config(opts);
      job->points = e->plan(*job->ctx);
      job->ran.assign(job->points.size(), false);
      jobs.push_back(std::move(job));
    }
  }

  // Register every point of every job, then run them all in one Google Benchmark pass.
  std::size_t total = 0, done = 0;
  for (auto& j : jobs) total += j->points.size();
  for (auto& jp : jobs) {
    Job* j = jp.get();
    for (std::size_t i = 0; i < j->points.size(); ++i) {
      const std::string name = j->exp->name + (many_devices ? "/dev:" + std::to_string(j->device) : "") + "/" +
                               j->points[i].label;
      benchmark::RegisterBenchmark(name.c_str(), [j, i, &opts, &progress, &done, total, name](benchmark::State& st) {
        DIVBENCH_CUDA_CHECK(cudaSetDevice(j->device));
        PointResult r;
        for (auto _ : st) {
          const double before = measure_sm_clock_mhz(1000);
          r = j->points[i].run();
          const double after = measure_sm_clock_mhz(1000);
          if (r.timed) apply_clock_bracket(r.point, before, after);
          st.SetIterationTime(r.seconds);
        }
        if (opts.metrics && j->points[i].launch_once) {
          const json m = collect_point_metrics(j->points[i].launch_once, j->points[i].launch_twin);
          (r.timed ? r.point.extra : r.raw)["metrics"] = m;
        }
        for (const auto& [k, v] : r.counters) st.counters[k] = v;
        if (r.timed) {
          st.counters["median_cycles"] = r.point.cycles.median;
          st.counters["cv"] = r.point.cycles.cv;
          st.counters["clock_MHz"] = r.point.clock_mhz;
          j->record.points.push_back(r.point);
        } else {
          j->record.points_extra.push_back(r.raw);
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
  if (opts.quiet || opts.format != "console") display = std::make_unique<NullReporter>();
  else display = std::make_unique<benchmark::ConsoleReporter>();
  const auto wall0 = std::chrono::steady_clock::now();
  benchmark::RunSpecifiedBenchmarks(display.get());
  benchmark::ClearRegisteredBenchmarks();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  double region_s = 0;
  for (auto& j : jobs) {
    bool any = false;
    for (bool b : j->ran) any = any || b;
    if (!any) continue;  // filtered out, or --benchmark_list_tests
    j->exp->finalize(*j->ctx, j->record);
    double job_region_ms = 0, job_wall_ms = 0;
    for (const auto& p : j->record.points) {
      job_region_ms += p.region_ms;
      job_wall_ms += p.wall_ms;
    }
    j->record.timing = json{{"points_wall_ms", job_wall_ms},
                            {"points_region_ms", job_region_ms},
                            {"wall_over_region", job_region_ms > 0 ? job_wall_ms / job_region_ms : 0.0}};
    region_s += job_region_ms / 1000.0;
    const json doc = to_json(j->record);
    report_result(std::cout, opts, j->record, doc);
    const std::string path = out_path(opts, j->exp->result_name(opts), j->device, many_devices, many_results);
    if (!path.empty()) {
      write_json_atomic(path, doc);
      progress.note("wrote " + path);
    }
  }
  progress.note("total wall " + std::to_string(wall_s) + " s, summed in-kernel region time " +
                std::to_string(region_s) + " s");
  return kExitOk;
}

}  // namespace divbench
