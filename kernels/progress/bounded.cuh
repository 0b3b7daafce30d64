// Shared pieces of the forward-progress probes: volatile flag access and the bounded wait.
#pragma once
#include <cstdint>
#include <cstring>
#ifndef __CUDACC_RTC__
#include <vector>

#include "divbench/cuda/check.hpp"
#endif
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
// Device memory for one probe launch: `words` zeroed 32-bit words plus `records` bytes of per-lane
// records (poisoned with 0xff so a lane that writes nothing is caught), freed on scope exit.
struct ProbeMemory {
  std::uint32_t* words = nullptr;
  void* records = nullptr;
  RegionSample* sample = nullptr;
  std::size_t record_bytes = 0;
  ProbeMemory(std::size_t nwords, std::size_t record_bytes_) : record_bytes(record_bytes_) {
    DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&words), nwords * sizeof(std::uint32_t)));
    DIVBENCH_CUDA_CHECK(cudaMemset(words, 0, nwords * sizeof(std::uint32_t)));
    DIVBENCH_CUDA_CHECK(cudaMalloc(&records, record_bytes));
    DIVBENCH_CUDA_CHECK(cudaMemset(records, 0xff, record_bytes));
    DIVBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&sample), sizeof(RegionSample)));
    DIVBENCH_CUDA_CHECK(cudaMemset(sample, 0xff, sizeof(RegionSample)));
  }
  ~ProbeMemory() {
    cudaFree(words);
    cudaFree(records);
    cudaFree(sample);
  }
  ProbeMemory(const ProbeMemory&) = delete;
  ProbeMemory& operator=(const ProbeMemory&) = delete;

  // Synchronize, then copy everything back.
  template <class Lane>
  void read_back(std::vector<Lane>& lanes, std::vector<std::uint32_t>& w, RegionSample& region) const {
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    lanes.resize(record_bytes / sizeof(Lane));
    DIVBENCH_CUDA_CHECK(cudaMemcpy(lanes.data(), records, lanes.size() * sizeof(Lane), cudaMemcpyDeviceToHost));
    DIVBENCH_CUDA_CHECK(cudaMemcpy(w.data(), words, w.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    DIVBENCH_CUDA_CHECK(cudaMemcpy(&region, sample, sizeof region, cudaMemcpyDeviceToHost));
  }
};
#endif

}  // namespace divbench::progress
