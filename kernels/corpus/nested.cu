#include "corpus_common.cuh"

// corpus: nested -- two levels of data-dependent if/else
extern "C" __global__ void nested2(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v > 0) {
    if (v & 1) v = corpus_work(in, v, n);
    else v = corpus_work(in, v, n + 1);
  } else {
    v = corpus_work(in, -v, n + 2);
  }
  out[t] = v;
}

// corpus: nested -- three levels, one-sided inner branches
extern "C" __global__ void nested3(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v > 0) {
    v = corpus_work(in, v, n);
    if (v & 2) {
      v += in[v & 127];
      if (v & 8) v = corpus_work(in, v, n + 1);
    }
  }
  out[t] = v;
}

// corpus: nested -- four levels on lane bits (a binary decision tree)
extern "C" __global__ void nested4_lane(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (t & 1) {
    if (t & 2) {
      if (t & 4) {
        if (t & 8) v = corpus_work(in, v, n);
        else v = corpus_work(in, v, n + 1);
      } else {
        v = corpus_work(in, v, n + 2);
      }
    } else {
      v = corpus_work(in, v, n + 3);
    }
  } else {
    v = corpus_work(in, v, n + 4);
  }
  out[t] = v;
}

// corpus: nested -- four levels, each with code after the inner join
extern "C" __global__ void nested4_join(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  if (v > 1) {
    v = corpus_work(in, v, n);
    if (v > 2) {
      v = corpus_work(in, v, n);
      if (v > 3) {
        v = corpus_work(in, v, n);
        if (v > 4) v = corpus_work(in, v, n);
        v ^= in[(v + 1) & 255];
      }
      v ^= in[(v + 2) & 255];
    }
    v ^= in[(v + 3) & 255];
  }
  out[t] = v;
}
