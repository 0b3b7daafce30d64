// Effective SM clock, measured in a kernel: clock64() cycles over %globaltimer nanoseconds.
#pragma once

namespace divbench {

// Runs one calibration launch of about `spin_us` microseconds on the current device (a bounded
// clock64 spin) and returns cycles / ns * 1000 (MHz).
double measure_sm_clock_mhz(int spin_us = 2000);

}  // namespace divbench
