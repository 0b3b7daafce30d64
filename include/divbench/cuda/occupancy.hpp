// Device attributes and residency control: how much dynamic shared memory a block must reserve so
// that exactly n blocks fit on one SM (the warp-per-SM sampling and the occupancy sweep pin
// residency this way; the kernels never touch that memory).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace divbench {

// One device attribute (checked).
int device_attribute(cudaDeviceAttr a, int device);

// Dynamic shared memory per block that leaves room for exactly n blocks per SM (n >= 1): the SM's
// shared memory split n ways, less the per-block reservation, capped at the opt-in maximum. The
// caller confirms with the occupancy API for its kernel and shape.
std::size_t smem_to_pin_blocks_per_sm(int device, int n);

}  // namespace divbench
