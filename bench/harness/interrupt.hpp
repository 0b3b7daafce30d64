// SIGINT/SIGTERM during a dynamic run: the handler only records the signal (and restores the default
// action, so a second one ends the process at once); the runner stops starting points, waits for the
// GPU to go idle, writes no result (reserved output files are removed) and exits 128 + the signal.
#pragma once

namespace divbench {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers
  ~InterruptGuard();  // restores the previous ones
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The signal received since the guard was installed (SIGINT, SIGTERM), 0 if none.
int interrupted_signal();

}  // namespace divbench
