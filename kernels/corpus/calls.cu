#include "corpus_common.cuh"

__device__ __noinline__ int corpus_callee(const int* in, int x, int n) {
  if (x & 1) return corpus_work(in, x, n);
  return x * 3 + in[x & 255];
}

__device__ __noinline__ int corpus_fib(int x) { return x < 2 ? x : corpus_fib(x - 1) + corpus_fib(x - 2); }

__device__ __noinline__ int corpus_walk(const int* in, int x, int depth) {
  if (depth == 0 || in[x & 255] < 0) return x;
  return corpus_walk(in, x * 5 + in[x & 255], depth - 1) + 1;
}

// corpus: noinline_call -- unconditional call to a __noinline__ function that branches inside
extern "C" __global__ void call_uncond(int* out, const int* in, int n) {
  int t = threadIdx.x;
  out[t] = corpus_callee(in, in[t], n);
}

// corpus: noinline_call -- call under a divergent branch
extern "C" __global__ void call_in_branch(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v > n) v = corpus_callee(in, v, n);
  out[t] = v;
}

// corpus: noinline_call -- different callees on the two sides of a branch
extern "C" __global__ void call_two_sides(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (t & 1) v = corpus_callee(in, v, n);
  else v = corpus_walk(in, v, 3);
  out[t] = v;
}

// corpus: recursion -- data-dependent recursion depth (fibonacci of a loaded value)
extern "C" __global__ void recursion_fib(int* out, const int* in) {
  int t = threadIdx.x;
  out[t] = corpus_fib(in[t] & 15);
}

// corpus: recursion -- recursion with a data-dependent early stop
extern "C" __global__ void recursion_walk(int* out, const int* in, int n) {
  int t = threadIdx.x;
  out[t] = corpus_walk(in, in[t], n);
}
