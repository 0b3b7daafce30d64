// Running an external tool and a scratch directory: what the static pipeline (nvdisasm, cuobjdump)
// and the cubin tools share, host-only.
#pragma once
#include <string>
#include <vector>

namespace divbench {

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
