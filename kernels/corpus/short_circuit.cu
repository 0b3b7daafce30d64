#include "corpus_common.cuh"

// corpus: short_circuit -- && chain of loads (each operand guards the next load)
extern "C" __global__ void sc_and_chain(int* out, const int* in, const int* const* ptrs, int n) {
  int t = threadIdx.x, v = 0;
  const int* p = ptrs[t];
  if (p != nullptr && p[0] > n && in[p[0] & 255] != 0) v = corpus_work(in, p[1], n);
  out[t] = v;
}

// corpus: short_circuit -- || chain with calls to work in the operands
extern "C" __global__ void sc_or_chain(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v == 0 || corpus_work(in, v, n) > 100 || in[(v * 3) & 255] < 0) v = corpus_work(in, v, n + 1);
  out[t] = v;
}

// corpus: short_circuit -- mixed && / || condition
extern "C" __global__ void sc_mixed(int* out, const int* in, int n) {
  int t = threadIdx.x, a = in[t], b = in[t + 32], v = 0;
  if ((a > 0 && b > 0) || (a < -n && in[(b & 255)] == 3)) v = corpus_work(in, a + b, n);
  out[t] = v;
}

// corpus: ternary -- ternary selecting between two cheap values (predication candidate)
extern "C" __global__ void ternary_cheap(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  out[t] = v > n ? v * 3 : v - 1;
}

// corpus: ternary -- ternary selecting between two expensive calls
extern "C" __global__ void ternary_expensive(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  out[t] = (v & 1) ? corpus_work(in, v, n) : corpus_work(in, v * 7, n + 5);
}

// corpus: ternary -- nested ternaries (clamp with a side load)
extern "C" __global__ void ternary_nested(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  out[t] = v < 0 ? (v < -n ? in[(-v) & 255] : 0) : (v > n ? corpus_work(in, v, n) : v);
}
