#include "corpus_common.cuh"

// corpus: if_else -- two-sided branch on the lane's data
extern "C" __global__ void if_else_data(int* out, const int* in, int n) {
  int t = threadIdx.x;
  int v = in[t];
  if (v > 0) v = corpus_work(in, v, n);
  else v = corpus_work(in, -v, n + 1) ^ 7;
  out[t] = v;
}

// corpus: if_else -- two-sided branch on the lane index (odd/even lanes)
extern "C" __global__ void if_else_lane(int* out, const int* in, int n) {
  int t = threadIdx.x;
  int v;
  if (t & 1) v = corpus_work(in, t, n);
  else v = in[t] * 3 + in[t + 1];
  out[t] = v;
}

// corpus: if_no_else -- one-sided branch, store inside
extern "C" __global__ void if_only_store(int* out, const int* in, int n) {
  int t = threadIdx.x;
  if (in[t] > n) out[t] = corpus_work(in, t, n);
}

// corpus: if_no_else -- one-sided branch, value used after the join
extern "C" __global__ void if_only_join(int* out, const int* in, int n) {
  int t = threadIdx.x;
  int v = in[t];
  if (v & 4) v = corpus_work(in, v, n);
  out[t] = v + t;
}

// corpus: if_else -- else-if ladder of three data-dependent cases
extern "C" __global__ void if_else_ladder(int* out, const int* in, int n) {
  int t = threadIdx.x;
  int v = in[t];
  if (v < 0) v = corpus_work(in, v, n);
  else if (v < 100) v = corpus_work(in, v, n + 2) * 5;
  else v = corpus_work(in, v, n + 3) - 9;
  out[t] = v;
}
