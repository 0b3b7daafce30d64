// A generated program of many distinct kernels, for the overhead of `divbench attribute` on every
// kernel of one run (docs/attribute.md): kernel<I> for I = 0..kKernels-1, each launched once on a small
// grid, each with a divergent loop whose trip count depends on the lane and I. Its output is checked
// against a host reference (exit 1 on a mismatch). The launch modes are what CUPTI 13.4's one-run
// instrumentation must see alike (docs/attribute.md): plain launches, one CUDA graph of every launch, and
// launches from four host threads.
//   divbench_attribute_many [KERNELS] [plain|graph|threads] [ROUNDS] [WORK]
//     KERNELS: default and maximum 128; ROUNDS (plain only): every kernel launched that many times, round
//     by round (default 1); WORK: each lane's trips multiplied by it (default 1; 2000 makes a kernel about
//     0.1 ms on the H200: the compute-heavy program of attribute's launch sampling). With WORK > 1 the host
//     checks every 257th thread (the loop is 37 x WORK trips long).
#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"

namespace {

constexpr int kKernels = 128;
constexpr int kThreads = 256, kBlocks = 64;

template <int I>
__global__ void many_kernel(unsigned* out, int work) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = I;
  const int trips = (t * (I + 3)) % 37 * work;  // lanes of a warp leave the loop at different trips
  for (int j = 0; j < trips; ++j) acc = acc * 3 + j + I;
  out[t] = acc;
}

unsigned host(int I, int t, int work) {
  unsigned acc = I;
  const int trips = (t * (I + 3)) % 37 * work;
  for (int j = 0; j < trips; ++j) acc = acc * 3 + j + I;  // wraps as the device's int does
  return acc;
}

using Launch = void (*)(unsigned*, cudaStream_t, int);
template <int... I>
constexpr std::array<Launch, sizeof...(I)> table(std::integer_sequence<int, I...>) {
  return {[](unsigned* o, cudaStream_t s, int w) { many_kernel<I><<<kBlocks, kThreads, 0, s>>>(o, w); }...};
}

}  // namespace

int main(int argc, char** argv) {
  int n = kKernels;
  if (argc > 1) n = std::atoi(argv[1]);
  const std::string mode = argc > 2 ? argv[2] : "plain";
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 1, work = argc > 4 ? std::atoi(argv[4]) : 1;
  if (n < 1 || n > kKernels || (mode != "plain" && mode != "graph" && mode != "threads") || rounds < 1 ||
      rounds > 1000 || (rounds > 1 && mode != "plain") || work < 1 || work > 100000 || argc > 5) {
    std::fprintf(stderr, "usage: divbench_attribute_many [KERNELS 1..%d] [plain|graph|threads] [ROUNDS 1..1000, plain] "
                         "[WORK 1..100000]\n", kKernels);
    return 2;
  }
  static const auto launches = table(std::make_integer_sequence<int, kKernels>{});
  const std::size_t per = static_cast<std::size_t>(kBlocks) * kThreads;
  divbench::DeviceBuffer<unsigned> out(per * n, 0);  // each kernel its own slice
  if (mode == "plain") {
    for (int r = 0; r < rounds; ++r)
      for (int i = 0; i < n; ++i) {
        launches[i](out.get() + per * i, nullptr, work);
        DIVBENCH_CUDA_CHECK(cudaGetLastError());
      }
  } else if (mode == "graph") {
    cudaStream_t s;
    DIVBENCH_CUDA_CHECK(cudaStreamCreate(&s));
    cudaGraph_t g;
    cudaGraphExec_t e;
    DIVBENCH_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < n; ++i) launches[i](out.get() + per * i, s, work);
    DIVBENCH_CUDA_CHECK(cudaStreamEndCapture(s, &g));
    DIVBENCH_CUDA_CHECK(cudaGraphInstantiate(&e, g, 0));
    DIVBENCH_CUDA_CHECK(cudaGraphLaunch(e, s));
    DIVBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
    DIVBENCH_CUDA_CHECK(cudaGraphExecDestroy(e));
    DIVBENCH_CUDA_CHECK(cudaGraphDestroy(g));
    DIVBENCH_CUDA_CHECK(cudaStreamDestroy(s));
  } else {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        cudaStream_t s;
        DIVBENCH_CUDA_CHECK(cudaStreamCreate(&s));
        for (int i = t; i < n; i += 4) launches[i](out.get() + per * i, s, work);
        DIVBENCH_CUDA_CHECK(cudaGetLastError());
        DIVBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
        DIVBENCH_CUDA_CHECK(cudaStreamDestroy(s));
      });
    for (auto& th : threads) th.join();
  }
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned> h = out.download();
  int bad = 0;
  for (int i = 0; i < n; ++i)
    for (std::size_t t = 0; t < per; t += work > 1 ? 257 : 1)
      if (h[per * i + t] != host(i, static_cast<int>(t), work)) {
        if (!bad++)
          std::fprintf(stderr, "many_kernel<%d>: thread %zu wrote %u, expected %u\n", i, t, h[per * i + t],
                       host(i, static_cast<int>(t), work));
        break;
      }
  std::printf("{\"target\": \"many\", \"kernels\": %d, \"mode\": \"%s\", \"rounds\": %d, \"work\": %d, \"ok\": %s}\n", n,
              mode.c_str(), rounds, work, bad ? "false" : "true");
  return bad ? 1 : 0;
}
