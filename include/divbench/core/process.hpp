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
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd = "");

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
};

}  // namespace divbench
