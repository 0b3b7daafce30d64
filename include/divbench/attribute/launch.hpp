// Running the user's program under the injection library: its stdout/stderr pass through, its exit
// status is returned, and the counts it leaves are read back.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "divbench/attribute/counts.hpp"

namespace divbench::attribute {

// The program as execvp would run it: a name with a '/' must be an executable file; a bare name is
// looked up on PATH. UsageError (one line) when there is none, before anything runs.
std::string resolve_program(const std::string& name);

// Where libdivbench_inject.so is: $DIVBENCH_INJECT_LIB, else next to the divbench executable, else in
// its lib/. UsageError when there is none.
std::string find_inject_library();

struct ProgramRun {
  int exit_code = 0;       // the program's status; 128 + N when a signal N ended it
  int signal = 0;          // that signal, 0 when it exited
  double wall_s = 0;       // from fork to exit
  bool ran = false;
  bool timed_out = false;  // ended by the time limit (TERM, then KILL after kKillGraceS)
  // Processes of its process group were still running when it ended (children it left behind):
  // they were sent TERM.
  bool left_processes = false;
};

// Seconds between the TERM a run past its time limit gets and the KILL that follows.
inline constexpr double kKillGraceS = 10;

// One run of the program: argv (argv[0] resolved by resolve_program), the folder the injection library
// writes into (created), the function to instrument ("" = the discovery run, which instruments the
// first kernel the program launches), and whether its stdout/stderr go to `dir`/program.log.
struct InjectedRun {
  std::vector<std::string> argv;
  std::string dir;
  std::string target;
  bool quiet = false;
  std::string match;  // the discovery run instruments the first kernel launched that matches it ("" = any)
  std::string inject;  // another injection library for this run ("" = the one run_injected is given)
  std::vector<std::pair<std::string, std::string>> env;  // more variables set in this run's environment
};

// SIGINT or SIGTERM arrived while programs ran: they were passed the signal and have ended.
struct Interrupted {
  int signal;
};

// Runs `runs`, at most `jobs` at once, with the injection library and `ld_dir` (CUPTI's folder) in
// front of LD_LIBRARY_PATH; `started(i)` is called as run i starts. Counts do not depend on timing,
// so runs may share the GPU. Throws Interrupted (after every program ended) on SIGINT/SIGTERM.
// Each program runs in its own process group (a signal divbench gets, or the time limit, reaches its
// children too); `timeout_s` > 0 limits each run's wall time.
std::vector<ProgramRun> run_injected(const std::vector<InjectedRun>& runs, const std::string& inject_lib,
                                     const std::string& ld_dir, int jobs,
                                     const std::function<void(std::size_t)>& started = {}, double timeout_s = 0);

// What every process of one run left in `dir` (`prefix`-<pid>.json: "launches" for the discovery run,
// "counts" for a target run), merged; UsageError when a CUPTI failure was recorded (errors-<pid>.txt:
// its first line, with the permission case named), when the program ran no CUDA code, or when no
// process wrote its document.
RunCounts collect_counts(const std::string& dir, const ProgramRun& run, const std::string& prefix);

}  // namespace divbench::attribute
