#include "divbench/cuda/occupancy.hpp"

#include <algorithm>
#include <stdexcept>

#include "divbench/cuda/check.hpp"

namespace divbench {

int device_attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
  return v;
}

std::size_t smem_to_pin_blocks_per_sm(int device, int n) {
  if (n < 1) throw std::invalid_argument("smem_to_pin_blocks_per_sm: n must be >= 1");
  const int smem_sm = device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  const int reserved = device_attribute(cudaDevAttrReservedSharedMemoryPerBlock, device);
  return static_cast<std::size_t>(std::max(0, std::min(optin, smem_sm / n - reserved)));
}

}  // namespace divbench
