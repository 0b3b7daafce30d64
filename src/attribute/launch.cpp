// Running a program under the injection library (attribute/launch.hpp).
#include "divbench/attribute/launch.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <fstream>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/process.hpp"
#include "divbench/model/kernel_facts.hpp"

namespace divbench::attribute {

namespace fs = std::filesystem;

std::string resolve_program(const std::string& name) {
  if (name.empty()) throw UsageError("attribute: give the program to run after --");
  if (name.find('/') != std::string::npos) {
    struct stat st {};
    if (::stat(name.c_str(), &st) != 0) throw UsageError(one_line(name) + ": no such program");
    if (!S_ISREG(st.st_mode)) throw UsageError(one_line(name) + ": not a regular file");
    if (::access(name.c_str(), X_OK) != 0) throw UsageError(one_line(name) + ": not executable");
    return name;
  }
  if (const std::string c = find_on_path(name, EmptyPathEntry::current_folder); !c.empty()) return c;
  throw UsageError(one_line(name) + ": no such program on PATH");
}

std::string find_inject_library() {
  if (const char* e = std::getenv("DIVBENCH_INJECT_LIB"); e && *e) {
    if (!fs::is_regular_file(e)) throw UsageError(std::string("DIVBENCH_INJECT_LIB: no such file: ") + one_line(e));
    return e;
  }
  // Beside divbench (the build tree), its lib/ (the GPU bundle), then an install's <prefix>/lib/divbench
  // (libdivbench_pcsample.so is taken from the folder this one is found in).
  const std::string dir = own_executable_dir();
  if (dir.empty()) throw UsageError("attribute: /proc/self/exe cannot be read, so libdivbench_inject.so cannot be found; set DIVBENCH_INJECT_LIB");
  const std::vector<std::string> places{dir + "/libdivbench_inject.so", dir + "/lib/libdivbench_inject.so",
                                        installed_lib_dir(dir) + "/libdivbench_inject.so"};
  std::string looked;
  for (const std::string& c : places) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return c;
    looked += (looked.empty() ? "" : ", ") + one_line(c);
  }
  throw UsageError("attribute: libdivbench_inject.so not found (looked in " + looked +
                   "; a build without CUPTI headers?); set DIVBENCH_INJECT_LIB");
}

namespace {

// One child: the program with the injection library, its output to `dir`/program.log when quiet.
pid_t start_injected(const InjectedRun& run, const std::string& inject_lib, const std::string& ld_dir) {
  fs::create_directories(run.dir);
  std::string ld = ld_dir;
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) ld += (ld.empty() ? "" : ":") + std::string(old);
  SpawnSpec s;
  s.argv = run.argv;
  s.own_group = true;  // a signal or a time limit reaches its children too
  s.default_signals = true;
  s.set_env = {{"CUDA_INJECTION64_PATH", run.inject.empty() ? inject_lib : run.inject},
               {"DIVBENCH_ATTRIBUTE_DIR", run.dir},
               // The discovery run instruments whichever kernel the program launches first.
               {"DIVBENCH_ATTRIBUTE_TARGET", run.target.empty() ? "*first*" : run.target}};
  for (const auto& [name, value] : run.env) s.set_env.emplace_back(name, value);
  if (run.match.empty()) s.unset_env = {"DIVBENCH_ATTRIBUTE_MATCH"};
  else s.set_env.emplace_back("DIVBENCH_ATTRIBUTE_MATCH", run.match);
  if (!ld.empty()) s.set_env.emplace_back("LD_LIBRARY_PATH", ld);
  if (run.quiet) s.output_file = run.dir + "/program.log";
  s.exec_error_prefix = "divbench attribute: cannot run";
  return spawn(s);
}

volatile sig_atomic_t g_stop = 0;
volatile sig_atomic_t g_stops = 0;  // signals received: a second one ends the programs at once (KILL)
void note_stop(int sig) {
  g_stop = sig;
  if (g_stops < 2) g_stops = g_stops + 1;
}

}  // namespace

