#include "corpus_common.cuh"

// corpus: switch_dense -- dense switch on data (8 consecutive cases, jump-table candidate)
extern "C" __global__ void switch_dense8(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  switch (v & 7) {
    case 0: v = corpus_work(in, v, n); break;
    case 1: v = corpus_work(in, v, n + 1) * 3; break;
    case 2: v = corpus_work(in, v, n + 2) ^ 5; break;
    case 3: v = corpus_work(in, v, n + 3) - 7; break;
    case 4: v = corpus_work(in, v, n + 4) + 11; break;
    case 5: v = corpus_work(in, v, n + 5) * 13; break;
    case 6: v = corpus_work(in, v, n + 6) | 17; break;
    default: v = corpus_work(in, v, n + 7) & 19; break;
  }
  out[t] = v;
}

// corpus: switch_dense -- dense switch on lane % 4 with fall-through
extern "C" __global__ void switch_dense_fallthrough(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  switch (t & 3) {
    case 0: v = corpus_work(in, v, n);  // fall through
    case 1: v = corpus_work(in, v, n + 1); break;
    case 2: v = corpus_work(in, v, n + 2);  // fall through
    case 3: v = v * 7 + in[v & 63]; break;
  }
  out[t] = v;
}

// corpus: switch_sparse -- sparse switch (compare chain candidate)
extern "C" __global__ void switch_sparse(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t];
  switch (v) {
    case 3: v = corpus_work(in, v, n); break;
    case 100: v = corpus_work(in, v, n + 1); break;
    case 7000: v = corpus_work(in, v, n + 2); break;
    case -41: v = corpus_work(in, v, n + 3); break;
    default: v = v + 1; break;
  }
  out[t] = v;
}

// corpus: switch_dense -- large dense switch (16 cases) on data
extern "C" __global__ void switch_dense16(int* out, const int* in, int n) {
  int t = threadIdx.x, v = in[t], r;
  switch (v & 15) {
    case 0: r = in[v & 255] + 1; break;
    case 1: r = in[(v + 3) & 255] * 2; break;
    case 2: r = corpus_work(in, v, n); break;
    case 3: r = in[(v + 5) & 255] ^ 3; break;
    case 4: r = corpus_work(in, v, n + 1); break;
    case 5: r = in[(v + 7) & 255] - 4; break;
    case 6: r = corpus_work(in, v, n + 2); break;
    case 7: r = in[(v + 9) & 255] | 5; break;
    case 8: r = corpus_work(in, v, n + 3); break;
    case 9: r = in[(v + 11) & 255] & 6; break;
    case 10: r = corpus_work(in, v, n + 4); break;
    case 11: r = in[(v + 13) & 255] + 7; break;
    case 12: r = corpus_work(in, v, n + 5); break;
    case 13: r = in[(v + 15) & 255] * 8; break;
    case 14: r = corpus_work(in, v, n + 6); break;
    default: r = -v; break;
  }
  out[t] = r;
}
