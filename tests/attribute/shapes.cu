// Ground truth by compaction for `divbench attribute` (docs/attribute.md "Shapes: ground truth by compaction"):
// kernels written for the test, one per shape of divergence, each run over the same items in two
// orders with identical per-thread work: random (a warp's lanes get unrelated items: they diverge)
// and sorted by each item's work (a warp's lanes get alike items: they do not, up to the few warps
// that straddle two kinds of item). One warp per SM (the launch asks for more shared memory than
// two blocks can hold), each warp walking `rounds` items per lane; clock64 around the walk.
//   truth  = sum of warp cycles (random) - sum of warp cycles (sorted) + estimate (sorted)
//   error  = estimate (random) / truth - 1
//
//   divbench_attribute_shapes time [--rounds R] [--launches L] [--shape NAME]
//       every shape in both orders, L launches each (interleaved); stdout: JSON with the warp cycles
//   divbench_attribute_shapes run ORDER [--rounds R] [--launches L] [--shape NAME]
//       every shape L times (default 1) in ORDER (random | sorted): the program `divbench attribute` runs
//       (its estimate is per launch; more launches give its PC sampling more samples)
//   divbench_attribute_shapes list
// Every launch is checked (the last error, then the output: each item's result must be the same in
// both orders, bit for bit, and the shapes with a host reference must match it); exit 1 otherwise.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"

namespace {

using divbench::DeviceBuffer;

// One item of work: what a lane gets. `a` selects sides and cases, `trips` a trip count, (cx, cy) a
// point of the Mandelbrot loop, `start` a node of the pointer chase.
struct Item {
  int a;
  int trips;
  float cx, cy;
  int start;
};

// What every shape's work gets besides its item.
struct Aux {
  const int* next;   // the pointer chase's cycle
  int* sink;         // results that depend on which lanes run together: written only when flag != 0
  int flag;          // 0 at run time (the compiler cannot know)
  unsigned long long* atomics_total;  // the shared-atomics shape's sum over blocks
};

constexpr int kPinSharedBytes = 160 * 1024;  // more than half of an SM's shared memory: one block per SM
constexpr int kChaseNodes = 1 << 24;         // 64 MiB of int: past the L2

// A warp sum over the lanes of mask m: one REDUX on sm_80 and later (what the H200 runs); before sm_80,
// where __reduce_add_sync does not exist, a shuffle per member lane (the build covers every architecture).
__device__ __forceinline__ unsigned warp_sum(unsigned m, unsigned v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  return __reduce_add_sync(m, v);
#else
  unsigned s = 0;
  for (unsigned rest = m; rest; rest &= rest - 1) s += __shfl_sync(m, v, __ffs(rest) - 1);
  return s;
#endif
}

template <int N>
__device__ __forceinline__ float chain(float x, float m, float c) {
#pragma unroll
  for (int j = 0; j < N; ++j) x = fmaf(x, m, c);
  return x;
}

// ---- The shapes. Each: a device `work`, a host `key` (the work an item asks for: the sorted order),
// a generator of items, and (where exact) a host reference of the result. ----

// if-then: half the lanes run a long body.
struct IfThen {
  static constexpr const char* name = "if_then";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    if (it.a & 1) x = chain<96>(x, 1.0001f, 0.5f);
    return x;
  }
  static int key(const Item& it) { return it.a & 1; }
};

// if-else with unequal arms.
struct IfElse {
  static constexpr const char* name = "if_else_unequal";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    if (it.a & 1) x = chain<96>(x, 1.0001f, 0.5f);
    else x = chain<32>(x, 0.9999f, -0.25f);
    return x;
  }
  static int key(const Item& it) { return it.a & 1; }
};

// switch over 8 cases of different lengths.
struct Switch8 {
  static constexpr const char* name = "switch_8";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    switch (it.a & 7) {
      case 0: x = chain<8>(x, 1.0001f, 0.5f); break;
      case 1: x = chain<16>(x, 1.0002f, 0.25f); break;
      case 2: x = chain<24>(x, 1.0003f, 0.125f); break;
      case 3: x = chain<32>(x, 0.9999f, -0.5f); break;
      case 4: x = chain<40>(x, 0.9998f, -0.25f); break;
      case 5: x = chain<48>(x, 0.9997f, 0.75f); break;
      case 6: x = chain<56>(x, 1.0004f, -0.75f); break;
      default: x = chain<64>(x, 0.9996f, 0.375f); break;
    }
    return x;
  }
  static int key(const Item& it) { return it.a & 7; }
};

// for loop, data-dependent trip count.
struct ForTrips {
  static constexpr const char* name = "for_trips";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    for (int j = 0; j < it.trips; ++j) x = fmaf(x, 1.0001f, 0.5f);
    return x;
  }
  static int key(const Item& it) { return it.trips; }
};

// while loop with a compound condition (Mandelbrot).
struct WhileCompound {
  static constexpr const char* name = "while_compound";
  static constexpr int kMax = 256;
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = 0, y = 0;
    int n = 0;
    while (x * x + y * y < 4.0f && n < kMax) {
      const float xt = x * x - y * y + it.cx;
      y = 2.0f * x * y + it.cy;
      x = xt;
      ++n;
    }
    return static_cast<float>(n);
  }
  static int key(const Item& it) { return it.trips; }  // the host's iteration count (the generator sets it)
};

// loop with a data-dependent break.
struct LoopBreak {
  static constexpr const char* name = "loop_break";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx, c = 0;
#pragma unroll 1
    for (int j = 0; j < 512; ++j) {
      x = fmaf(x, 1.0001f, 0.5f);
      c += 1.0f;
      if (c >= static_cast<float>(it.trips)) break;
    }
    return x + c;
  }
  static int key(const Item& it) { return it.trips; }
};

