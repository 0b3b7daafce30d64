#include "corpus_common.cuh"

// corpus: partial_mask_shfl -- __shfl_sync under a data-dependent mask (lanes with a positive value)
extern "C" __global__ void shfl_partial_mask(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  unsigned mask = __ballot_sync(0xffffffffu, v > 0);
  if (v > 0) {
    int leader = __ffs(mask) - 1;
    v += __shfl_sync(mask, v, leader);
  }
  out[t] = v;
}

// corpus: partial_mask_syncwarp -- __syncwarp(mask) inside a divergent branch
extern "C" __global__ void syncwarp_partial(int* out, int* scratch, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  unsigned mask = __ballot_sync(0xffffffffu, v & 1);
  if (v & 1) {
    scratch[t] = corpus_work(in, v, n);
    __syncwarp(mask);
    v = scratch[(t + 1) & 31];
  }
  out[t] = v;
}

// corpus: partial_mask_shfl -- segmented shuffle: mask = lanes of my 8-lane group, in a branch
extern "C" __global__ void shfl_group_mask(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (t & 8) {
    unsigned mask = 0xffu << (t & 24);
    for (int d = 1; d < 8; d <<= 1) v += __shfl_xor_sync(mask, v, d, 8);
  }
  out[t] = v;
}

// corpus: full_mask_syncwarp -- full-warp __syncwarp after a divergent branch
extern "C" __global__ void syncwarp_full_after_branch(int* out, int* scratch, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v > n) v = corpus_work(in, v, n);
  scratch[t] = v;
  __syncwarp();
  out[t] = scratch[31 - t];
}

// corpus: ballot_any -- __ballot_sync result steering a warp-uniform branch
extern "C" __global__ void ballot_uniform_branch(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  unsigned b = __ballot_sync(0xffffffffu, v > n);
  if (b != 0) v = corpus_work(in, v + __popc(b), n);
  out[t] = v;
}

// corpus: ballot_any -- __any_sync / __all_sync early-out of a loop
extern "C" __global__ void any_loop_exit(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t], i = 0;
  while (__any_sync(0xffffffffu, v > 0) && i < n) {
    if (v > 0) v = v / 2 - in[(v + i) & 255];
    ++i;
  }
  out[t] = v + (__all_sync(0xffffffffu, v <= 0) ? 1 : 0);
}

// corpus: ballot_any -- ballot inside a divergent branch with the active mask
extern "C" __global__ void ballot_in_branch(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v & 2) {
    unsigned m = __activemask();
    unsigned b = __ballot_sync(m, v > n);
    v = __popc(b) + corpus_work(in, v, n);
  }
  out[t] = v;
}
