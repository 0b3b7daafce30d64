#include "corpus_common.cuh"

// corpus: irreducible -- goto into the middle of a loop (two entries into one cycle)
extern "C" __global__ void goto_irreducible(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t], i = 0;
  if (v & 1) goto inside;
top:
  v = v * 3 + in[(v + i) & 255];
inside:
  v ^= in[(v >> 3) & 255];
  if (++i < n && (v & 6)) goto top;
  out[t] = v;
}

// corpus: irreducible -- goto-based state machine with two mutually reachable states
extern "C" __global__ void goto_state_machine(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t], steps = 0;
  if (v < 0) goto state_b;
state_a:
  v = v * 5 + 1;
  if (++steps > n) goto done;
  if (in[v & 255] & 1) goto state_b;
  goto state_a;
state_b:
  v = v ^ in[(v >> 2) & 255];
  if (++steps > n) goto done;
  if (v & 2) goto state_a;
  goto state_b;
done:
  out[t] = v;
}

// corpus: early_exit -- lanes past the bound return immediately (the common guard)
extern "C" __global__ void early_exit_bound(int* out, const int* in, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  out[t] = corpus_work(in, in[t], 4);
}

// corpus: early_exit -- data-dependent return in the middle, work after it
extern "C" __global__ void early_exit_mid(int* out, const int* in, int n) {
  int t = threadIdx.x, v = corpus_work(in, in[t], n);
  if (v & 1) return;
  v = corpus_work(in, v, n);
  out[t] = v;
}

// corpus: early_exit -- return, then a later __syncwarp that the returned lanes never reach
extern "C" __global__ void early_exit_syncwarp(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v < 0) return;
  v = corpus_work(in, v, n);
  __syncwarp(__activemask());
  out[t] = v;
}