// nested loops, the outer trip count divergent, the inner one fixed.
struct NestedOuter {
  static constexpr const char* name = "nested_outer";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    for (int i = 0; i < it.trips; ++i) {
#pragma unroll 1
      for (int j = 0; j < 8; ++j) x = fmaf(x, 1.0001f, 0.5f);
    }
    return x;
  }
  static int key(const Item& it) { return it.trips; }
};

// a divergent region inside a uniform loop.
struct RegionInLoop {
  static constexpr const char* name = "region_in_uniform_loop";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll 1
    for (int j = 0; j < 16; ++j) {
      if ((it.a >> j) & 1) x = chain<24>(x, 1.0001f, 0.5f);
    }
    return x;
  }
  static int key(const Item& it) { return it.a; }
};

// dependent global loads (pointer chase), trip count data-dependent.
struct PointerChase {
  static constexpr const char* name = "pointer_chase";
  __device__ static float work(const Item& it, int*, const Aux& aux) {
    int p = it.start;
    for (int j = 0; j < it.trips; ++j) p = aux.next[p];
    return static_cast<float>(p);
  }
  static int key(const Item& it) { return it.trips; }
};

// shared-memory atomics in a divergent region.
struct SharedAtomics {
  static constexpr const char* name = "shared_atomics";
  __device__ static float work(const Item& it, int* smem, const Aux&) {
    if (it.a & 1) {
      const int lane = threadIdx.x & 31;
#pragma unroll 1
      for (int j = 0; j < 24; ++j) atomicAdd(&smem[(lane * 5 + j * 3) & 255], 1);
    }
    return it.cx;
  }
  static int key(const Item& it) { return it.a & 1; }
};

// a warp-level reduction inside a divergent region (its result depends on which lanes are together:
// it goes to the sink only when the run-time flag is set, which it is not).
struct ShuffleReduce {
  static constexpr const char* name = "shuffle_in_divergent";
  __device__ static float work(const Item& it, int*, const Aux& aux) {
    float x = it.cx;
    if (it.a & 1) {
      const unsigned m = __activemask();
      unsigned v = static_cast<unsigned>(it.a);
#pragma unroll 1
      for (int j = 0; j < 24; ++j) v = (warp_sum(m, v) ^ static_cast<unsigned>(j)) & 0xffffu;
      if (aux.flag) aux.sink[threadIdx.x] = static_cast<int>(v);
      x = chain<8>(x, 1.0001f, 0.5f);
    }
    return x;
  }
  static int key(const Item& it) { return it.a & 1; }
};

// an indirect call through a table of four functions of different lengths.
__device__ __noinline__ float callee0(float x) { return chain<8>(x, 1.0001f, 0.5f); }
__device__ __noinline__ float callee1(float x) { return chain<24>(x, 1.0002f, 0.25f); }
__device__ __noinline__ float callee2(float x) { return chain<40>(x, 0.9999f, -0.5f); }
__device__ __noinline__ float callee3(float x) { return chain<64>(x, 0.9998f, 0.75f); }
__device__ float (*const kCallees[4])(float) = {callee0, callee1, callee2, callee3};

struct IndirectCall {
  static constexpr const char* name = "indirect_call";
  __device__ static float work(const Item& it, int*, const Aux&) { return kCallees[it.a & 3](it.cx); }
  static int key(const Item& it) { return it.a & 3; }
};

// ---- Held-out shapes: written before any run of them (d38300d), after every rule divbench uses now;
// their error is the out-of-sample one. (The resume-point rule of that commit, the one rule newer
// than them, was taken out after their first run: docs/attribute.md.) ----

// a for loop over a data-dependent trip count that the compiler may not unroll: one exit per iteration
// (for_trips' loop is unrolled by 4, its copies' guards diverge as well).
struct ForUnroll1 {
  static constexpr const char* name = "for_unroll1";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll 1
    for (int j = 0; j < it.trips; ++j) x = fmaf(x, 1.0001f, 0.5f);
    return x;
  }
  static int key(const Item& it) { return it.trips; }
};

// two indirect calls in a row, each through a table of two functions of unequal length, chosen by
// different bits: the warp splits at each call site on its own.
__device__ __noinline__ float callee_a0(float x) { return chain<16>(x, 1.0003f, 0.125f); }
__device__ __noinline__ float callee_a1(float x) { return chain<48>(x, 0.9997f, -0.25f); }
__device__ __noinline__ float callee_b0(float x) { return chain<4>(x, 1.0004f, 0.375f); }
__device__ __noinline__ float callee_b1(float x) { return chain<32>(x, 0.9996f, 0.625f); }
__device__ float (*const kCalleesA[2])(float) = {callee_a0, callee_a1};
__device__ float (*const kCalleesB[2])(float) = {callee_b0, callee_b1};

struct IndirectTwoSites {
  static constexpr const char* name = "indirect_two_sites";
  __device__ static float work(const Item& it, int*, const Aux&) {
    return kCalleesB[(it.a >> 1) & 1](kCalleesA[it.a & 1](it.cx));
  }
  static int key(const Item& it) { return it.a & 3; }
};

// independent global loads in a loop with a data-dependent trip count (a gather: each load's address
// comes from the loop counter, not from the previous load), over the pointer chase's 64 MiB table.
struct GatherLoop {
  static constexpr const char* name = "gather_loop";
  __device__ static float work(const Item& it, int*, const Aux& aux) {
    int s = 0;
#pragma unroll 1
    for (int j = 0; j < it.trips; ++j) s += aux.next[(it.start + j * 40961) & (kChaseNodes - 1)];
    return static_cast<float>(s);
  }
  static int key(const Item& it) { return it.trips; }
};

