#include "divbench/core/process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace divbench {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string temp_base() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd) {
  if (argv.empty()) throw std::runtime_error("run_process: empty command");
  const std::string base = temp_base();
  std::string out_tmpl = base + "/divbench-out-XXXXXX", err_tmpl = base + "/divbench-err-XXXXXX";
  char* out_name = out_tmpl.data();
  char* err_name = err_tmpl.data();
  int out_fd = ::mkstemp(out_name);
  int err_fd = ::mkstemp(err_name);
  if (out_fd < 0 || err_fd < 0) {
    if (out_fd >= 0) ::close(out_fd), ::unlink(out_name);
    if (err_fd >= 0) ::close(err_fd), ::unlink(err_name);
    throw std::runtime_error("run_process: cannot create temp files in " + base);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("run_process: fork failed: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(out_fd);
  ::close(err_fd);
  ProcessResult r;
  r.out = read_file(out_name);
  r.err = read_file(err_name);
  ::unlink(out_name);
  ::unlink(err_name);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  if (r.exit_code == 127 && r.out.empty() && r.err.empty())
    throw std::runtime_error("cannot run '" + argv[0] + "'");
  return r;
}

TempDir::TempDir() {
  const std::string base = temp_base();
  std::string tmpl = base + "/divbench-sass-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory in " + base);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace divbench
