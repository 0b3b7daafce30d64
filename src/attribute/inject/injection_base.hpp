// What the two CUPTI injection libraries share (libdivbench_inject.so: exact counts through the SASS
// metrics API; libdivbench_pcsample.so: PC sampling): the process that loaded the library and the folder it
// writes into, the debug switch, the error lines, the driver entries that launch a kernel, and writing a
// file whole. Each library keeps its own state and callbacks; this is the part both need the same way.
#pragma once

#include <cuda.h>
#include <cupti.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace divbench::inject {

// The process that loaded the library and the folder it writes into ($DIVBENCH_ATTRIBUTE_DIR). A child it
// forks inherits the state but never collects or writes: CUDA is unusable after fork, and its files would
// be wrong.
struct Process {
  std::string dir;
  pid_t owner = 0;
  bool owns() const;  // the caller is the process that loaded the library
  // Reads $DIVBENCH_ATTRIBUTE_DIR and records this process as the owner; unset or empty: says so on stderr,
  // naming `library`, and returns false (the library then does nothing).
  bool start(const char* library);
};

// DIVBENCH_ATTRIBUTE_DEBUG=1: each step on stderr, "divbench <tag>: <ms since load> ms: <text>".
bool debug_on();
void debugf(const char* tag, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// CUPTI's text for a result ("CUPTI error N" when it has none).
std::string cupti_text(CUptiResult r);

// The error lines of a run: each once, a repeat counted and written "<line> (N times)"; a new line is
// printed on stderr with `prefix` unless the caller says it is explained already.
class ErrorLog {
 public:
  explicit ErrorLog(std::string prefix) : prefix_(std::move(prefix)) {}
  void add(const std::string& line, bool print = true);
  void add_cupti(const std::string& what, CUptiResult r, bool print = true) { add(what + ": " + cupti_text(r), print); }
  void add_first(const std::string& line);  // the cause of the lines after it (not printed: divbench says it)
  bool empty() const { return lines_.empty(); }
  const std::string& first() const { return lines_.front().first; }
  std::vector<std::string> lines() const;  // in order, repeats counted
  // errors-<pid>.txt in `dir`, a line each, when there are any.
  void write(const std::string& dir) const;

 private:
  std::string prefix_;
  std::vector<std::pair<std::string, std::uint64_t>> lines_;
};

// The driver entries that launch a kernel (the runtime's launches go through these), graphs' included.
const std::vector<CUpti_CallbackId>& launch_callbacks();
bool is_launch(CUpti_CallbackId id);
bool is_graph_launch(CUpti_CallbackId id);
// Subscribes the driver-API callbacks of launch_callbacks(); a failure is an error line.
void enable_launch_callbacks(CUpti_SubscriberHandle subscriber, ErrorLog& errors);

// What a launch entry's parameters say (cuLaunchKernel, cuLaunchKernelEx and their _ptsz forms; the other
// entries: ok false): the function, its stream, grid, block and dynamic shared memory.
struct LaunchParams {
  bool ok = false;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  std::uint64_t blocks = 0;
  unsigned block_threads = 0;
  unsigned shared_bytes = 0;
};
LaunchParams launch_params(CUpti_CallbackId id, const void* function_params);

// Writes `text` to `path` whole or not at all (a temporary file beside it, then a rename).
bool write_whole(const std::string& path, const std::string& text);

}  // namespace divbench::inject

// A CUPTI call in a function returning bool: on failure, `note_error(s, "<the call>", result)` (the library's
// own, found where the macro is used) and return false.
#define DIVBENCH_CUPTI_TRY(s, call)  \
  do {                               \
    const CUptiResult r_ = (call);   \
    if (r_ != CUPTI_SUCCESS) {       \
      note_error(s, #call, r_);      \
      return false;                  \
    }                                \
  } while (0)
