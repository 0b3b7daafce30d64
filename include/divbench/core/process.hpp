// Running an external tool and a scratch directory: what the static pipeline (nvdisasm, cuobjdump)
// and the cubin tools share, host-only.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace divbench {

// How to start a child process: the one fork of divbench. run_process (the tools), attribute's
// programs under the injection library and the cubin runner's trial processes all start theirs here.
struct SpawnSpec {
  std::vector<std::string> argv;  // the program and its arguments (argv[0] a path; a name with search_path)
  bool search_path = false;       // find argv[0] on $PATH (execvp)
  std::function<void()> body;     // instead of argv: run this in the child, then _exit(0) (no atexit handlers)
  std::string cwd;                // "" : the caller's
  std::vector<std::pair<std::string, std::string>> set_env;  // set in the child, in this order
  std::vector<std::string> unset_env;                         // removed in the child
  bool stdin_null = false;        // stdin from /dev/null
  int stdout_fd = -1;             // dup2'd onto 1 (-1: inherited)
  int stderr_fd = -1;             // dup2'd onto 2 (-1: inherited)
  std::string output_file;        // "": none; else stdout and stderr both to this file (created, truncated)
  std::vector<int> close_fds;     // closed in the child (the parent's ends of pipes)
  bool own_group = false;         // its own process group: a signal or a time limit reaches its children too
  bool die_with_parent = false;   // killed (SIGKILL) when divbench dies, even by SIGKILL
  bool default_signals = false;   // SIGINT/SIGTERM back to their default action in the child
  std::string exec_error_prefix;  // on a failed exec, "PREFIX ARGV0: REASON" on stderr ("": silent); exit 127
};
// Starts the child; its pid (the parent also puts it in its own group when own_group, closing the race
// with a signal sent right after). std::runtime_error when fork fails.
pid_t spawn(const SpawnSpec& s);

// A wait status as one code: the exit status, or 128+N when killed by signal N.
int exit_code_of(int wait_status);

struct ProcessResult {
  int exit_code = -1;  // exit status; 128+N when killed by signal N; -1 when it could not start
  std::string out;
  std::string err;
};
// Runs argv[0] (a path or a name found on PATH) with argv, optionally in `cwd`; never throws for a
// non-zero exit (the caller decides), throws std::runtime_error when it cannot start at all.
// The helper runs in its own process group with stdin /dev/null; after tool_timeout_s() it is killed
// with its group (UsageError naming the limit). SIGINT/SIGTERM meanwhile kill the group, remove the
// temporary files (its own and every TempDir's) and then end divbench with that signal.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd = "");

// The time limit of one helper program (nvdisasm, cuobjdump, python3): DIVBENCH_TOOL_TIMEOUT_S
// seconds, default kDefaultToolTimeoutS (UsageError for a value that is not a positive number).
inline constexpr double kDefaultToolTimeoutS = 600;
double tool_timeout_s();

// True when `path` is a regular file this process may execute (what execv would run).
bool is_executable_file(const std::string& path);

// The first executable file `name` in the folders of $PATH (unset: /usr/local/bin:/usr/bin:/bin, as
// execvp); "" when there is none. An empty entry ("a::b", a leading or trailing ':') is the current
// folder for a program the user names (as the shell and execvp take it: attribute's program) and is
// skipped for the tools divbench runs on its own (nvdisasm, cuobjdump: never one from the current folder).
enum class EmptyPathEntry { current_folder, skipped };
std::string find_on_path(const std::string& name, EmptyPathEntry empty);

// This executable (/proc/self/exe) and its folder; "" when it cannot be read. Where divbench finds what
// it ships beside itself (kernel facts, constants, the injection libraries, a bundled CUPTI) and how it
// runs itself (attribute's calibration, `attribute diff`).
std::string own_executable();
std::string own_executable_dir();

// Where an installed divbench keeps what it ships (`cmake --install`, the .deb: docs/install.md), from the
// folder of its executable (`exe_dir`, <prefix>/bin): its data (the committed constants, its kernel facts:
// <prefix>/share/divbench) and its injection libraries (<prefix>/lib/divbench), as GNUInstallDirs named
// them at configure time. "" when `exe_dir` is "". Looked in after the build tree's own places.
std::string installed_data_dir(const std::string& exe_dir);
std::string installed_lib_dir(const std::string& exe_dir);

// A file name as a helper's argument: "./-name" for a name that starts with '-' (never an option).
std::string file_arg(const std::string& path);

// A temporary directory under $TMPDIR (default /tmp), removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* guard_ = nullptr;  // SIGINT/SIGTERM noted while it exists (run_process); raised after removal
};

}  // namespace divbench
