// Error types and the exit codes the divbench executable maps them to.
#pragma once
#include <stdexcept>
#include <string>

namespace divbench {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   // a run failed: CUDA error, output verification, I/O
  kExitUsage = 2,     // bad command line or bad input file
  kExitNoDevice = 3,  // the command needs a CUDA GPU and none was found
  kExitUntrustworthy = 4,  // measured and written, but a point was disturbed or the fit is not physical
};

// A run stopped by SIGINT/SIGTERM exits 128 + the signal (130, 143), writing no result.
inline constexpr int kExitSignalBase = 128;

// Bad user input (arguments, files): one line, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// No usable CUDA device: one line, exit 3.
struct NoDeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A kernel's output did not match its reference: the timing is not to be trusted.
struct VerificationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace divbench
