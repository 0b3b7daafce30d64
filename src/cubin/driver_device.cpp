// The architecture of a GPU through the dlopen'ed driver API (cubin/driver_device.hpp).
#include "divbench/cubin/driver_device.hpp"

#include <exception>

#include "driver_api.hpp"

namespace divbench::cubin {

int driver_device_sm(int device) {
  try {
    const DriverApi& cu = DriverApi::get();
    CUdevice dev = 0;
    int major = 0, minor = 0;
    if (cu.cuInit(0) != CUDA_SUCCESS || cu.cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
        cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
      return 0;
    return major * 10 + minor;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace divbench::cubin
