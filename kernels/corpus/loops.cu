#include "corpus_common.cuh"

// corpus: loop_break -- data-dependent trip count, early break on a value
extern "C" __global__ void loop_break(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
  for (int i = 0; i < n; ++i) {
    int v = in[i * 32 + t];
    if (v < 0) break;
    s += v * v;
  }
  out[t] = s;
}

// corpus: loop_break -- break with a divergent if/else inside the loop body
extern "C" __global__ void loop_break_ifelse(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
  for (int i = 0; i < n; ++i) {
    int v = in[i * 32 + t];
    if (v < 0) break;
    if (v & 1) s += corpus_work(in, v, 3);
    else s -= v;
  }
  out[t] = s;
}

// corpus: loop_continue -- continue skipping part of the body
extern "C" __global__ void loop_continue(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
  for (int i = 0; i < n; ++i) {
    int v = in[i * 32 + t];
    if (v & 1) continue;
    s = s * 3 + in[(v + s) & 255];
  }
  out[t] = s;
}

// corpus: loop_return -- return from inside a loop (lanes leave the kernel early)
extern "C" __global__ void loop_return(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
  for (int i = 0; i < n; ++i) {
    int v = in[i * 32 + t];
    if (v == 12345) { out[t] = -1; return; }
    s += v;
  }
  out[t] = s;
}

// corpus: loop_break -- nested loops, break out of the inner loop only
extern "C" __global__ void loop_nested_break(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      int v = in[(i * n + j + t) & 1023];
      if (v > s) break;
      s += v;
    }
    s ^= i;
  }
  out[t] = s;
}

// corpus: loop_divergent_trip -- per-lane trip count (lanes leave the loop at different times)
extern "C" __global__ void loop_lane_trip(int* out, const int* in, int n) {
  int t = threadIdx.x, s = 0;
  for (int i = 0; i < (t & 31) + n; ++i) s = s * 5 + in[(s + i) & 255];
  out[t] = s;
}

// corpus: loop_while -- while loop with a data-dependent exit condition (search)
extern "C" __global__ void loop_while_search(int* out, const int* in, int n) {
  int t = threadIdx.x, i = t;
  while (in[i & 1023] != n && i < t + 1000) i += 7;
  out[t] = i;
}