std::vector<ProgramRun> run_injected(const std::vector<InjectedRun>& runs, const std::string& inject_lib,
                                     const std::string& ld_dir, int jobs,
                                     const std::function<void(std::size_t)>& started, double timeout_s) {
  std::vector<ProgramRun> out(runs.size());
  std::vector<std::chrono::steady_clock::time_point> t0(runs.size());
  std::map<pid_t, std::size_t> running;
  // A signal is passed on to the programs' process groups, which end as they choose; divbench waits for
  // them and then reports the signal (the caller gets Interrupted). A second signal KILLs the groups (a
  // program that ignores TERM would otherwise keep divbench waiting until its time limit).
  struct sigaction stop {}, old_int {}, old_term {};
  stop.sa_handler = note_stop;
  ::sigemptyset(&stop.sa_mask);
  g_stop = 0;
  g_stops = 0;
  bool killed = false;
  ::sigaction(SIGINT, &stop, &old_int);
  ::sigaction(SIGTERM, &stop, &old_term);
  std::size_t next = 0;
  bool forwarded = false;
  while (next < runs.size() || !running.empty()) {
    while (!g_stop && next < runs.size() && static_cast<int>(running.size()) < std::max(1, jobs)) {
      if (started) started(next);
      t0[next] = std::chrono::steady_clock::now();
      running[start_injected(runs[next], inject_lib, ld_dir)] = next;
      ++next;
    }
    if (g_stop && !forwarded) {
      for (const auto& [pid, i] : running) {
        ::kill(-pid, g_stop == SIGINT ? SIGINT : SIGTERM);  // the program's process group: its children too
        ::kill(pid, g_stop == SIGINT ? SIGINT : SIGTERM);
      }
      forwarded = true;
      next = runs.size();
    }
    if (g_stops >= 2 && !killed) {
      for (const auto& [pid, i] : running) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
      }
      killed = true;
    }
    if (running.empty()) break;
    // Each run's own children only (waitpid on their pids, not -1): other helpers of divbench, such as
    // nvdisasm analysing modules meanwhile, are not reaped here. A run past its time limit gets TERM,
    // then KILL after a grace period, its whole process group.
    bool reaped = false;
    const auto now = std::chrono::steady_clock::now();
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      const pid_t pid = ::waitpid(it->first, &status, WNOHANG);
      const std::size_t i = it->second;
      if (pid == it->first) {
        ProgramRun& r = out[i];
        r.wall_s = std::chrono::duration<double>(now - t0[i]).count();
        r.exit_code = exit_code_of(status);
        if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
        r.ran = true;
        // Processes of its group that outlive it (children it forked and left running): reported, and
        // sent TERM (they carry the injection environment).
        if (::kill(-pid, 0) == 0) {
          r.left_processes = true;
          ::kill(-pid, SIGTERM);
        }
        it = running.erase(it);
        reaped = true;
        continue;
      }
      if (pid < 0 && errno != EINTR) {  // not our child any more: nothing to wait for
        out[i].ran = false;
        it = running.erase(it);
        continue;
      }
      const double age = std::chrono::duration<double>(now - t0[i]).count();
      if (timeout_s > 0 && age > timeout_s && !out[i].timed_out) {
        out[i].timed_out = true;
        ::kill(-it->first, SIGTERM);
        ::kill(it->first, SIGTERM);
      } else if (timeout_s > 0 && out[i].timed_out && age > timeout_s + kKillGraceS) {
        ::kill(-it->first, SIGKILL);
        ::kill(it->first, SIGKILL);
      }
      ++it;
    }
    if (!reaped) ::usleep(2000);
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  if (g_stop) throw Interrupted{static_cast<int>(g_stop)};
  return out;
}

RunCounts collect_counts(const std::string& dir, const ProgramRun& run, const std::string& prefix) {
  RunCounts all;
  std::string first_error;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("errors-", 0) == 0 && first_error.empty()) {
      std::ifstream in(e.path());
      std::getline(in, first_error);
    }
    if (n.rfind(prefix + "-", 0) == 0 && n.size() > 5 && n.substr(n.size() - 5) == ".json") files.push_back(e.path().string());
  }
  if (!first_error.empty()) {
    if (first_error.find("INSUFFICIENT_PRIVILEGES") != std::string::npos || first_error.find("privilege") != std::string::npos)
      throw UsageError("attribute: no permission to profile this GPU (" + one_line(first_error) +
                       "); see NVIDIA's ERR_NVGPUCTRPERM note: run as root or set NVreg_RestrictProfilingToAdminUsers=0");
    if (first_error.rfind("kernel failed: ", 0) == 0)
      throw UsageError("attribute: a kernel of the program failed (" + one_line(first_error.substr(15)) +
                       "), which leaves its counts unreadable; run the program alone (or under compute-sanitizer) to find the fault");
    throw UsageError("attribute: collection failed in the program: " + one_line(first_error));
  }
  if (files.empty()) {
    if (run.signal)
      throw UsageError("attribute: the program was ended by signal " + std::to_string(run.signal) + " (" + strsignal(run.signal) +
                       ") before its counts were written");
    if (!fs::exists(dir + "/cubins") || fs::is_empty(dir + "/cubins"))
      throw UsageError("attribute: the program ran no CUDA code (no CUDA context or module was created; exit code " +
                       std::to_string(run.exit_code) + ")");
    throw UsageError("attribute: the program ended without writing its counts (exit code " + std::to_string(run.exit_code) +
                     "; did it call _exit or quick_exit?)");
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) merge_counts(all, read_counts(f));
  return all;
}

}  // namespace divbench::attribute
