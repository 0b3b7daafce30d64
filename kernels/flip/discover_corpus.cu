// Small kernels for encoding-field discovery (`divbench flip --discover`): control-flow shapes that
// make ptxas emit each modifier of interest, so a cubin compiled in CI carries instruction pairs that
// differ by one modifier. On sm_100/sm_120: BSSY/BSYNC with no class, .RECONVERGENT and .RELIABLE
// (a loop left by `break` inside a divergent region), BREAK.RELIABLE, and BRA vs BRA.U (uniform
// branches). Never launched; compiled to standalone cubins by kernels/flip/CMakeLists.txt.

// A search loop with an early exit nested in a divergent branch: the loop's barrier can be broken
// out of (.RELIABLE on Blackwell), the outer merge cannot (.RECONVERGENT).
extern "C" __global__ void search_break(const int* __restrict__ in, int* __restrict__ out, int n) {
  const int tid = threadIdx.x;
  int found = -1;
  for (int i = 0; i < n; ++i) {
    const int x = in[(tid * 7 + i) % n];
    if (x == tid) {
      found = i;
      break;
    }
    if (x < 0) {
      for (int j = 0; j < x + 100; ++j) {
        if (in[j] == 3) {
          found = -j;
          goto done;
        }
      }
    }
  }
done:
  found += __shfl_xor_sync(0xffffffffu, found, 1);
  out[tid] = found;
}

// The same idea with two nested breakable loops: more .RELIABLE barriers on other barrier
// registers and at other offsets (operand bits vary inside each group).
extern "C" __global__ void nested_break(const int* __restrict__ in, int* __restrict__ out, int n, int m) {
  const int tid = threadIdx.x;
  int acc = 0;
  if (in[tid] & 1) {
    for (int i = 0; i < n; ++i) {
      int v = in[(tid + i) % n];
      for (int j = 0; j < m; ++j) {
        if (v == j) break;
        v = v * 3 + 1;
        acc += v;
      }
      if (acc > 1000000) break;
    }
  } else {
    for (int i = 0; i < m; ++i) {
      acc -= in[(tid * 3 + i) % n];
      if (acc < -1000000) break;
    }
  }
  acc += __shfl_down_sync(0xffffffffu, acc, 2);
  out[tid] = acc;
}

// Uniform conditions (kernel arguments): BRA.U on Blackwell next to plain BRA on divergent ones.
extern "C" __global__ void uniform_branch(const int* __restrict__ in, int* __restrict__ out, int n, int k) {
  const int tid = threadIdx.x;
  int v = in[tid];
  if (k > 3) {
    for (int i = 0; i < n; ++i) v = v * 3 + in[i];
  } else {
    v += __shfl_xor_sync(0xffffffffu, v, 2);
  }
  if (v & 1) v += in[(tid + 5) % n] * 7;
  out[tid] = v;
}
