// core/process's spawn, the one fork of divbench (run_process, attribute's programs, the cubin runner's
// trial processes): environment, output, process group, a body instead of a program, a failed exec.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "divbench/core/process.hpp"

using namespace divbench;

namespace {
int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  return exit_code_of(status);
}
std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

TEST(Spawn, ProgramWithEnvironmentOutputFileAndOwnGroup) {
  TempDir tmp;
  ::setenv("DIVBENCH_SPAWN_TEST_GONE", "still here", 1);
  SpawnSpec s;
  s.argv = {"/bin/sh", "-c", "echo \"$A|${DIVBENCH_SPAWN_TEST_GONE-unset}|$(ps -o pgid= -p $$ | tr -d ' ')|$$\"; echo err >&2"};
  s.set_env = {{"A", "set"}};
  s.unset_env = {"DIVBENCH_SPAWN_TEST_GONE"};
  s.output_file = tmp.path() + "/out.log";
  s.own_group = true;
  const pid_t pid = spawn(s);
  EXPECT_EQ(wait_for(pid), 0);
  const std::string out = slurp(s.output_file);
  EXPECT_EQ(out.substr(0, out.find('\n')), "set|unset|" + std::to_string(pid) + "|" + std::to_string(pid)) << out;
  EXPECT_NE(out.find("err"), std::string::npos);  // stderr to the same file
  EXPECT_STREQ(std::getenv("DIVBENCH_SPAWN_TEST_GONE"), "still here");  // the parent's environment untouched
  ::unsetenv("DIVBENCH_SPAWN_TEST_GONE");
}

TEST(Spawn, BodyExitCodesAndAFailedExec) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  SpawnSpec b;
  b.close_fds = {fds[0]};
  b.body = [w = fds[1]] {
    const char msg[] = "from the body";
    if (::write(w, msg, sizeof msg - 1) < 0) ::_exit(3);
  };
  const pid_t pid = spawn(b);
  ::close(fds[1]);
  char buf[64] = {};
  const ssize_t got = ::read(fds[0], buf, sizeof buf - 1);
  ::close(fds[0]);
  EXPECT_EQ(wait_for(pid), 0);
  EXPECT_EQ(std::string(buf, got > 0 ? got : 0), "from the body");
  TempDir tmp;
  SpawnSpec bad;
  bad.argv = {tmp.path() + "/no-such-program"};
  bad.output_file = tmp.path() + "/err.log";
  bad.exec_error_prefix = "test: cannot run";
  EXPECT_EQ(wait_for(spawn(bad)), 127);
  EXPECT_EQ(slurp(bad.output_file).rfind("test: cannot run " + bad.argv[0] + ": ", 0), 0u);
  SpawnSpec killed;
  killed.argv = {"/bin/sh", "-c", "kill -9 $$"};
  EXPECT_EQ(wait_for(spawn(killed)), 128 + 9);
  EXPECT_THROW(spawn(SpawnSpec{}), std::runtime_error);
}

