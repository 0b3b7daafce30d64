#include <cooperative_groups.h>
#include "corpus_common.cuh"
namespace cg = cooperative_groups;

// corpus: coop_groups -- tiled_partition<8> reduction (tile shuffles), unconditional
extern "C" __global__ void cg_tile_reduce(int* out, const int* in) {
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  int v = in[threadIdx.x];
  for (int d = tile.size() / 2; d > 0; d /= 2) v += tile.shfl_down(v, d);
  if (tile.thread_rank() == 0) out[threadIdx.x / 8] = v;
}

// corpus: coop_groups -- tile sync and shuffle inside a branch taken by whole tiles (tile-uniform)
extern "C" __global__ void cg_tile_branch(int* out, const int* in, int n) {
  auto tile = cg::tiled_partition<4>(cg::this_thread_block());
  int v = in[threadIdx.x];
  if (tile.meta_group_rank() & 1) {
    v = corpus_work(in, v, n);
    tile.sync();
    v += tile.shfl(v, 0);
  }
  out[threadIdx.x] = v;
}

// corpus: coop_groups -- coalesced_threads() group formed inside a divergent branch
extern "C" __global__ void cg_coalesced(int* out, int* counter, const int* in, int n) {
  int v = in[threadIdx.x];
  if (v > n) {
    auto active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(counter, (int)active.size());
    base = active.shfl(base, 0);
    out[base + active.thread_rank()] = v;
  }
}
