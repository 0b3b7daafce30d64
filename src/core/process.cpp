#include "divbench/core/process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "divbench/core/errors.hpp"

namespace fs = std::filesystem;

namespace divbench {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

namespace {
// SIGINT/SIGTERM while a helper runs or a TempDir exists: the handler only notes the signal and kills
// the running helper's process group; run_process then throws, the stack unwinds (temp files and
// TempDirs removed), and when the last Interruptible goes away the signal is raised again with its old
// disposition, so the process still ends as the signal asked.
// Helpers and TempDirs come and go on several threads at once (attribute disassembles modules while
// the program runs): the count of guards is kept under a lock (an unguarded count could drop to 0 early
// and put back the handlers of the first guard's time while attribute's own were needed), and every
// running helper's group has a slot the handler reads (lock-free atomics, safe in a signal handler),
// so a signal stops every helper running, not only the last one started.
volatile std::sig_atomic_t g_signal = 0;
constexpr int kChildSlots = 64;
std::atomic<int> g_child_groups[kChildSlots];  // 0: free
std::mutex g_guard_mutex;
int g_guards = 0;  // under g_guard_mutex
struct sigaction g_old_int {}, g_old_term {};

extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  for (auto& g : g_child_groups)
    if (const int pid = g.load(); pid > 0) ::kill(-static_cast<pid_t>(pid), SIGKILL);
}

// A running helper's process group in a free slot (none free: the signal then does not reach it, and
// run_process still kills it when it sees g_signal).
struct ChildSlot {
  std::atomic<int>* slot = nullptr;
  explicit ChildSlot(pid_t pid) {
    for (auto& g : g_child_groups) {
      int free = 0;
      if (g.compare_exchange_strong(free, static_cast<int>(pid))) {
        slot = &g;
        break;
      }
    }
  }
  ~ChildSlot() {
    if (slot) slot->store(0);
  }
  ChildSlot(const ChildSlot&) = delete;
  ChildSlot& operator=(const ChildSlot&) = delete;
};

struct Interruptible {
  Interruptible() {
    const std::lock_guard<std::mutex> lock(g_guard_mutex);
    if (g_guards++ > 0) return;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &g_old_int);
    ::sigaction(SIGTERM, &sa, &g_old_term);
  }
  ~Interruptible() {
    const std::lock_guard<std::mutex> lock(g_guard_mutex);
    if (--g_guards > 0) return;
    ::sigaction(SIGINT, &g_old_int, nullptr);
    ::sigaction(SIGTERM, &g_old_term, nullptr);
    if (const int sig = g_signal) {
      g_signal = 0;
      const std::string line = "divbench: error: interrupted by signal " + std::to_string(sig) +
                               " (helper stopped, temporary files removed)\n";
      if (::write(2, line.data(), line.size()) < 0) {
      }
      ::raise(sig);
    }
  }
  Interruptible(const Interruptible&) = delete;
  Interruptible& operator=(const Interruptible&) = delete;
};

// A temporary file of run_process, unlinked on every way out.
struct TempFile {
  std::string name;
  int fd = -1;
  explicit TempFile(const std::string& base, const char* stem) : name(base + "/" + stem + "-XXXXXX") {
    fd = ::mkstemp(name.data());
    if (fd < 0)  // an unusable TMPDIR (missing, read-only, full) is the caller's setting: exit 2
      throw UsageError("TMPDIR " + base + ": cannot create a temporary file there (" + std::strerror(errno) +
                       "); set TMPDIR to a writable folder");
  }
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    ::unlink(name.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};
}  // namespace

double tool_timeout_s() {
  const std::string v = env("DIVBENCH_TOOL_TIMEOUT_S");
  if (v.empty()) return kDefaultToolTimeoutS;
  char* end = nullptr;
  const double s = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !(s > 0) || s > 1e6)
    throw UsageError("DIVBENCH_TOOL_TIMEOUT_S='" + v + "': not a number of seconds in (0, 1e6]");
  return s;
}

