#include "divbench/cubin/runner.hpp"
#include "divbench/core/stats.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"  // write_all
#include "divbench/core/process.hpp"  // spawn
#include "driver_api.hpp"

namespace divbench::cubin {
namespace {

using Clock = std::chrono::steady_clock;

// The time point `s` seconds from now.
Clock::time_point after(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

void check_run_config(const RunConfig& c) {
  if (c.threads < 32 || c.threads > 1024 || c.threads % 32 != 0)
    throw UsageError("--threads " + std::to_string(c.threads) + ": must be a multiple of 32 in 32..1024");
  if (c.reps < 1) throw UsageError("--reps must be at least 1");
  if (c.spin_cap < 1) throw UsageError("--spin-cap must be at least 1");
  if (!(c.timeout_s > 0) || !(c.startup_s > 0)) throw UsageError("--timeout must be positive");
}

namespace {

// Initializes the driver and checks that `cfg.device` exists (NoDeviceError / UsageError).
CUdevice open_device(const DriverApi& cu, const RunConfig& cfg) {
  const CUresult e = cu.cuInit(0);
  if (e != CUDA_SUCCESS) throw NoDeviceError("no CUDA GPU found (cuInit: " + cu.describe(e) + ")");
  int count = 0;
  if (cu.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) throw NoDeviceError("no CUDA GPU found");
  if (cfg.device < 0 || cfg.device >= count)
    throw UsageError("--device " + std::to_string(cfg.device) + ": only " + std::to_string(count) + " device(s)");
  CUdevice dev = 0;
  cu.cuDeviceGet(&dev, cfg.device);
  return dev;
}

DeviceRecord device_record(const RunConfig& cfg) {
  if (cfg.device_query) return cfg.device_query(cfg.device);
  DeviceRecord d;
  d.index = cfg.device;
  return d;
}

// RAII owner of the driver objects of one trial.
struct Trial {
  const DriverApi& cu;
  CUcontext ctx = nullptr;
  CUdevice dev = 0;
  CUmodule mod = nullptr;
  CUdeviceptr bufs[4] = {0, 0, 0, 0};
  explicit Trial(const DriverApi& api) : cu(api) {}
  // A kernel is still running: freeing would wait for it forever. Leave everything to process exit.
  void abandon() {
    for (auto& b : bufs) b = 0;
    mod = nullptr;
    ctx = nullptr;
  }
  ~Trial() {
    for (auto b : bufs)
      if (b) cu.cuMemFree(b);
    if (mod) cu.cuModuleUnload(mod);
    if (ctx) cu.cuDevicePrimaryCtxRelease(dev);
  }
};

}  // namespace

std::vector<int> flip_test_input(int threads) {
  std::vector<int> in(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i) in[i] = static_cast<int>((static_cast<unsigned>(i) * 2654435761u + 12345u) >> 8);
  return in;
}

void flip_test_expected(const std::vector<int>& in, std::vector<int>& out, std::vector<int>& exch_12) {
  const std::size_t n = in.size();
  std::vector<unsigned> v(n);
  for (std::size_t t = 0; t < n; ++t) {
    unsigned x = static_cast<unsigned>(in[t]);
    if (t & 1) {
      for (int i = 0; i < static_cast<int>(x & 15u) + 8; ++i) x = (x & 1) ? 3 * x + 1 : x >> 1;
    } else {
      for (int i = 0; i < static_cast<int>(x & 7u) + 4; ++i) x = x * 1103515245u + 12345u;
    }
    v[t] = x;
  }
  out.assign(n, 0);
  exch_12.assign(2 * n, 0);
  for (std::size_t t = 0; t < n; ++t) {
    out[t] = static_cast<int>(v[t] ^ v[t ^ 1]);
    exch_12[2 * t + 0] = static_cast<int>(v[t ^ 1]);  // shuffle partner
    exch_12[2 * t + 1] = static_cast<int>(v[t ^ 1]);  // shared-memory partner
  }
}

TrialResult run_trial_here(const std::vector<std::uint8_t>& cubin, const RunConfig& cfg, const DriverApi* api) {
  check_run_config(cfg);
  const DriverApi& cu = api ? *api : DriverApi::get();
  const auto t_start = Clock::now();
  TrialResult r;
  Trial t(cu);
  CUresult e = CUDA_SUCCESS;
  t.dev = open_device(cu, cfg);
  r.device = device_record(cfg);
  auto fail = [&](const char* status, CUresult err, const std::string& where) {
    r.status = status;
    r.error = where + ": " + cu.describe(err);
    r.wall_ms = ms_since(t_start);
    return r;
  };
  if ((e = cu.cuDevicePrimaryCtxRetain(&t.ctx, t.dev)) != CUDA_SUCCESS) return fail("launch_error", e, "context");
  cu.cuCtxSetCurrent(t.ctx);
  if ((e = cu.cuModuleLoadData(&t.mod, cubin.data())) != CUDA_SUCCESS) return fail("load_error", e, "cuModuleLoadData");
  CUfunction fn = nullptr;
  if ((e = cu.cuModuleGetFunction(&fn, t.mod, cfg.function.c_str())) != CUDA_SUCCESS)
    return fail("load_error", e, "cuModuleGetFunction(" + cfg.function + ")");

  const std::size_t n = static_cast<std::size_t>(cfg.threads);
  const std::size_t warps = n / 32;
  const std::vector<int> in = flip_test_input(cfg.threads);
  const std::size_t sizes[4] = {n * 4, n * 4, n * 16, warps * 8};
  for (int i = 0; i < 4; ++i)
    if ((e = cu.cuMemAlloc(&t.bufs[i], sizes[i])) != CUDA_SUCCESS) return fail("launch_error", e, "cuMemAlloc");
  if ((e = cu.cuMemcpyHtoD(t.bufs[0], in.data(), sizes[0])) != CUDA_SUCCESS) return fail("launch_error", e, "copy");

  constexpr unsigned kSentinel = 0x5e5e5e5eu;  // what a disabled store leaves behind
  std::vector<int> out(n), exch(4 * n), first_out, first_exch;
  std::vector<long long> cyc(warps);
  int spin_cap = cfg.spin_cap;
  for (int rep = 0; rep < cfg.reps; ++rep) {
    for (int i = 1; i < 4; ++i)
      if ((e = cu.cuMemsetD32(t.bufs[i], kSentinel, sizes[i] / 4)) != CUDA_SUCCESS)
        return fail("launch_error", e, "cuMemsetD32");
    void* args[] = {&t.bufs[0], &t.bufs[1], &t.bufs[2], &t.bufs[3], &spin_cap};
    if ((e = cu.cuLaunchKernel(fn, 1, 1, 1, static_cast<unsigned>(n), 1, 1, 0, nullptr, args, nullptr)) != CUDA_SUCCESS)
      return fail("launch_error", e, "cuLaunchKernel");
    // Bounded wait: poll the stream until the deadline; a hung kernel is reported, and the parent
    // process kills this child (the context dies with it).
    const auto deadline = Clock::now() + std::chrono::duration<double>(cfg.timeout_s);
    while ((e = cu.cuStreamQuery(nullptr)) == CUDA_ERROR_NOT_READY) {
      if (Clock::now() > deadline) {
        t.abandon();
        r.status = "timeout";
        r.error = "kernel still running after " + std::to_string(cfg.timeout_s) + " s (launch " + std::to_string(rep) + ")";
        r.wall_ms = ms_since(t_start);
        return r;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (e != CUDA_SUCCESS) return fail("fault", e, "kernel (launch " + std::to_string(rep) + ")");
    if ((e = cu.cuMemcpyDtoH(out.data(), t.bufs[1], sizes[1])) != CUDA_SUCCESS ||
        (e = cu.cuMemcpyDtoH(exch.data(), t.bufs[2], sizes[2])) != CUDA_SUCCESS ||
        (e = cu.cuMemcpyDtoH(cyc.data(), t.bufs[3], sizes[3])) != CUDA_SUCCESS)
      return fail("fault", e, "copy back");
    r.cycles_warp0.push_back(cyc[0]);
    for (std::size_t i = 0; i < n; ++i) r.max_polls = std::max(r.max_polls, exch[4 * i + 3]);
    std::vector<int> ex012;
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) ex012.push_back(exch[4 * i + k]);
    if (rep == 0) {
      first_out = out;
      first_exch = ex012;
    } else if (out != first_out || ex012 != first_exch) {
      r.outputs_stable = false;
    }
  }
  r.status = "completed";
  r.out = out;
  r.exch = exch;
  r.wall_ms = ms_since(t_start);
  return r;
}

json to_json(const TrialResult& r) {
  json j;
  j["status"] = r.status;
  if (!r.error.empty()) j["error"] = r.error;
  j["completed"] = r.completed();
  j["outputs_stable"] = r.outputs_stable;
  j["max_polls"] = r.max_polls;
  j["cycles_warp0"] = r.cycles_warp0;
  j["out"] = r.out;
  j["exch"] = r.exch;
  j["wall_ms"] = r.wall_ms;
  j["device"] = divbench::to_json(r.device);
  return j;
}

TrialResult trial_from_json(const json& j) {
  TrialResult r;
  r.status = j.at("status").get<std::string>();
  if (j.contains("error")) r.error = j["error"].get<std::string>();
  r.outputs_stable = j.value("outputs_stable", true);
  r.max_polls = j.value("max_polls", 0);
  r.cycles_warp0 = j.value("cycles_warp0", std::vector<long long>{});
  r.out = j.value("out", std::vector<int>{});
  r.exch = j.value("exch", std::vector<int>{});
  r.wall_ms = j.value("wall_ms", 0.0);
  if (j.contains("device")) r.device = device_from_json(j["device"]);
  return r;
}

namespace {

// The child: trials first..end in order, one JSON line each; stops after the first trial that did
// not complete (its context may be unusable: the parent starts a fresh child for the rest).
[[noreturn]] void child_main(int fd, const std::vector<std::vector<std::uint8_t>>& cubins, std::size_t first,
                             const RunConfig& cfg0, const DriverApi* api) {
  RunConfig cfg = cfg0;  // the device is queried once per process
  std::optional<DeviceRecord> device;
  if (cfg0.device_query)
    cfg.device_query = [&](int d) {
      if (!device) device = cfg0.device_query(d);
      return *device;
    };
  for (std::size_t i = first; i < cubins.size(); ++i) {
    json j;
    try {
      j = to_json(run_trial_here(cubins[i], cfg, api));
    } catch (const NoDeviceError& e) {
      j = {{"status", "no_device"}, {"error", e.what()}};
    } catch (const std::exception& e) {
      j = {{"status", "launch_error"}, {"error", e.what()}};
    }
    write_all(fd, j.dump() + "\n");
    if (j["status"] != "completed") break;
  }
  ::close(fd);
  ::_exit(0);  // no atexit handlers: the driver's own teardown happens at process exit
}

// Reaps the child within `limit_s`, killing it when its exit (driver teardown) takes longer.
int reap(pid_t pid, double limit_s) {
  int st = 0;
  const auto deadline = Clock::now() + std::chrono::duration<double>(limit_s);
  while (::waitpid(pid, &st, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return st;
}

}  // namespace

namespace {
enum class Read { line, timeout, eof };

// The next '\n'-terminated line from a child's pipe (without the '\n'), reading into `buf` until one
// is complete, the deadline passes, or the child closes its end.
Read read_line(int fd, std::string& buf, Clock::time_point deadline, std::string& line) {
  char chunk[65536];
  for (;;) {
    if (const auto nl = buf.find('\n'); nl != std::string::npos) {
      line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      return Read::line;
    }
    const double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) return Read::timeout;
    pollfd p{fd, POLLIN, 0};
    const int pr = ::poll(&p, 1, static_cast<int>(std::min(left_ms, 1000.0)) + 1);
    if (pr < 0 && errno != EINTR) throw std::runtime_error("poll failed");
    if (pr <= 0) continue;
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return Read::eof;
    buf.append(chunk, static_cast<std::size_t>(got));
  }
}

// Owns a trial child and the read end of its pipe; on scope exit (also by exception) the child is
// killed unless it was already reaped.
struct Child {
  pid_t pid;
  int fd;
  double exit_limit_s;
  bool reaped = false;
  int status = 0;
  int wait() {
    if (!reaped) {
      status = reap(pid, exit_limit_s);
      reaped = true;
    }
    return status;
  }
  ~Child() {
    ::close(fd);
    if (!reaped) {
      ::kill(pid, SIGKILL);
      reap(pid, exit_limit_s);
    }
  }
};

// A child (core/process's spawn) that runs body(write end of a pipe) and exits without atexit handlers;
// the parent keeps the read end (Child::fd). The trial processes and the device check.
template <class Body>
Child spawn_child(double exit_limit_s, Body&& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  SpawnSpec s;
  s.close_fds = {fds[0]};
  const int write_end = fds[1];
  s.body = [&body, write_end] { body(write_end); };
  pid_t pid = -1;
  try {
    pid = spawn(s);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  return Child{pid, fds[0], exit_limit_s};
}
}  // namespace

std::vector<TrialResult> run_trials_isolated(const std::vector<std::vector<std::uint8_t>>& cubins, const RunConfig& cfg,
                                             const DriverApi* api,
                                             const std::function<void(std::size_t, const TrialResult&)>& on_result) {
  check_run_config(cfg);
  std::vector<TrialResult> results(cubins.size());
  // Per trial: every launch may take the kernel timeout, plus driver start-up / module load.
  const double trial_budget_s = cfg.timeout_s * cfg.reps + cfg.startup_s;
  std::size_t next = 0;
  auto finish = [&](TrialResult r) {
    if (r.status == "no_device") throw NoDeviceError(r.error);
    if (on_result) on_result(next, r);
    results[next++] = std::move(r);
  };
  while (next < cubins.size()) {
    Child child = spawn_child(cfg.startup_s, [&](int fd) { child_main(fd, cubins, next, cfg, api); });
    std::string buf, line;
    auto deadline = after(trial_budget_s);
    for (;;) {
      const Read got = read_line(child.fd, buf, deadline, line);
      if (got == Read::line) {  // one trial's result
        TrialResult r;
        try {
          r = trial_from_json(json::parse(line));
        } catch (const std::exception&) {
          r.status = "crashed";
          r.error = "unreadable result from the trial process";
        }
        const bool ok = r.completed();
        finish(std::move(r));
        if (!ok || next == cubins.size()) break;  // the child stops after a failed trial
        deadline = after(trial_budget_s);
        continue;
      }
      TrialResult r;
      if (got == Read::timeout) {  // no answer in time: kill the child, the trial counts as hung
        ::kill(child.pid, SIGKILL);
        child.wait();
        r.status = "timeout";
        r.error = "trial process killed after " + std::to_string(trial_budget_s) + " s without a result";
      } else {  // end of file without a result for the current trial: the child died
        const int st = child.wait();
        r.status = "crashed";
        r.error = WIFSIGNALED(st) ? "trial process died from signal " + std::to_string(WTERMSIG(st))
                                  : "trial process exited " + std::to_string(WEXITSTATUS(st)) + " without a result";
      }
      finish(std::move(r));
      break;
    }
    child.wait();  // bounded: a child slow to exit is killed
  }
  return results;
}

TrialResult run_trial_isolated(const std::vector<std::uint8_t>& cubin, const RunConfig& cfg, const DriverApi* api) {
  return run_trials_isolated({cubin}, cfg, api).front();
}

DeviceRecord probe_device_isolated(const RunConfig& cfg, const DriverApi* api) {
  check_run_config(cfg);
  Child child = spawn_child(cfg.startup_s, [&](int fd) {
    json j;
    try {
      const DriverApi& cu = api ? *api : DriverApi::get();
      open_device(cu, cfg);
      j = {{"status", "ok"}, {"device", divbench::to_json(device_record(cfg))}};
    } catch (const NoDeviceError& e) {
      j = {{"status", "no_device"}, {"error", e.what()}};
    } catch (const UsageError& e) {
      j = {{"status", "usage"}, {"error", e.what()}};
    } catch (const std::exception& e) {
      j = {{"status", "error"}, {"error", e.what()}};
    }
    write_all(fd, j.dump() + "\n");
    ::close(fd);
  });
  std::string buf, line;
  const Read got = read_line(child.fd, buf, after(cfg.startup_s), line);
  if (got == Read::timeout)
    throw std::runtime_error("the device check did not answer within " + std::to_string(cfg.startup_s) + " s");
  if (got == Read::eof) throw std::runtime_error("the device check process died without an answer");
  child.wait();
  json j;
  try {
    j = json::parse(line);
  } catch (const std::exception&) {
    throw std::runtime_error("unreadable answer from the device check process");
  }
  const std::string status = j.value("status", "");
  if (status == "ok") return device_from_json(j.at("device"));
  const std::string error = j.value("error", "device check failed");
  if (status == "no_device") throw NoDeviceError(error);
  if (status == "usage") throw UsageError(error);
  throw std::runtime_error(error);
}

namespace {
double median_of(const std::vector<long long>& v) {
  return v.empty() ? 0.0 : divbench::median(std::vector<double>(v.begin(), v.end()));
}
// Fields [first, last] of every thread's 4-int exchange record.
std::vector<int> exch_fields(const std::vector<int>& exch, int first, int last) {
  std::vector<int> r;
  for (std::size_t i = 0; i + 4 <= exch.size(); i += 4)
    for (int k = first; k <= last; ++k) r.push_back(exch[i + k]);
  return r;
}
}  // namespace

Comparison compare(const TrialResult& base, const TrialResult& t, const std::vector<int>& input) {
  Comparison c;
  c.completed = t.completed();
  if (!c.completed) return c;
  c.output_equal = t.out == base.out;
  c.exchange_equal = exch_fields(t.exch, 0, 2) == exch_fields(base.exch, 0, 2);
  std::vector<int> out, ex;
  flip_test_expected(input, out, ex);
  c.matches_model = t.out == out && exch_fields(t.exch, 1, 2) == ex;
  c.cycles_median = median_of(t.cycles_warp0);
  const double b = median_of(base.cycles_warp0);
  c.cycles_ratio = b > 0 ? c.cycles_median / b : 0;
  return c;
}

json Comparison::to_json() const {
  return json{{"completed", completed},       {"output_equal", output_equal}, {"exchange_equal", exchange_equal},
              {"matches_model", matches_model}, {"cycles_median", cycles_median}, {"cycles_ratio", cycles_ratio}};
}

}  // namespace divbench::cubin
