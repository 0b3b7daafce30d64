#include "corpus_common.cuh"

// corpus: unrolled_divergent -- fully unrolled loop with a divergent body per iteration
extern "C" __global__ void unrolled_divergent4(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    int v = in[i * 32 + t];
    if (v > n) s += corpus_work(in, v, 3);
    else s ^= v;
  }
  out[t] = s;
}

// corpus: unrolled_divergent -- unrolled by 8 with a one-sided divergent store
extern "C" __global__ void unrolled_divergent8(int* out, const int* in, int n) {
  int t = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    int v = in[i * 32 + t];
    if (v & (1 << i)) out[i * 32 + t] = corpus_work(in, v, n);
  }
}

// corpus: divergent_atomics -- atomicAdd inside a data-dependent branch
extern "C" __global__ void atomic_in_branch(int* out, int* counters, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v > n) atomicAdd(&counters[v & 15], corpus_work(in, v, 2));
  out[t] = v;
}

// corpus: divergent_atomics -- CAS retry loop (lanes leave the loop at different times)
extern "C" __global__ void atomic_cas_loop(int* out, int* cell, const int* in) {
  int t = threadIdx.x, v = in[t];
  int old = *cell, assumed;
  do {
    assumed = old;
    old = atomicCAS(cell, assumed, assumed > v ? assumed : v);
  } while (old != assumed);
  out[t] = old;
}

// corpus: divergent_atomics -- aggregated atomic: the first active lane adds for the lanes of a branch
extern "C" __global__ void atomic_leader(int* out, int* counters, const int* in) {
  int t = threadIdx.x, key = in[t] & 7, leader = -1;
  if (key & 1) {
    unsigned active = __activemask();
    leader = __ffs(active) - 1;
    if ((t & 31) == leader) atomicAdd(&counters[key], __popc(active));
  }
  out[t] = leader;
}
