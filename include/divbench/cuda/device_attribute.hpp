// One device attribute through the CUDA runtime: the single helper for cudaDeviceGetAttribute
// (device_info.cpp's DeviceRecord and the experiments that need a limit, e.g. shared memory per SM).
#pragma once
#include <cuda_runtime_api.h>

namespace divbench {

// The value of `attribute` for `device`; throws (DIVBENCH_CUDA_CHECK) when the runtime refuses.
int device_attribute(cudaDeviceAttr attribute, int device);

}  // namespace divbench