// ---- Held out, second set: written after the memory rule (a gather's sectors are not lost,
// model/memory_cost.hpp) and before any run of these shapes or of the memory probe
// (--sweep memory) the rule reads. ----

constexpr int kL2Nodes = 1 << 19;  // 2 MiB of the chase's table: held by the H200's L2, not by an L1

// a gather loop like gather_loop's over a table the L2 holds (the memory rule's l2 level).
struct GatherL2 {
  static constexpr const char* name = "gather_l2";
  __device__ static float work(const Item& it, int*, const Aux& aux) {
    int s = 0;
#pragma unroll 1
    for (int j = 0; j < it.trips; ++j) s += aux.next[(it.start + j * 40961) & (kL2Nodes - 1)];
    return static_cast<float>(s);
  }
  static int key(const Item& it) { return it.trips; }
};

// coalesced loads in a divergent branch: half the lanes run a chain of 24 dependent loads whose lanes
// read consecutive words of one line per step (the line chosen by the block and the step, so the
// lanes share sectors: not a gather). The loaded values feed only the chain (s & flag, flag = 0 at
// run time), so an item's result does not depend on the lane it ran on.
struct CoalescedIf {
  static constexpr const char* name = "coalesced_if";
  __device__ static float work(const Item& it, int*, const Aux& aux) {
    int s = 0;
    if (it.a & 1) {
      const int lane = static_cast<int>(threadIdx.x & 31);
#pragma unroll 1
      for (int j = 0; j < 24; ++j)
        s += aux.next[((((static_cast<int>(blockIdx.x) * 97 + j * 7919) & 0x3ffff) << 5) + lane + (s & aux.flag)) &
                      (kChaseNodes - 1)];
    }
    return it.cx + static_cast<float>(s & aux.flag);
  }
  static int key(const Item& it) { return it.a & 1; }
};

// a dependent chase of a fixed 12 steps through the 64 MiB table in an if-then: half the lanes wait
// on DRAM in a region that is not a loop of divergent trip counts.
struct ChaseIf {
  static constexpr const char* name = "chase_if";
  __device__ static float work(const Item& it, int*, const Aux& aux) {
    int p = it.start;
    if (it.a & 1) {
#pragma unroll 1
      for (int j = 0; j < 12; ++j) p = aux.next[p];
    }
    return static_cast<float>(p);
  }
  static int key(const Item& it) { return it.a & 1; }
};

// a divergent loop whose iterations gather one word and then compute on it (16 dependent FMAs): load
// waits and issue-priced work in one region.
struct GatherCompute {
  static constexpr const char* name = "gather_compute";
  __device__ static float work(const Item& it, int*, const Aux& aux) {
    float x = it.cx;
#pragma unroll 1
    for (int j = 0; j < it.trips; ++j) {
      const int v = aux.next[(it.start + j * 40961) & (kChaseNodes - 1)];
      x = chain<16>(x + static_cast<float>(v & 7), 0.9999f, 0.125f);
    }
    return x;
  }
  static int key(const Item& it) { return it.trips; }
};

// ---- Calibration of an indirect call's extra path (not validation shapes: `--set calibration`, the
// call-path calibration of stage scripts/gpu/50-attribute.sh, results/h200/call_path.json). The same call through a table of M callees whose
// bodies are alike (N dependent FMAs each, constants apart so that no two are one function), so the
// only cost the random order adds beyond the callees' instructions is the extra paths themselves: what
// the estimate misses per extra path there is the cost of an indirect call's path (docs/attribute.md). ----
template <int I, int N>
__device__ __noinline__ float even_callee(float x) { return chain<N>(x, 1.0001f + 1e-5f * I, 0.5f); }

template <int N>
__device__ float (*const kEvenCallees[8])(float) = {even_callee<0, N>, even_callee<1, N>, even_callee<2, N>, even_callee<3, N>,
                                                     even_callee<4, N>, even_callee<5, N>, even_callee<6, N>, even_callee<7, N>};

template <int M, int N>
struct EvenCall {
  __device__ static float work(const Item& it, int*, const Aux&) { return kEvenCallees<N>[it.a & (M - 1)](it.cx); }
  static int key(const Item& it) { return it.a & (M - 1); }
};
// A call's round trip beyond the issue model: one and four uniform direct calls of the same function per
// item (no divergence: both orders alike), differenced.
__device__ __noinline__ float round_trip_callee(float x) { return chain<16>(x, 1.0009f, 0.3125f); }
template <int K>
struct DirectCalls {
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll
    for (int k = 0; k < K; ++k) x = round_trip_callee(x);
    return x;
  }
  static int key(const Item& it) { return it.a & 1; }
};
struct CalDirect1 : DirectCalls<1> { static constexpr const char* name = "cal_direct_1"; };
struct CalDirect4 : DirectCalls<4> { static constexpr const char* name = "cal_direct_4"; };

struct CalCall2 : EvenCall<2, 16> { static constexpr const char* name = "cal_call_2"; };
struct CalCall4 : EvenCall<4, 16> { static constexpr const char* name = "cal_call_4"; };
struct CalCall8 : EvenCall<8, 16> { static constexpr const char* name = "cal_call_8"; };
struct CalCall4Long : EvenCall<4, 48> { static constexpr const char* name = "cal_call_4_long"; };

