// GoogleTest main for GPU suites: exit 77 (CTest skip) with a message when no CUDA device is usable.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    std::printf("SKIP: no CUDA GPU (%s): the GPU tests need one\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
