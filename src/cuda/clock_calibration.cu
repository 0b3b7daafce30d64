// Calibration launch for the effective SM clock (nvbench-style: clock64 against %globaltimer).
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/clock.hpp"
#include "divbench/cuda/device_buffer.hpp"
#include "divbench/cuda/timing.cuh"

namespace divbench {
namespace {

__global__ void sm_clock_probe_kernel(unsigned long long spin_ns, unsigned long long* out) {
  const unsigned long long g0 = dev::globaltimer();
  const long long c0 = clock64();
  unsigned long long g1 = g0;
  // Bounded: the loop ends at spin_ns of global time or after 2^31 polls, whichever is first.
  for (unsigned long long polls = 0; polls < (1ull << 31); ++polls) {
    g1 = dev::globaltimer();
    if (g1 - g0 >= spin_ns) break;
  }
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = g1 - g0;
}

}  // namespace

double measure_sm_clock_mhz(int spin_us) {
  DeviceBuffer<unsigned long long> d(2);  // {cycles, globaltimer ns}
  // One short warm-up launch, then the measured one.
  sm_clock_probe_kernel<<<1, 1>>>(10000ull, d.get());
  check_launch("sm_clock_probe_kernel");
  sm_clock_probe_kernel<<<1, 1>>>(static_cast<unsigned long long>(spin_us) * 1000ull, d.get());
  check_launch("sm_clock_probe_kernel");
  const std::vector<unsigned long long> h = d.download();
  return h[1] ? static_cast<double>(h[0]) / static_cast<double>(h[1]) * 1000.0 : 0.0;
}

}  // namespace divbench