// ---- The unroll probe (not validation shapes: `--set unroll`, scripts/gpu/probes/unroll.sh): for_trips'
// loop unrolled by 2 and by 8, beside for_unroll1 (1) and for_trips (nvcc's 4), to see whether the
// over-estimate of for_trips grows with the unrolled copies' exits. ----
template <int U>
struct ForUnrollBy {
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll U
    for (int j = 0; j < it.trips; ++j) x = fmaf(x, 1.0001f, 0.5f);
    return x;
  }
  static int key(const Item& it) { return it.trips; }
};
struct ForUnroll2 : ForUnrollBy<2> { static constexpr const char* name = "for_unroll2"; };
struct ForUnroll8 : ForUnrollBy<8> { static constexpr const char* name = "for_unroll8"; };

// ---- Held-out set 4, written before any run of them and of the call-path probe (after the rule that
// counts the indirect calls of a function once and the measured cost of a call's extra path). ----

// C++ virtual dispatch: three classes of one base with a virtual method of unequal lengths, objects
// built on the device (setup_objects), an item calling the method of object a % 3.
struct Body {
  __device__ virtual float apply(float x) const = 0;
};
struct BodyShort : Body {
  __device__ float apply(float x) const override { return chain<6>(x, 1.0005f, 0.25f); }
};
struct BodyMid : Body {
  __device__ float apply(float x) const override { return chain<20>(x, 0.9995f, -0.125f); }
};
struct BodyLong : Body {
  __device__ float apply(float x) const override { return chain<44>(x, 1.0006f, 0.375f); }
};
__device__ alignas(16) unsigned char gBodies[3][16];
__global__ void setup_objects() {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    new (gBodies[0]) BodyShort();
    new (gBodies[1]) BodyMid();
    new (gBodies[2]) BodyLong();
  }
}

struct VirtualCall {
  static constexpr const char* name = "virtual_call";
  __device__ static float work(const Item& it, int*, const Aux&) {
    return reinterpret_cast<const Body*>(gBodies[it.a % 3])->apply(it.cx);
  }
  static int key(const Item& it) { return it.a % 3; }
};

// an indirect call in a divergent loop: trips 0..32 per item, each trip through one of two callees of
// unequal length, the callee alternating with the trip (so the sorted order, by trip count and first
// callee, keeps a warp's lanes on one target).
__device__ __noinline__ float loop_callee0(float x) { return chain<10>(x, 1.0007f, 0.0625f); }
__device__ __noinline__ float loop_callee1(float x) { return chain<30>(x, 0.9993f, -0.0625f); }
__device__ float (*const kLoopCallees[2])(float) = {loop_callee0, loop_callee1};

struct IndirectInLoop {
  static constexpr const char* name = "indirect_in_loop";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll 1
    for (int j = 0; j < it.trips; ++j) x = kLoopCallees[(it.a + j) & 1](x);
    return x;
  }
  static int key(const Item& it) { return it.trips * 2 + (it.a & 1); }
};

// an indirect call through a table of eight callees of unequal lengths (4 to 60 FMAs).
__device__ __noinline__ float callee8_0(float x) { return chain<4>(x, 1.0011f, 0.5f); }
__device__ __noinline__ float callee8_1(float x) { return chain<12>(x, 1.0012f, 0.5f); }
__device__ __noinline__ float callee8_2(float x) { return chain<20>(x, 1.0013f, 0.5f); }
__device__ __noinline__ float callee8_3(float x) { return chain<28>(x, 1.0014f, 0.5f); }
__device__ __noinline__ float callee8_4(float x) { return chain<36>(x, 0.9986f, 0.5f); }
__device__ __noinline__ float callee8_5(float x) { return chain<44>(x, 0.9987f, 0.5f); }
__device__ __noinline__ float callee8_6(float x) { return chain<52>(x, 0.9988f, 0.5f); }
__device__ __noinline__ float callee8_7(float x) { return chain<60>(x, 0.9989f, 0.5f); }
__device__ float (*const kCallees8[8])(float) = {callee8_0, callee8_1, callee8_2, callee8_3,
                                                 callee8_4, callee8_5, callee8_6, callee8_7};

struct IndirectCall8 {
  static constexpr const char* name = "indirect_call_8";
  __device__ static float work(const Item& it, int*, const Aux&) { return kCallees8[it.a & 7](it.cx); }
  static int key(const Item& it) { return it.a & 7; }
};

// ---- Held-out set 5, written before any run of them, after the rule that a region holds the code of the
// functions its instructions call (a CALL falls through in the CFG: set 4's indirect_in_loop, a call per
// trip of a divergent loop, was priced -45.8% without it). ----

// a direct call of a __noinline__ function (CALL.REL.NOINC to a known subroutine) in an if-then.
__device__ __noinline__ float direct_callee(float x) { return chain<40>(x, 1.0008f, -0.375f); }

struct CallInIf {
  static constexpr const char* name = "call_in_if";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    if (it.a & 1) x = direct_callee(x);
    return x;
  }
  static int key(const Item& it) { return it.a & 1; }
};

// a direct call per trip of a divergent loop (trips 0..32).
__device__ __noinline__ float loop_direct_callee(float x) { return chain<12>(x, 0.9992f, 0.1875f); }

struct DirectCallInLoop {
  static constexpr const char* name = "direct_call_in_loop";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll 1
    for (int j = 0; j < it.trips; ++j) x = loop_direct_callee(x);
    return x;
  }
  static int key(const Item& it) { return it.trips; }
};

// an indirect call (two callees of unequal length) inside an if-then: the call's split nested in the
// branch's.
struct IndirectInIf {
  static constexpr const char* name = "indirect_in_if";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    if (it.a & 1) x = kLoopCallees[(it.a >> 1) & 1](x);
    return x;
  }
  static int key(const Item& it) { return it.a & 3; }
};

