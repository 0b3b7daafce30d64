// The bit-flip test kernel (docs/bitflip.md), compiled to standalone cubins (one per architecture) that the
// driver-API runner loads with cuModuleLoadData, original and patched. Not linked into divbench.
//
// One launch = one block of `blockDim.x` threads (a multiple of 32). Per thread:
//   * a data-dependent divergent region (odd/even lanes run different loops whose trip counts depend
//     on the input), closed by a reconvergence point (BSSY/BSYNC in SASS);
//   * after it, a convergence-sensitive partner exchange: the lanes active at that point
//     (__activemask), a warp shuffle with lane^1, and a shared-memory exchange with lane^1 that relies
//     on the warp having reconverged (no __syncwarp between write and read);
//   * a bounded intra-warp wait (forward progress): even lanes wait for their odd partner's flag,
//     which the partner sets inside its own divergent branch; at most `spin_cap` polls, so a patched
//     kernel whose warp never reconverges still terminates and reports how many polls it needed.
//   * the output store out[tid] — the store a positive control disables — and per-warp clock64
//     cycles around the whole region.
// Outputs: out[n] (value), exch[n] (activemask, shuffle, shared exchange, polls; 4 ints per thread),
// cycles[n/32] (one long long per warp).
extern "C" __global__ void flip_test(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ exch,
                                     long long* __restrict__ cycles, int spin_cap) {
  // Unsigned arithmetic: wrap-around is defined, so the host model (src/cubin/runner.cpp) is exact.
  __shared__ volatile unsigned slot[1024];
  __shared__ volatile int flag[1024];
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  flag[tid] = 0;
  __syncthreads();
  const long long t0 = clock64();

  unsigned v = static_cast<unsigned>(in[tid]);
  int polls = 0;
  if (lane & 1) {
    // Odd lanes: a Collatz-like loop, trip count from the input.
    for (int i = 0; i < static_cast<int>(v & 15u) + 8; ++i) v = (v & 1) ? 3 * v + 1 : v >> 1;
    flag[tid] = 1;
  } else {
    // Even lanes: a different loop, then a bounded wait for the odd partner's flag.
    for (int i = 0; i < static_cast<int>(v & 7u) + 4; ++i) v = v * 1103515245u + 12345u;
    while (flag[tid ^ 1] == 0 && polls < spin_cap) ++polls;
  }
  // Reconvergence point: everything below expects the whole warp back together.
  const unsigned active = __activemask();
  const unsigned shuffled = __shfl_xor_sync(0xffffffffu, v, 1);
  slot[tid] = v;
  const unsigned from_shared = slot[tid ^ 1];  // relies on convergence: no __syncwarp on purpose

  const long long t1 = clock64();
  out[tid] = static_cast<int>(v ^ shuffled);
  exch[4 * tid + 0] = static_cast<int>(active);
  exch[4 * tid + 1] = static_cast<int>(shuffled);
  exch[4 * tid + 2] = static_cast<int>(from_shared);
  exch[4 * tid + 3] = polls;
  if (lane == 0) cycles[tid >> 5] = t1 - t0;
}
