// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"): divbench must start (and its
// CPU commands and tests must run) on machines with no NVIDIA driver, where linking libcuda would
// stop the executable from loading. Only cuda.h's types are used at build time. The versioned symbol
// names (cuMemAlloc_v2, ...) come from cuda.h's own #defines, so the ABI matches the header.
#pragma once
#include <cuda.h>

#include <string>

namespace divbench::cubin {

struct DriverApi {
#define DIVBENCH_CU_FN(fn) decltype(&::fn) fn = nullptr;
#include "driver_api_functions.inc"
#undef DIVBENCH_CU_FN

  // Loads libcuda.so.1 and every function; throws NoDeviceError with one line when the driver is
  // missing (e.g. "libcuda.so.1 not found: no NVIDIA driver on this machine").
  static const DriverApi& get();

  // "CUDA_ERROR_ILLEGAL_INSTRUCTION: an illegal instruction was encountered".
  std::string describe(CUresult r) const;
};

}  // namespace divbench::cubin