// ---- Held-out set 6, written before any run of them, after the rule that a call's round trip costs
// what the call-path calibration measures beyond the issue model (set 5's direct calls were priced
// -13.2% and -17.5% in their first run without it). ----

// a direct call that makes two direct calls of its own, in an if-then.
__device__ __noinline__ float inner_callee(float x) { return chain<10>(x, 1.0012f, 0.0625f); }
__device__ __noinline__ float outer_callee(float x) {
  x = inner_callee(x);
  x = chain<6>(x, 0.9991f, -0.25f);
  return inner_callee(x);
}

struct NestedCallInIf {
  static constexpr const char* name = "nested_call_in_if";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
    if (it.a & 1) x = outer_callee(x);
    return x;
  }
  static int key(const Item& it) { return it.a & 1; }
};

// an if-else whose arms each make a direct call, of unequal lengths.
__device__ __noinline__ float then_callee(float x) { return chain<36>(x, 1.0013f, 0.4375f); }
__device__ __noinline__ float else_callee(float x) { return chain<8>(x, 0.9987f, -0.4375f); }

struct CallsInIfElse {
  static constexpr const char* name = "calls_in_if_else";
  __device__ static float work(const Item& it, int*, const Aux&) {
    return (it.a & 1) ? then_callee(it.cx) : else_callee(it.cx);
  }
  static int key(const Item& it) { return it.a & 1; }
};

// a loop that leaves by a data-dependent break, a direct call every trip.
__device__ __noinline__ float break_callee(float x) { return chain<8>(x, 1.0014f, 0.15625f); }

struct CallInBreakLoop {
  static constexpr const char* name = "call_in_break_loop";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll 1
    for (int j = 0; j < 64; ++j) {
      x = break_callee(x);
      if (j >= it.trips) break;
    }
    return x;
  }
  static int key(const Item& it) { return it.trips; }
};

// ---- The kernel every shape shares ----
// N dependent shift-xor-multiply steps on a float's bits (two instructions each, not foldable into one
// as a chain of multiply-adds would be): an arm the compiler cannot merge with chain's.
template <int N>
__device__ __forceinline__ float ichain(float x, unsigned m) {
  unsigned v = __float_as_uint(x);
#pragma unroll
  for (int j = 0; j < N; ++j) v = (v ^ (v >> 13)) * m;
  return __uint_as_float((v & 0x007fffffu) | 0x3f800000u);  // in [1, 2): a finite float
}

// Held-out set 3, written before any run of them (a lead from for_trips, whose unrolled remainder is a row
// of if-thens divergent at every execution, the other side of each one empty: does an extra path cost
// D_path when it runs nothing?). Eight if-thens in a row, each on its own bit of the item, and the
// control: the same eight with an else of the same length (integer work: the compiler merged two FFMA
// arms into one chain with selected constants), so that both sides run code.
struct IfThenChain {
  static constexpr const char* name = "if_then_chain";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll
    for (int b = 0; b < 8; ++b)
      if ((it.a >> b) & 1) x = chain<12>(x, 1.0001f + 1e-4f * b, 0.5f);
    return x;
  }
  static int key(const Item& it) { return it.a & 0xff; }
};

struct IfElseChain {
  static constexpr const char* name = "if_else_chain";
  __device__ static float work(const Item& it, int*, const Aux&) {
    float x = it.cx;
#pragma unroll
    for (int b = 0; b < 8; ++b) {
      if ((it.a >> b) & 1) x = chain<12>(x, 1.0001f + 1e-4f * b, 0.5f);
      else x = ichain<6>(x, 1664525u + 2u * b);  // other instructions: the compiler cannot merge the arms
    }
    return x;
  }
  static int key(const Item& it) { return it.a & 0xff; }
};

template <class Shape>
__global__ void __launch_bounds__(32) shape_kernel(const Item* items, float* out, long long* cycles, int* smid,
                                                   int rounds, Aux aux) {
  extern __shared__ int smem[];
  const int lane = threadIdx.x;
#pragma unroll
  for (int i = 0; i < 8; ++i) smem[lane * 8 + i] = 0;
  __syncwarp();
  const long long t0 = clock64();
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) {
    const int idx = (r * static_cast<int>(gridDim.x) + static_cast<int>(blockIdx.x)) * 32 + lane;
    out[idx] = Shape::work(items[idx], smem, aux);
  }
  __syncwarp();
  const long long t1 = clock64();
  // After the timed region, and without a divergent loop of its own (the estimate covers the whole
  // kernel, the truth only the region): every lane sums 8 of the 256 counters, one reduction.
  unsigned part = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) part += static_cast<unsigned>(smem[lane * 8 + i]);
  const unsigned sum = warp_sum(0xffffffffu, part);
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  if (lane == 0) {
    cycles[blockIdx.x] = t1 - t0;
    smid[blockIdx.x] = static_cast<int>(s);
    if (sum) atomicAdd(aux.atomics_total, static_cast<unsigned long long>(sum));
  }
}

// ---- Host side ----

float host_mandel(float cx, float cy, int max) {  // the loop above, for the sort key only
  float x = 0, y = 0;
  int n = 0;
  while (x * x + y * y < 4.0f && n < max) {
    const float xt = x * x - y * y + cx;
    y = 2.0f * x * y + cy;
    x = xt;
    ++n;
  }
  return static_cast<float>(n);
}

