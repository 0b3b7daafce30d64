// The pair of builds `divbench attribute diff` is shown on (docs/attribute.md "Gate divergence in CI";
// scripts/gpu/55-attribute-diff.sh). One source, three builds (tests/attribute/CMakeLists.txt):
//   divbench_diff_base   as written
//   divbench_diff_new    -DDIVBENCH_DIFF_NEW: the one line under it adds a divergent branch (odd lanes
//                        run a loop of their own)
//   divbench_diff_moved  -DDIVBENCH_DIFF_PAD=8: 8 filler instructions before the kernel's branches, so
//                        every pc moves and nothing else changes (the diff must find no regression)
// usage: divbench_diff_X [ITERS] [LAUNCHES]; checks every element against the host (exit 1 on a mismatch).
// The #if lines are in every build, so a source line means the same line in all three.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef DIVBENCH_DIFF_PAD
#define DIVBENCH_DIFF_PAD 0
#endif

#define CHECK(x)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "divbench_diff: %s: %s\n", #x, cudaGetErrorString(e_));          \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

// The work of one element; the host runs the same to check.
__host__ __device__ inline float work(float v, int i, int iters) {
  if (i % 4 == 0)  // a quarter of the lanes: divergent in every warp (both builds)
    for (int k = 0; k < iters; ++k) v = v * 1.0001f + 0.5f;
#ifdef DIVBENCH_DIFF_NEW
  if (i & 1) for (int k = 0; k < iters; ++k) v = v * 0.9999f + 0.25f;  // the one-line change: a new divergent branch
#endif
  return v;
}

__global__ void diff_kernel(float* x, int n, int iters, unsigned zero) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  unsigned pad = zero;  // zero at run time: the fillers change where the code lands, not what it computes
#pragma unroll
  for (int p = 0; p < DIVBENCH_DIFF_PAD; ++p) asm volatile("mad.lo.u32 %0, %0, %0, 1;" : "+r"(pad));
  if (i < n) x[i] = work(x[i] + __uint_as_float(pad & zero), i, iters);
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 100;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 2;
  const int n = 1 << 16;
  std::vector<float> host(n), want(n);
  for (int i = 0; i < n; ++i) host[i] = want[i] = static_cast<float>(i % 97) * 0.01f;
  float* dev = nullptr;
  CHECK(cudaMalloc(&dev, n * sizeof(float)));
  CHECK(cudaMemcpy(dev, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  for (int l = 0; l < launches; ++l) {
    diff_kernel<<<n / 256, 256>>>(dev, n, iters, 0u);
    CHECK(cudaGetLastError());
    for (int i = 0; i < n; ++i) want[i] = work(want[i], i, iters);
  }
  CHECK(cudaMemcpy(host.data(), dev, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dev));
  for (int i = 0; i < n; ++i)
    if (!(std::fabs(host[i] - want[i]) <= 1e-3f * std::fabs(want[i]) + 1e-3f)) {
      std::fprintf(stderr, "divbench_diff: element %d is %g, expected %g\n", i, host[i], want[i]);
      return 1;
    }
  std::printf("{\"target\": \"diff\", \"new_branch\": %s, \"pad\": %d, \"iters\": %d, \"launches\": %d}\n",
#ifdef DIVBENCH_DIFF_NEW
              "true",
#else
              "false",
#endif
              DIVBENCH_DIFF_PAD, iters, launches);
  return 0;
}
