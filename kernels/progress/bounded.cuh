// Shared pieces of the forward-progress probes: volatile flag access and the bounded wait.
#pragma once
#include <cstdint>
#include <cstring>
#include <utility>
#ifndef __CUDACC_RTC__
#include <vector>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"
#endif
#include "divbench/core/warp.hpp"
#include "divbench/cuda/timing.cuh"

namespace divbench::progress {

__device__ __forceinline__ std::uint32_t ld_volatile(const std::uint32_t* p) {
  return *static_cast<const volatile std::uint32_t*>(p);
}
__device__ __forceinline__ void st_volatile(std::uint32_t* p, std::uint32_t v) {
  *static_cast<volatile std::uint32_t*>(p) = v;
}

// The cap every spin loop obeys: a spin count per wait and one deadline per launch.
struct Cap {
  std::uint32_t max_spins;
  std::uint64_t deadline_ns;  // %globaltimer value after which every wait gives up
  __device__ __forceinline__ bool reached(std::uint32_t spins) const {
    return spins >= max_spins || dev::globaltimer() > deadline_ns;
  }
};

#ifndef __CUDACC_RTC__  // host only (NVRTC, tests/sass/nvrtc/, compiles the device code)
// Device memory of one probe launch: `nwords` zeroed 32-bit words, one poisoned record per lane (a
// lane that writes nothing is caught) and the poisoned region sample.
template <class Lane>
struct ProbeBuffers {
  DeviceBuffer<std::uint32_t> words;
  DeviceBuffer<Lane> lanes{kWarpLanes, 0xff};
  DeviceBuffer<RegionSample> sample{1, 0xff};
  explicit ProbeBuffers(std::size_t nwords) : words(nwords, 0) {}

  // After the launch of `kernel`: check it, synchronize (surfacing its errors), then copy everything
  // back: the lanes and the region sample into a Run, and the words.
  template <class Run>
  std::pair<Run, std::vector<std::uint32_t>> read_back(const char* kernel) const {
    check_launch(kernel);
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    Run run;
    run.lanes = lanes.download();
    run.region = sample.download().at(0);
    return {run, words.download()};
  }
};

#endif  // __CUDACC_RTC__

}  // namespace divbench::progress