std::vector<Item> make_items(const std::string& shape, std::size_t n, std::mt19937& rng) {
  std::vector<Item> v(n);
  std::uniform_int_distribution<int> bits(0, 0x7fffffff);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (auto& it : v) {
    it.a = bits(rng);
    it.cx = u(rng);
    it.cy = u(rng);
    it.start = bits(rng) % kChaseNodes;
    it.trips = 0;
    if (shape == "for_trips") it.trips = static_cast<int>(u(rng) * 129);            // 0..128
    if (shape == "loop_break") it.trips = 1 + static_cast<int>(u(rng) * 128);       // 1..128
    if (shape == "nested_outer") it.trips = static_cast<int>(u(rng) * 33);          // 0..32
    if (shape == "pointer_chase") it.trips = static_cast<int>(u(rng) * 33);         // 0..32
    if (shape == "for_unroll1") it.trips = static_cast<int>(u(rng) * 129);          // 0..128
    if (shape == "gather_loop") it.trips = static_cast<int>(u(rng) * 33);           // 0..32
    if (shape == "gather_l2") it.trips = static_cast<int>(u(rng) * 33);             // 0..32
    if (shape == "gather_compute") it.trips = static_cast<int>(u(rng) * 33);        // 0..32
    if (shape == "for_unroll2" || shape == "for_unroll8") it.trips = static_cast<int>(u(rng) * 129);  // 0..128
    if (shape == "indirect_in_loop") it.trips = static_cast<int>(u(rng) * 33);      // 0..32
    if (shape == "direct_call_in_loop") it.trips = static_cast<int>(u(rng) * 33);   // 0..32
    if (shape == "call_in_break_loop") it.trips = static_cast<int>(u(rng) * 48);    // 0..47
    if (shape == "region_in_uniform_loop") it.a = std::vector<int>{0x0f0f, 0xf0f0, 0x00ff, 0xff00}[it.a & 3];
    if (shape == "while_compound") {
      // Points near the set's boundary: iteration counts spread over 1..256.
      it.cx = -2.0f + 2.5f * u(rng);
      it.cy = -1.25f + 2.5f * u(rng);
      it.trips = static_cast<int>(host_mandel(it.cx, it.cy, WhileCompound::kMax));
    }
  }
  return v;
}

struct ShapeRun {
  const char* name;
  const char* type;  // the shape's struct: the kernel is shape_kernel<(anonymous namespace)::TYPE>
  std::function<int(const Item&)> key;
  std::function<void(const Item*, float*, long long*, int*, int, int, Aux)> launch;
  std::string set;  // "": a validation shape; else the set that runs it alone (`--set calibration`, `--set unroll`)
};

template <class Shape>
ShapeRun shape_run(const char* type, const char* set = "") {
  DIVBENCH_CUDA_CHECK(cudaFuncSetAttribute(shape_kernel<Shape>, cudaFuncAttributeMaxDynamicSharedMemorySize, kPinSharedBytes));
  return {Shape::name, type, &Shape::key,
          [](const Item* items, float* out, long long* cycles, int* smid, int blocks, int rounds, Aux aux) {
            shape_kernel<Shape><<<blocks, 32, kPinSharedBytes>>>(items, out, cycles, smid, rounds, aux);
          },
          set};
}

std::vector<ShapeRun> all_shapes() {
  return {shape_run<IfThen>("IfThen"),        shape_run<IfElse>("IfElse"),      shape_run<Switch8>("Switch8"),      shape_run<ForTrips>("ForTrips"),
          shape_run<WhileCompound>("WhileCompound"), shape_run<LoopBreak>("LoopBreak"),   shape_run<NestedOuter>("NestedOuter"),  shape_run<RegionInLoop>("RegionInLoop"),
          shape_run<PointerChase>("PointerChase"),  shape_run<SharedAtomics>("SharedAtomics"), shape_run<ShuffleReduce>("ShuffleReduce"), shape_run<IndirectCall>("IndirectCall"),
          shape_run<ForUnroll1>("ForUnroll1"),      shape_run<IndirectTwoSites>("IndirectTwoSites"), shape_run<GatherLoop>("GatherLoop"),
          shape_run<GatherL2>("GatherL2"),          shape_run<CoalescedIf>("CoalescedIf"),  shape_run<ChaseIf>("ChaseIf"),
          shape_run<GatherCompute>("GatherCompute"), shape_run<IfThenChain>("IfThenChain"),
          shape_run<IfElseChain>("IfElseChain"), shape_run<VirtualCall>("VirtualCall"),
          shape_run<IndirectInLoop>("IndirectInLoop"), shape_run<IndirectCall8>("IndirectCall8"),
          shape_run<CallInIf>("CallInIf"), shape_run<DirectCallInLoop>("DirectCallInLoop"),
          shape_run<IndirectInIf>("IndirectInIf"), shape_run<NestedCallInIf>("NestedCallInIf"),
          shape_run<CallsInIfElse>("CallsInIfElse"), shape_run<CallInBreakLoop>("CallInBreakLoop"),
          shape_run<CalCall2>("CalCall2", "calibration"), shape_run<CalCall4>("CalCall4", "calibration"),
          shape_run<CalCall8>("CalCall8", "calibration"), shape_run<CalCall4Long>("CalCall4Long", "calibration"),
          shape_run<CalDirect1>("CalDirect1", "calibration"), shape_run<CalDirect4>("CalDirect4", "calibration"),
          shape_run<ForUnroll2>("ForUnroll2", "unroll"), shape_run<ForUnroll8>("ForUnroll8", "unroll")};
}