pid_t spawn(const SpawnSpec& s) {
  if (s.argv.empty() && !s.body) throw std::runtime_error("spawn: neither a program nor a body");
  std::vector<char*> args;
  for (const auto& a : s.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed: " + std::string(std::strerror(errno)));
  if (pid > 0) {
    if (s.own_group) ::setpgid(pid, pid);
    return pid;
  }
  if (s.own_group) ::setpgid(0, 0);
#ifdef __linux__
  if (s.die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before the line above
  }
#endif
  if (s.default_signals) {
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
  }
  for (int fd : s.close_fds) ::close(fd);
  if (s.stdin_null) {
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
  }
  if (s.stdout_fd >= 0) ::dup2(s.stdout_fd, 1);
  if (s.stderr_fd >= 0) ::dup2(s.stderr_fd, 2);
  if (!s.output_file.empty()) {
    const int fd = ::open(s.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
  }
  for (const auto& [name, value] : s.set_env) ::setenv(name.c_str(), value.c_str(), 1);
  for (const auto& name : s.unset_env) ::unsetenv(name.c_str());
  if (!s.cwd.empty() && ::chdir(s.cwd.c_str()) != 0) ::_exit(126);
  if (s.body) {
    s.body();
    ::_exit(0);
  }
  if (s.search_path) ::execvp(args[0], args.data());
  else ::execv(args[0], args.data());
  if (!s.exec_error_prefix.empty())
    std::fprintf(stderr, "%s %s: %s\n", s.exec_error_prefix.c_str(), args[0], std::strerror(errno));
  ::_exit(127);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string file_arg(const std::string& path) { return !path.empty() && path[0] == '-' ? "./" + path : path; }

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd) {
  if (argv.empty()) throw std::runtime_error("run_process: empty command");
  const double limit_s = tool_timeout_s();
  const Interruptible interruptible;  // declared first: destroyed last, after the temp files are gone
  if (g_signal) throw std::runtime_error("interrupted by signal " + std::to_string(g_signal));
  const std::string base = env("TMPDIR").empty() ? "/tmp" : env("TMPDIR");
  TempFile out_file(base, "divbench-out"), err_file(base, "divbench-err");
  SpawnSpec spec;
  spec.argv = argv;
  spec.search_path = true;
  spec.cwd = cwd;
  spec.stdin_null = true;
  spec.stdout_fd = out_file.fd;
  spec.stderr_fd = err_file.fd;
  spec.own_group = true;        // a timeout or a signal kills it with everything it started
  spec.die_with_parent = true;  // divbench killed, even by SIGKILL (no handler runs): the tool dies with it
  spec.default_signals = true;
  const pid_t pid = spawn(spec);
  std::optional<ChildSlot> slot(std::in_place, pid);
  int status = 0;
  bool timed_out = false;
  const auto start = std::chrono::steady_clock::now();
  for (long nap_us = 200;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (g_signal || waited > limit_s) {
      timed_out = !g_signal;
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    ::usleep(static_cast<useconds_t>(nap_us));
    nap_us = std::min(nap_us * 2, 20000L);
  }
  slot.reset();
  ::kill(-pid, SIGKILL);  // whatever it left running in its group
  if (g_signal) throw std::runtime_error("interrupted by signal " + std::to_string(g_signal));
  if (timed_out)
    throw UsageError(argv[0] + " did not finish within " + std::to_string(static_cast<long long>(limit_s)) +
                     " s (killed; the limit is DIVBENCH_TOOL_TIMEOUT_S)");
  ProcessResult r;
  r.out = read_file(out_file.name);
  r.err = read_file(err_file.name);
  r.exit_code = exit_code_of(status);
  if (r.exit_code == 127 && r.out.empty() && r.err.empty())
    throw std::runtime_error("cannot run '" + argv[0] + "'");
  return r;
}

TempDir::TempDir() {
  const std::string base = env("TMPDIR").empty() ? "/tmp" : env("TMPDIR");
  std::string tmpl = base + "/divbench-sass-XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    throw UsageError("TMPDIR " + base + ": cannot create a temporary folder there (" + std::strerror(errno) +
                     "); set TMPDIR to a writable folder");
  path_ = tmpl;
  guard_ = new Interruptible;
}

TempDir::~TempDir() {
  // remove_all may throw bad_alloc (even with an error_code): a destructor runs while another exception,
  // often bad_alloc itself, unwinds, and must not throw. What is left is in the system's temporary folder.
  try {
    std::error_code ec;
    fs::remove_all(path_, ec);
  } catch (...) {
  }
  delete static_cast<Interruptible*>(guard_);  // last: a signal noted meanwhile is raised after the removal
}

std::string find_on_path(const std::string& name, EmptyPathEntry empty) {
  const char* path = std::getenv("PATH");
  const std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t a = 0; a <= p.size();) {
    const std::size_t b = std::min(p.find(':', a), p.size());
    const std::string d = p.substr(a, b - a);
    if (!d.empty() || empty == EmptyPathEntry::current_folder) {
      const std::string c = (d.empty() ? "." : d) + "/" + name;
      if (is_executable_file(c)) return c;
    }
    a = b + 1;
  }
  return "";
}

std::string own_executable() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::string own_executable_dir() {
  const std::string exe = own_executable();
  return exe.empty() ? std::string() : std::filesystem::path(exe).parent_path().string();
}

// The install's folders relative to its bin/ (cmake/Install.cmake passes them; these are GNUInstallDirs' defaults).
#ifndef DIVBENCH_INSTALL_DATA_FROM_BIN
#define DIVBENCH_INSTALL_DATA_FROM_BIN "../share/divbench"
#endif
#ifndef DIVBENCH_INSTALL_LIB_FROM_BIN
#define DIVBENCH_INSTALL_LIB_FROM_BIN "../lib/divbench"
#endif

std::string installed_data_dir(const std::string& exe_dir) {
  if (exe_dir.empty()) return "";
  return (std::filesystem::path(exe_dir) / DIVBENCH_INSTALL_DATA_FROM_BIN).lexically_normal().string();
}

std::string installed_lib_dir(const std::string& exe_dir) {
  if (exe_dir.empty()) return "";
  return (std::filesystem::path(exe_dir) / DIVBENCH_INSTALL_LIB_FROM_BIN).lexically_normal().string();
}

}  // namespace divbench
