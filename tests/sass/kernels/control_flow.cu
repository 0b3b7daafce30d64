// Small kernels with one control-flow idea each, compiled to cubins per architecture by the SASS
// tests (never linked into divbench): CFG vs nvdisasm -bbcfg, census per generation.

// Two-way divergent if/else.
__global__ void cf_diamond(int* a, int n) {
  const int t = threadIdx.x;
  if (t & 1) a[t] = t * 3;
  else a[t] = n;
}

// Loop with a data-dependent break, under a uniform trip count (BRA.U on Blackwell).
__global__ void cf_loop_break(int* a, int n) {
  const int t = threadIdx.x;
  for (int i = 0; i < n; i++) {
    if (a[i] == t) break;
    a[i] += t;
  }
}

// A switch large enough for a jump table (BRX) plus an early return.
__global__ void cf_switch(int* a) {
  const int t = threadIdx.x;
  switch (t % 7) {
    case 0: a[1] = 3; break;
    case 1: a[2] = 5; break;
    case 2: a[3] = 7; break;
    case 3: a[9] = 1; break;
    case 4: a[5] = 2; break;
    default: a[0] = 0;
  }
  if (t < 2) return;
  a[t + 1] = 4;
}

// A real call (CALL / RET inside the kernel's section).
__device__ __noinline__ int cf_callee(int x) {
  if (x > 3) return x * 2;
  return x + 1;
}
__global__ void cf_call(int* a) { a[threadIdx.x] = cf_callee(a[threadIdx.x]); }

// Nested divergence with __syncwarp (WARPSYNC) inside.
__global__ void cf_nested(float* a, int n) {
  const int t = threadIdx.x;
  float x = a[t];
  if (t % 4 == 0) {
    for (int i = 0; i < n; ++i) {
      if (x > 1.0f) x = x * 0.5f + a[i];
      else x += 2.0f;
    }
    __syncwarp(0x11111111u);
  } else if (t % 4 == 1) {
    x = sqrtf(x);
  }
  a[t] = x;
}

// A loop with a uniform condition only: no divergent branch.
__global__ void cf_uniform(float* a, int n) {
  float x = a[threadIdx.x];
  for (int i = 0; i < n; ++i) x = x * 1.0001f + 0.5f;
  a[threadIdx.x] = x;
}