const char* kShapeNames[] = {"if_then", "if_else_unequal", "switch_8", "for_trips", "while_compound", "loop_break",
                             "nested_outer", "region_in_uniform_loop", "pointer_chase", "shared_atomics",
                             "shuffle_in_divergent", "indirect_call", "for_unroll1", "indirect_two_sites", "gather_loop",
                             "gather_l2", "coalesced_if", "chase_if", "gather_compute", "if_then_chain", "if_else_chain",
                             "virtual_call", "indirect_in_loop", "indirect_call_8", "call_in_if",
                             "direct_call_in_loop", "indirect_in_if", "nested_call_in_if", "calls_in_if_else",
                             "call_in_break_loop"};
const char* kCalibrationNames[] = {"cal_call_2", "cal_call_4", "cal_call_8", "cal_call_4_long", "cal_direct_1",
                                   "cal_direct_4"};
const char* kUnrollNames[] = {"for_unroll2", "for_unroll8"};

// The items of a shape in one order: random (shuffled) or sorted by their key (stable).
std::vector<Item> ordered(const std::vector<Item>& items, const ShapeRun& s, bool sorted, std::uint32_t seed) {
  std::vector<Item> v = items;
  if (sorted) std::stable_sort(v.begin(), v.end(), [&](const Item& x, const Item& y) { return s.key(x) < s.key(y); });
  else std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

// Sum of the items' results, by item identity (start and cx identify an item uniquely enough), to check
// that both orders computed the same per-item results.
struct Launch {
  std::vector<float> out;
  unsigned long long warp_cycles = 0;
  int shared_sm = 0;
  unsigned long long atomics = 0;
};

int usage() {
  std::fprintf(stderr,
               "usage: divbench_attribute_shapes time [--rounds R] [--launches L] [--shape NAME | --set calibration|unroll]\n"
               "       divbench_attribute_shapes run random|sorted [--rounds R] [--shape NAME | --set calibration|unroll]\n"
               "       divbench_attribute_shapes list [calibration|unroll]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string mode = argv[1];
  if (mode == "list") {
    const std::string which = argc == 3 ? argv[2] : "";
    if (argc > 3 || (argc == 3 && which != "calibration" && which != "unroll")) return usage();
    if (which == "calibration")
      for (const char* n : kCalibrationNames) std::printf("%s\n", n);
    else if (which == "unroll")
      for (const char* n : kUnrollNames) std::printf("%s\n", n);
    else
      for (const char* n : kShapeNames) std::printf("%s\n", n);
    return 0;
  }
  if (mode != "time" && mode != "run") return usage();
  int argi = 2;
  std::string order;
  if (mode == "run") {
    if (argc < 3) return usage();
    order = argv[2];
    if (order != "random" && order != "sorted") return usage();
    argi = 3;
  }
  int rounds = 32, launches = mode == "time" ? 5 : 1;
  std::string only, set;
  for (; argi < argc; ++argi) {
    const std::string a = argv[argi];
    if (argi + 1 >= argc) return usage();
    if (a == "--rounds") rounds = std::atoi(argv[++argi]);
    else if (a == "--launches") launches = std::atoi(argv[++argi]);
    else if (a == "--shape") only = argv[++argi];
    else if (a == "--set") set = argv[++argi];
    else return usage();
  }
  if (rounds < 1 || rounds > 4096 || launches < 1 || launches > 1001) return usage();
  if ((!set.empty() && set != "calibration" && set != "unroll") || (!set.empty() && !only.empty())) return usage();
  const auto known = [&](const char* const* b, const char* const* e) {
    return std::find_if(b, e, [&](const char* n) { return only == n; }) != e;
  };
  if (!only.empty() && !known(std::begin(kShapeNames), std::end(kShapeNames)) &&
      !known(std::begin(kCalibrationNames), std::end(kCalibrationNames)) && !known(std::begin(kUnrollNames), std::end(kUnrollNames))) {
    std::fprintf(stderr, "divbench_attribute_shapes: no shape %s (see `list`)\n", only.c_str());
    return 2;
  }

  int dev = 0, sms = 0, clock_khz = 0;
  DIVBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  const int blocks = sms;
  const std::size_t n = static_cast<std::size_t>(blocks) * 32 * rounds;

  // The pointer chase's cycle: one random cycle through every node (Sattolo), so a chase never repeats
  // a short loop that the caches would hold.
  std::vector<int> next(kChaseNodes);
  {
    std::vector<int> perm(kChaseNodes);
    std::iota(perm.begin(), perm.end(), 0);
    std::mt19937 rng(12345);
    for (int i = kChaseNodes - 1; i > 0; --i) std::swap(perm[i], perm[std::uniform_int_distribution<int>(0, i - 1)(rng)]);
    for (int i = 0; i < kChaseNodes; ++i) next[perm[i]] = perm[(i + 1) % kChaseNodes];
  }
  DeviceBuffer<int> d_next(next);
  DeviceBuffer<int> d_sink(32, 0);
  DeviceBuffer<unsigned long long> d_atomics(1, 0);
  DeviceBuffer<float> d_out(n, 0xff);
  DeviceBuffer<long long> d_cycles(blocks, 0);
  DeviceBuffer<int> d_smid(blocks, 0);
  Aux aux{d_next.get(), d_sink.get(), 0, d_atomics.get()};

  const auto launch_one = [&](const ShapeRun& s, const DeviceBuffer<Item>& items) {
    d_out.fill_bytes(0xff);  // NaN: an item the kernel did not write fails the check
    d_atomics.fill_bytes(0);
    s.launch(items.get(), d_out.get(), d_cycles.get(), d_smid.get(), blocks, rounds, aux);
    DIVBENCH_CUDA_CHECK(cudaGetLastError());
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    Launch l;
    l.out = d_out.download();
    for (long long c : d_cycles.download()) l.warp_cycles += static_cast<unsigned long long>(c);
    std::vector<int> ids = d_smid.download();
    std::sort(ids.begin(), ids.end());
    l.shared_sm = static_cast<int>(ids.size() - (std::unique(ids.begin(), ids.end()) - ids.begin()));
    l.atomics = d_atomics.download()[0];
    return l;
  };

  std::string json = "{\"target\": \"shapes\", \"mode\": \"" + mode + "\", \"order\": \"" + order +
                     "\", \"sms\": " + std::to_string(sms) + ", \"blocks\": " + std::to_string(blocks) +
                     ", \"rounds\": " + std::to_string(rounds) + ", \"items\": " + std::to_string(n) +
                     ", \"launches\": " + std::to_string(launches) +
                     ", \"rated_clock_khz\": " + std::to_string(clock_khz) + ", \"shapes\": [";
  bool first = true, ok = true;
  std::uint32_t seed = 7;
  setup_objects<<<1, 1>>>();  // virtual_call's objects (their vtables are the device's)
  DIVBENCH_CUDA_CHECK(cudaGetLastError());
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  for (const ShapeRun& s : all_shapes()) {
    if (!only.empty() && only != s.name) continue;
    if (only.empty() && s.set != set) continue;
    std::mt19937 rng(1000 + seed++);
    const std::vector<Item> items = make_items(s.name, n, rng);
    const std::vector<Item> random = ordered(items, s, false, seed * 31u);
    const std::vector<Item> sorted = ordered(items, s, true, 0);
    // Per item, its result in each order must agree: index both by the item's position in `items`
    // (recovered through a map of (start, a, cx bits)).
    std::map<std::tuple<int, int, std::uint32_t, std::uint32_t>, std::size_t> where;
    const auto id = [](const Item& it) {
      std::uint32_t bx, by;
      std::memcpy(&bx, &it.cx, 4);
      std::memcpy(&by, &it.cy, 4);
      return std::make_tuple(it.start, it.a, bx, by);
    };
    for (std::size_t i = 0; i < items.size(); ++i) where[id(items[i])] = i;
    const auto by_item = [&](const std::vector<Item>& order_items, const std::vector<float>& out) {
      std::vector<float> r(items.size(), 0.0f);
      for (std::size_t i = 0; i < out.size(); ++i) r[where.at(id(order_items[i]))] = out[i];
      return r;
    };
    std::vector<std::string> orders = mode == "time" ? std::vector<std::string>{"random", "sorted"} : std::vector<std::string>{order};
    std::map<std::string, std::vector<unsigned long long>> cycles;
    std::map<std::string, std::vector<float>> results;
    int shared_sm = 0;
    unsigned long long atomics_expected = 0;
    for (const Item& it : items) atomics_expected += (std::string(s.name) == "shared_atomics" && (it.a & 1)) ? 24 : 0;
    for (int l = 0; l < launches; ++l)
      for (const auto& o : orders) {
        const std::vector<Item>& v = o == "random" ? random : sorted;
        DeviceBuffer<Item> d_items(v);
        const Launch r = launch_one(s, d_items);
        cycles[o].push_back(r.warp_cycles);
        shared_sm += r.shared_sm;
        if (r.atomics != atomics_expected) {
          std::fprintf(stderr, "%s (%s): shared atomics summed to %llu, expected %llu\n", s.name, o.c_str(), r.atomics,
                       atomics_expected);
          ok = false;
        }
        std::vector<float> res = by_item(v, r.out);
        for (std::size_t i = 0; i < res.size(); ++i)
          if (!(res[i] == res[i])) {
            std::fprintf(stderr, "%s (%s): item %zu not written\n", s.name, o.c_str(), i);
            ok = false;
            break;
          }
        if (std::string(s.name) == "for_trips" || std::string(s.name) == "pointer_chase") {
          // Exact host references: the chase's end node; for_trips' result is checked across orders.
          if (std::string(s.name) == "pointer_chase")
            for (std::size_t i = 0; i < items.size(); ++i) {
              int p = items[i].start;
              for (int j = 0; j < items[i].trips; ++j) p = next[p];
              if (res[i] != static_cast<float>(p)) {
                std::fprintf(stderr, "%s (%s): item %zu ended at %g, expected %d\n", s.name, o.c_str(), i, res[i], p);
                ok = false;
                break;
              }
            }
        }
        auto& prev = results[s.name];
        if (prev.empty()) prev = res;
        else if (std::memcmp(prev.data(), res.data(), res.size() * sizeof(float)) != 0) {
          std::fprintf(stderr, "%s: the two orders computed different results for the same items\n", s.name);
          ok = false;
        }
      }
    const auto median = [](std::vector<unsigned long long> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : (v.size() % 2 ? double(v[v.size() / 2]) : 0.5 * (double(v[v.size() / 2 - 1]) + double(v[v.size() / 2])));
    };
    std::string row = std::string(first ? "" : ",") + "\n  {\"shape\": \"" + s.name + "\", \"kernel\": \"" + s.type +
                      "\", \"shared_sm\": " + std::to_string(shared_sm);
    for (const auto& o : orders) {
      row += ", \"" + o + "_warp_cycles\": [";
      for (std::size_t i = 0; i < cycles[o].size(); ++i) row += (i ? ", " : "") + std::to_string(cycles[o][i]);
      char med[64];
      std::snprintf(med, sizeof med, "%.1f", median(cycles[o]));
      row += std::string("], \"") + o + "_median\": " + med;
    }
    json += row + "}";
    first = false;
    std::fprintf(stderr, "shapes: %s done\n", s.name);
  }
  json += "\n]}\n";
  std::fputs(json.c_str(), stdout);
  return ok ? 0 : 1;
}
