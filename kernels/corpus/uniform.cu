#include "corpus_common.cuh"

// corpus: warp_uniform -- branch on blockIdx (uniform across the warp)
extern "C" __global__ void uniform_blockidx(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (blockIdx.x & 1) v = corpus_work(in, v, n);
  else v = corpus_work(in, v * 3, n + 1);
  out[blockIdx.x * blockDim.x + t] = v;
}

// corpus: warp_uniform -- branch on a kernel argument
extern "C" __global__ void uniform_arg(int* out, const int* in, int n, int mode) {
  int t = threadIdx.x, v = in[t];
  if (mode == 2) v = corpus_work(in, v, n);
  out[t] = v;
}

// corpus: warp_uniform -- loop whose trip count is a kernel argument, divergent-free body
extern "C" __global__ void uniform_loop(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
  for (int i = 0; i < n; ++i) s += in[(i * 32 + t) & 1023] * i;
  out[t] = s;
}

// corpus: warp_uniform -- switch on a kernel argument
extern "C" __global__ void uniform_switch_arg(int* out, const int* in, int n, int mode) {
  int t = threadIdx.x, v = in[t];
  switch (mode) {
    case 0: v = corpus_work(in, v, n); break;
    case 1: v = corpus_work(in, v, n + 1) * 3; break;
    case 2: v = corpus_work(in, v, n + 2) ^ 5; break;
    default: v = -v; break;
  }
  out[t] = v;
}

// corpus: warp_uniform -- branch on threadIdx.x / 32 (warp index: uniform within a warp, not provably)
extern "C" __global__ void uniform_warp_index(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if ((t >> 5) & 1) v = corpus_work(in, v, n);
  out[t] = v;
}
