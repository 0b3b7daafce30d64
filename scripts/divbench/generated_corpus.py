"""Ground truth for `divbench attribute` from random divergent kernels (issue 47 item 3): draws N kernels
from one seed and writes DIR/gen.cu (the kernels and the host driver, one self-contained CUDA program) and
DIR/manifest.json (schema divbench.generated_manifest/1: the seed, the generator's version, per kernel the
features drawn, their parameters, its divergence sites, each site's key and the source lines it occupies).

Every kernel is `extern "C" __global__ void gen_NNN(GenArgs)`: each thread processes ITEMS_PER_THREAD items,
item = perm[m * total_threads + thread]; an item's path through the kernel is decided by its keys (one small
integer per site, keys[site * n + item]) and its result, out[item], by the item alone (no lane, warp or
order enters it), so every arrangement of the items gives bitwise the same per-item outputs. The host
driver (see HOST below) makes the arrangements: `random` (a fixed random permutation), `compact` (sorted by
the full path key, groups of 32 dealt to (iteration, warp) slots in a serpentine: no warp gets more work
than another on average) and, for two-site kernels, `compact_site0` / `compact_site1` (sorted by one site's
key). `gen measure` times them at 1, 8, 16 and 32 warps per SM (one block per SM, forced by dynamic shared
memory); `gen attribute|ncu --warps-per-sm W` launches each kernel once in the random arrangement.

Nothing is random but random.Random(seed): the same seed gives byte-identical files.

  PYTHONPATH=scripts python3 -m divbench.generated_corpus --seed S --kernels N --out DIR"""
from __future__ import annotations

import math
import random
import sys
from pathlib import Path

from divbench.cli import ArgumentParser, tool_main
from divbench.jsonio import InputError, write_json

SCHEMA = "divbench.generated_manifest/1"
VERSION = "3"
ITEMS_PER_THREAD = 4
WAVES = 4  # blocks = WAVES x SM count, one block per SM at a time
OCCUPANCIES = (1, 8, 16, 32)  # warps per SM
MAX_RECURSION = 16

# The site kinds (one divergent site each) and the body kinds; FEATURES is what a large draw must cover.
# "recursion" (a __noinline__ function calling itself to a drawn depth) is not drawn since version 3: on the
# H200 every kernel with a recursion site and no indirect call faulted ("operation not supported on
# global/shared address space"; an illegal address under attribute), with the default stack and with 16 KiB
# (seeds 3987980109 and 3601584371; the one kernel with recursion and an indirect call ran). Cause not found;
# its code is kept (RECURSION_KINDS) so that a version that draws it again generates the same kernels.
RECURSION_KINDS = ("recursion",)
SITE_KINDS = ("nested_if", "loop", "loop_unroll4", "early_exit", "switch", "direct_call", "indirect_call",
              "uniform_loop", "shared_atomic", "global_atomic", "gather_l1", "gather_l2", "gather_dram")
BODY_KINDS = ("sfu_body", "int_body")
FEATURES = SITE_KINDS + BODY_KINDS
GATHER_WORDS = {"gather_l1": 1 << 12, "gather_l2": 1 << 21, "gather_dram": 1 << 27}  # 16 KB, 8 MB, 512 MB
GATHER_ARRAY = {"gather_l1": "l1", "gather_l2": "l2", "gather_dram": "dram"}


def _f(v: float) -> str:
    return f"{v:.6g}"


def _weights(rng: random.Random, n: int) -> list[float]:
    """n probabilities, unequal (drawn), six significant digits (what gen.cu and the manifest both hold)."""
    if n == 2:
        p = round(rng.uniform(0.1, 0.9), 6)
        return [round(1 - p, 6), p]
    raw = [rng.random() ** 2 + 0.02 for _ in range(n)]
    s = sum(raw)
    return [float(_f(r / s)) for r in raw]


class Gen:
    """One kernel's code: a body is a chain of sfu or integer ops on the item's state (h: unsigned,
    x: float), repeated in a loop that is not unrolled (its trip count is a constant: no divergence)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.loop_var = 0
        self.bodies: list[dict] = []

    def body(self, ops_lo: int, ops_hi: int, kind: str | None = None) -> list[str]:
        rng = self.rng
        kind = kind or rng.choice(BODY_KINDS)
        nops = int(round(2 ** rng.uniform(_log2(ops_lo), _log2(ops_hi))))
        chunk = rng.randint(4, 8)
        reps = max(1, round(nops / chunk))
        ops = [self._op(kind) for _ in range(chunk)]
        self.bodies.append({"kind": kind, "ops": reps * chunk})
        self.loop_var += 1
        r = f"r{self.loop_var}"
        return ["#pragma unroll 1", f"for (int {r} = 0; {r} < {reps}; ++{r}) {{", *[f"  {o}" for o in ops], "}"]

    def _op(self, kind: str) -> str:
        rng = self.rng
        if kind == "sfu_body":
            a, b = _f(rng.uniform(0.3, 1.7)), _f(rng.uniform(-0.5, 0.5))
            return rng.choice([f"x = __sinf(x * {a}f + {b}f);", f"x = __expf(-fabsf(x) * {a}f) + {b}f;",
                               f"x = rsqrtf(x * x + {a}f);", f"x = __cosf(x) * {a}f + {b}f;",
                               f"x = __logf(fabsf(x) + 1.0f) * {a}f + {b}f;"])
        c = rng.getrandbits(32) | 1
        s = rng.randint(1, 31)
        return rng.choice([f"h = h * {c}u + {rng.getrandbits(16)}u;", f"h ^= h >> {s};",
                           f"h = (h << {s}) | (h >> {32 - s});", f"h ^= h << {s};",
                           f"h = __umulhi(h, {c}u) ^ h;", f"h += (h ^ {c}u) >> {s};"])


def _log2(v: float) -> float:
    return math.log2(v)


def _indent(lines: list[str], n: int = 2) -> list[str]:
    return [(" " * n + ln) if ln and not ln.startswith("#pragma") else ln for ln in lines]


def _state_fn(name: str, body: list[str], extra_params: str = "") -> list[str]:
    """A __noinline__ device function on the state h (x derived from it inside)."""
    return [f"__device__ __noinline__ unsigned {name}(unsigned h{extra_params}) {{",
            "  float x = __uint_as_float((h & 0x007fffffu) | 0x3f800000u);",
            *_indent(body), "  return h ^ __float_as_uint(x);", "}"]


def site(g: Gen, kname: str, s: int, kind: str) -> tuple[dict, list[str], list[str]]:
    """Draws one site: (its manifest entry without lines, callee lines, lines inside the item function).
    The key of site s is `k{s}`, in 0..values-1."""
    rng = g.rng
    k = f"k{s}"
    callee: list[str] = []
    params: dict = {}
    if kind == "nested_if":
        depth = rng.randint(1, 3)
        values = 1 << depth
        params["depth"] = depth

        def nest(lo: int, hi: int) -> list[str]:
            if hi - lo == 1:
                return g.body(8, 512)
            mid = (lo + hi) // 2
            return [f"if ({k} < {mid}) {{", *_indent(nest(lo, mid)), "} else {", *_indent(nest(mid, hi)), "}"]
        code = nest(0, values)
    elif kind in ("loop", "loop_unroll4", "uniform_loop"):
        lo = rng.randint(0, 4)
        values = rng.randint(2, 29)
        params.update(trips_min=lo, trips_max=lo + values - 1)
        body = g.body(8, 64)
        if kind == "uniform_loop":
            code = ["{", f"  int t{s} = 0;", f"  bool more{s} = {k} + {lo} > 0;",
                    f"  while (__any_sync(0xffffffffu, more{s})) {{", f"    if (more{s}) {{", *_indent(body, 6),
                    "    }", f"    ++t{s};", f"    more{s} = t{s} < {k} + {lo};", "  }", "}"]
        else:
            pragma = ["#pragma unroll 4"] if kind == "loop_unroll4" else []
            code = [*pragma, f"for (int t{s} = 0; t{s} < {k} + {lo}; ++t{s}) {{", *_indent(body), "}"]
    elif kind == "early_exit":
        values = 2
        code = [f"if ({k} == 0) return h ^ __float_as_uint(x);", *g.body(64, 512)]
    elif kind == "switch":
        values = rng.randint(8, 32)
        params["cases"] = values
        code = [f"switch ({k}) {{"]
        for c in range(values):
            code += [f"  case {c}: {{", *_indent(g.body(8, 256), 4), "    break;", "  }"]
        code += ["  default: break;", "}"]
    elif kind == "direct_call":
        values = 2
        fn = f"{kname}_s{s}_callee"
        callee = _state_fn(fn, g.body(16, 256))
        code = [f"if ({k}) {{", f"  h = {fn}(h ^ __float_as_uint(x));", "}"]
    elif kind == "indirect_call":
        values = rng.randint(2, 8)
        params["targets"] = values
        fns = [f"{kname}_s{s}_f{i}" for i in range(values)]
        for fn in fns:
            callee += _state_fn(fn, g.body(8, 256))
        callee.append(f"__device__ GenFn {kname}_s{s}_tab[{values}] = {{{', '.join(fns)}}};")
        code = [f"h = {kname}_s{s}_tab[{k}](h ^ __float_as_uint(x));"]
    elif kind == "recursion":
        cap = rng.randint(2, MAX_RECURSION)
        values = cap + 1
        params["depth_max"] = cap
        fn = f"{kname}_s{s}_rec"
        callee = [f"__device__ __noinline__ unsigned {fn}(unsigned h, int d) {{", "  if (d <= 0) return h;",
                  "  float x = __uint_as_float((h & 0x007fffffu) | 0x3f800000u);", *_indent(g.body(8, 64)),
                  f"  return {fn}(h ^ __float_as_uint(x), d - 1) * 2654435761u + (unsigned)d;", "}"]
        code = [f"h = {fn}(h ^ __float_as_uint(x), {k});"]
    elif kind in ("shared_atomic", "global_atomic"):
        values = 2
        target = "&gen_smem[h & 1023u]" if kind == "shared_atomic" else "&a.sink[h & 4095u]"
        code = [f"if ({k}) {{", *_indent(g.body(8, 128)), f"  atomicAdd({target}, h);", "}"]
    elif kind in GATHER_WORDS:
        values = rng.randint(2, 17)
        params.update(loads_max=values - 1, array_bytes=4 * GATHER_WORDS[kind])
        arr, mask = GATHER_ARRAY[kind], GATHER_WORDS[kind] - 1
        code = [f"for (int gi{s} = 0; gi{s} < {k}; ++gi{s}) {{",
                f"  const unsigned idx{s} = (h * 2654435761u + (unsigned)gi{s}) & {mask}u;",
                f"  h = (h ^ __ldg(&a.{arr}[idx{s}])) * 16777619u + (unsigned)gi{s};", "}"]
    else:
        raise ValueError(kind)
    entry = {"site": s, "kind": kind, "key": k, "key_values": values, "key_weights": _weights(rng, values),
             "params": params}
    return entry, callee, code


def kernel(rng: random.Random, index: int) -> tuple[dict, list[tuple[int, list[str]]], list[str]]:
    """One kernel: (manifest entry, [(site, callee lines)], item-function lines with site markers)."""
    name = f"gen_{index:03d}"
    nsites = rng.choices((1, 2, 3), weights=(0.3, 0.45, 0.25))[0]
    kinds: list[str] = []
    while len(kinds) < nsites:
        kind = rng.choice(SITE_KINDS)
        if kind == "early_exit" and "early_exit" in kinds:
            continue
        kinds.append(kind)
    # An early exit goes last: the lanes that leave must not owe a later __any_sync of the full warp.
    kinds.sort(key=lambda kd: kd == "early_exit")
    g = Gen(rng)
    sites, callees, parts = [], [], []
    for s, kind in enumerate(kinds):
        entry, callee, code = site(g, name, s, kind)
        sites.append(entry)
        callees.append((s, callee))
        parts.append((s, code))
    features = sorted(set(kinds) | {b["kind"] for b in g.bodies}, key=FEATURES.index)
    entry = {"name": name, "index": index, "features": features, "sites": sites,
             "bodies": g.bodies, "arrangements": arrangements(len(sites))}
    return entry, callees, parts


def arrangements(nsites: int) -> list[str]:
    return ["random", "compact"] + ([f"compact_site{s}" for s in range(nsites)] if nsites == 2 else [])


def generate(seed: int, n: int) -> tuple[str, dict]:
    """(gen.cu text, manifest)."""
    rng = random.Random(seed)
    lines: list[str] = HEADER.replace("@SEED@", str(seed)).replace("@VERSION@", VERSION).splitlines()
    kernels = []
    for i in range(n):
        entry, callees, parts = kernel(rng, i)
        name = entry["name"]
        ranges: dict[int, list[list[int]]] = {s: [] for s in range(len(entry["sites"]))}
        lines.append("")
        lines.append(f"// ---- {name}: {', '.join(s['kind'] for s in entry['sites'])}")
        for s, callee in callees:
            if callee:
                start = len(lines) + 1
                lines += callee
                ranges[s].append([start, len(lines)])
        lines.append(f"__device__ __forceinline__ unsigned {name}_item(const GenArgs& a, int item) {{")
        lines.append("  unsigned h = a.seeds[item];")
        lines.append("  float x = __uint_as_float((h & 0x007fffffu) | 0x3f800000u);")
        for s in range(len(entry["sites"])):
            lines.append(f"  const int k{s} = a.keys[{s} * a.n + item];")
        for s, code in parts:
            lines.append(f"  // site {s}: {entry['sites'][s]['kind']}")
            start = len(lines) + 1
            lines += _indent(code)
            ranges[s].append([start, len(lines)])
        lines.append("  return h ^ __float_as_uint(x);")
        lines.append("}")
        lines += KERNEL.replace("@NAME@", name).splitlines()
        for s, site_entry in enumerate(entry["sites"]):
            site_entry["lines"] = ranges[s]
        kernels.append(entry)
    # The host's table: name, entry point, per site the key's weights.
    lines.append("")
    lines.append("// ---- the host's table of kernels (per site: the key's values and their weights)")
    for k in kernels:
        for s in k["sites"]:
            lines.append(f"static const float {k['name']}_w{s['site']}[] = {{"
                         f"{', '.join(_f(w) + 'f' for w in s['key_weights'])}}};")
    lines.append("static const GenKernel kGenKernels[] = {")
    for k in kernels:
        sites = ", ".join(f"{{{s['key_values']}, {k['name']}_w{s['site']}}}" for s in k["sites"])
        lines.append(f"    {{\"{k['name']}\", {k['name']}, {len(k['sites'])}, {{{sites}}}}},")
    lines.append("};")
    lines += HOST.splitlines()
    manifest = {"schema": SCHEMA, "generator": "divbench.generated_corpus", "generator_version": VERSION,
                "seed": seed, "kernels_count": n, "items_per_thread": ITEMS_PER_THREAD, "waves": WAVES,
                "occupancies": list(OCCUPANCIES), "source": "gen.cu", "feature_kinds": list(FEATURES),
                "kernels": kernels}
    return "\n".join(lines) + "\n", manifest


HEADER = r"""// Generated by divbench.generated_corpus (seed @SEED@, generator version @VERSION@): do not edit.
// Random divergent kernels and their host driver (scripts/divbench/generated_corpus.py says how):
//   gen measure --out FILE.json [--reps N]   every kernel at 1, 8, 16, 32 warps per SM, every arrangement
//   gen attribute --warps-per-sm W          every kernel once, random arrangement (what divbench attribute runs)
//   gen ncu --warps-per-sm W                the same launches, for Nsight Compute
// Each item's result depends on the item alone: every arrangement must give the same outputs bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct GenArgs {
  const int* perm;       // perm[m * total_threads + thread]: the item of iteration m
  const int* keys;       // keys[site * n + item]: what decides the item's path at the site
  const unsigned* seeds; // seeds[item]: the item's starting state
  unsigned* out;         // out[item]
  const unsigned* l1;    // gather arrays: 16 KB, 8 MB, 512 MB
  const unsigned* l2;
  const unsigned* dram;
  unsigned* sink;        // global atomics' target (never read back)
  unsigned long long* warp_cycles;  // sum over warps of each warp's clock64() span
  int n;                 // items
  int ipt;               // items per thread
};

typedef unsigned (*GenFn)(unsigned);
struct GenSite { int values; const float* weights; };  // a site's key: values 0..values-1 and their weights
struct GenKernel { const char* name; void (*fn)(GenArgs); int nsites; GenSite sites[3]; };
extern __shared__ unsigned gen_smem[];  // the dynamic shared memory that pins one block per SM
"""

# One kernel body for timing and counting: the clock64() reads and the one atomic per warp are always
# there (the kernel measure times is the kernel whose warp-cycles it sums, and the one attribute counts).
KERNEL = r"""extern "C" __global__ void __launch_bounds__(1024, 1) @NAME@(GenArgs a) {
  const long long t0 = clock64();
  const int threads = gridDim.x * blockDim.x;
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  for (int m = 0; m < a.ipt; ++m) {
    const int item = a.perm[m * threads + thread];
    a.out[item] = @NAME@_item(a, item);
  }
  __syncwarp();
  const long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) atomicAdd(a.warp_cycles, (unsigned long long)(t1 - t0));
}"""

HOST = r"""
// ---- host driver
namespace {

constexpr int kItemsPerThread = 4;
constexpr int kWaves = 4;
const int kOccupancies[] = {1, 8, 16, 32};
constexpr size_t kL1Words = size_t(1) << 12, kL2Words = size_t(1) << 21, kDramWords = size_t(1) << 27;

[[noreturn]] void die(const char* what, cudaError_t e, int line) {
  std::fprintf(stderr, "gen: %s failed: %s (line %d)\n", what, cudaGetErrorString(e), line);
  std::exit(1);
}
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) die(#call, e_, __LINE__); } while (0)

uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

struct Device {
  int sms = 0, clock_khz = 0, smem_sm = 0, smem_optin = 0, major = 0, minor = 0;
  std::string name;
  int dyn = 0;  // dynamic shared memory per block: more than half an SM's, so one block per SM
};

struct Buffers {
  int* perm = nullptr; int* keys = nullptr; unsigned* seeds = nullptr; unsigned* out = nullptr;
  unsigned *l1 = nullptr, *l2 = nullptr, *dram = nullptr, *sink = nullptr;
  unsigned long long* cycles = nullptr;
  size_t cap = 0;
};

Device device() {
  Device d;
  int dev = 0;
  CK(cudaGetDevice(&dev));
  // The recursion sites' call depth is data (up to MAX_RECURSION frames), which ptxas cannot bound; the first
  // run on the H200 faulted in a recursive kernel with the default stack (1 KiB a thread). 16 KiB a thread.
  CK(cudaDeviceSetLimit(cudaLimitStackSize, 16 * 1024));
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, dev));
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  CK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, dev));
  CK(cudaDeviceGetAttribute(&d.smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  CK(cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  d.dyn = std::min(d.smem_optin, d.smem_sm / 2 + 8 * 1024);
  return d;
}

void alloc(Buffers& b, size_t items, int sites_max) {
  CK(cudaMalloc(&b.perm, items * sizeof(int)));
  CK(cudaMalloc(&b.keys, items * sites_max * sizeof(int)));
  CK(cudaMalloc(&b.seeds, items * sizeof(unsigned)));
  CK(cudaMalloc(&b.out, items * sizeof(unsigned)));
  CK(cudaMalloc(&b.l1, kL1Words * sizeof(unsigned)));
  CK(cudaMalloc(&b.l2, kL2Words * sizeof(unsigned)));
  CK(cudaMalloc(&b.dram, kDramWords * sizeof(unsigned)));
  CK(cudaMalloc(&b.sink, 4096 * sizeof(unsigned)));
  CK(cudaMalloc(&b.cycles, sizeof(unsigned long long)));
  // Constant contents: a gather's next index comes from the state it updates, so the loads stay dependent.
  CK(cudaMemset(b.l1, 0x3c, kL1Words * sizeof(unsigned)));
  CK(cudaMemset(b.l2, 0x5a, kL2Words * sizeof(unsigned)));
  CK(cudaMemset(b.dram, 0xa7, kDramWords * sizeof(unsigned)));
  CK(cudaMemset(b.sink, 0, 4096 * sizeof(unsigned)));
  b.cap = items;
}

// The launch of kernel k at w warps per SM.
struct Shape { int w, threads, blocks; size_t total, items; };
Shape shape(const Device& d, int w) {
  Shape s{w, 32 * w, kWaves * d.sms, 0, 0};
  s.total = size_t(s.threads) * s.blocks;
  s.items = s.total * kItemsPerThread;
  return s;
}

// Keys and seeds of the first `items` items of kernel k (the same items at every occupancy).
void make_items(int k, const GenKernel& g, size_t items, std::vector<int>& keys, std::vector<unsigned>& seeds) {
  keys.assign(items * g.nsites, 0);
  seeds.resize(items);
  for (int s = 0; s < g.nsites; ++s) {
    std::vector<double> cdf(g.sites[s].values);
    double acc = 0;
    for (int v = 0; v < g.sites[s].values; ++v) cdf[v] = acc += g.sites[s].weights[v];
    for (size_t i = 0; i < items; ++i) {
      const double u = double(splitmix((uint64_t(k) << 40) ^ (uint64_t(s + 1) << 32) ^ i) >> 11) * 0x1.0p-53 * acc;
      int v = int(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
      keys[s * items + i] = std::min(v, g.sites[s].values - 1);
    }
  }
  for (size_t i = 0; i < items; ++i) seeds[i] = unsigned(splitmix((uint64_t(k) << 40) ^ (uint64_t(0xFF) << 32) ^ i));
}

// The random arrangement: a fixed permutation (Fisher-Yates on splitmix).
std::vector<int> random_order(int k, int w, size_t items) {
  std::vector<int> p(items);
  for (size_t i = 0; i < items; ++i) p[i] = int(i);
  uint64_t st = (uint64_t(k) << 32) ^ uint64_t(w) ^ 0x5eedull;
  for (size_t i = items - 1; i > 0; --i) {
    st = splitmix(st);
    std::swap(p[i], p[st % (i + 1)]);
  }
  return p;
}

// compact: the random order stably sorted by the path key of `sites` (all, or one site), cut into groups
// of 32, group g dealt to iteration m = g / warps and warp r = g % warps, every other iteration in
// reverse (a serpentine): each warp gets one group from every stretch of the sorted order, as in random
// order it gets items of every kind, so no warp gets more work.
std::vector<int> compact_order(const std::vector<int>& random, const GenKernel& g, const std::vector<int>& keys,
                               size_t items, int only_site, size_t threads) {
  std::vector<long> key(items, 0);
  long mult = 1, buckets = 1;
  for (int s = 0; s < g.nsites; ++s) {
    if (only_site >= 0 && s != only_site) continue;
    for (size_t i = 0; i < items; ++i) key[i] += mult * keys[s * items + i];
    mult *= g.sites[s].values;
  }
  buckets = mult;
  std::vector<size_t> start(buckets + 1, 0);
  for (size_t i = 0; i < items; ++i) ++start[key[random[i]] + 1];
  for (long b = 0; b < buckets; ++b) start[b + 1] += start[b];
  std::vector<int> sorted(items);
  for (size_t i = 0; i < items; ++i) sorted[start[key[random[i]]]++] = random[i];
  const size_t warps = threads / 32, groups = items / 32;
  std::vector<int> perm(items);
  for (size_t gi = 0; gi < groups; ++gi) {
    const size_t m = gi / warps, r = gi % warps, warp = (m % 2 == 0) ? r : warps - 1 - r;
    for (int lane = 0; lane < 32; ++lane) perm[m * threads + warp * 32 + lane] = sorted[gi * 32 + lane];
  }
  return perm;
}

GenArgs args(const Buffers& b, size_t items) {
  return GenArgs{b.perm, b.keys, b.seeds, b.out, b.l1, b.l2, b.dram, b.sink, b.cycles, int(items), kItemsPerThread};
}

struct Occupancy { int blocks_per_sm = 0; bool ok = false; };
Occupancy pin(const Device& d, const GenKernel& g, int w) {
  CK(cudaFuncSetAttribute(reinterpret_cast<const void*>(g.fn), cudaFuncAttributeMaxDynamicSharedMemorySize, d.dyn));
  Occupancy o;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_sm, g.fn, 32 * w, d.dyn));
  o.ok = o.blocks_per_sm == 1;
  return o;
}

void launch(const GenKernel& g, const Shape& s, const Device& d, const GenArgs& a) {
  g.fn<<<s.blocks, s.threads, d.dyn>>>(a);
  CK(cudaGetLastError());
}

void upload(Buffers& b, const std::vector<int>& keys, const std::vector<unsigned>& seeds) {
  CK(cudaMemcpy(b.keys, keys.data(), keys.size() * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b.seeds, seeds.data(), seeds.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
}

int usage(const char* msg) {
  std::fprintf(stderr, "gen: %s (usage: gen measure --out FILE.json [--reps N] | gen attribute --warps-per-sm W | "
                       "gen ncu --warps-per-sm W)\n", msg);
  return 2;
}

size_t sites_max() {
  int m = 1;
  for (const auto& g : kGenKernels) m = std::max(m, g.nsites);
  return size_t(m);
}

// attribute / ncu: every kernel once at w warps per SM, random arrangement, nothing launched before.
int run_once(int w) {
  const Device d = device();
  const size_t n = sizeof(kGenKernels) / sizeof(kGenKernels[0]);
  Buffers b;
  const Shape s = shape(d, w);
  alloc(b, s.items, int(sites_max()));
  std::vector<int> keys;
  std::vector<unsigned> seeds;
  for (size_t k = 0; k < n; ++k) {
    const GenKernel& g = kGenKernels[k];
    const Occupancy o = pin(d, g, w);
    if (!o.ok) std::fprintf(stderr, "gen: %s: %d blocks per SM at %d warps per SM, not 1\n", g.name, o.blocks_per_sm, w);
    if (o.blocks_per_sm == 0) continue;
    make_items(int(k), g, s.items, keys, seeds);
    upload(b, keys, seeds);
    const std::vector<int> p = random_order(int(k), w, s.items);
    CK(cudaMemcpy(b.perm, p.data(), p.size() * sizeof(int), cudaMemcpyHostToDevice));
    launch(g, s, d, args(b, s.items));
    CK(cudaDeviceSynchronize());
  }
  std::fprintf(stderr, "gen: %zu kernels launched at %d warps per SM\n", n, w);
  return 0;
}

void json_list(FILE* f, const std::vector<double>& v, const char* fmt) {
  std::fputc('[', f);
  for (size_t i = 0; i < v.size(); ++i) { if (i) std::fputs(", ", f); std::fprintf(f, fmt, v[i]); }
  std::fputc(']', f);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

int measure(const std::string& path, int reps) {
  const Device d = device();
  const size_t n = sizeof(kGenKernels) / sizeof(kGenKernels[0]);
  Buffers b;
  const Shape big = shape(d, 32);
  alloc(b, big.items, int(sites_max()));
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) { std::fprintf(stderr, "gen: cannot write %s\n", tmp.c_str()); return 1; }
  std::fprintf(f, "{\"schema\": \"divbench.generated_measure/1\",\n \"device\": {\"name\": \"%s\", \"cc\": \"%d.%d\", "
               "\"sm_count\": %d, \"clock_khz\": %d, \"shared_memory_per_sm\": %d, \"shared_memory_per_block_optin\": %d},\n"
               " \"items_per_thread\": %d, \"waves\": %d, \"reps\": %d, \"dynamic_shared_bytes\": %d,\n"
               " \"timing\": \"cudaEvent around each launch, one warm-up launch first; summed_warp_cycles: every warp's lane 0 "
               "adds its clock64() span, the same kernel binary\",\n \"kernels\": [\n",
               d.name.c_str(), d.major, d.minor, d.sms, d.clock_khz, d.smem_sm, d.smem_optin, kItemsPerThread, kWaves, reps, d.dyn);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<int> keys;
  std::vector<unsigned> seeds, ref, got;
  std::vector<std::string> mismatched;
  for (size_t k = 0; k < n; ++k) {
    const GenKernel& g = kGenKernels[k];
    bool kernel_ok = true;
    std::string bad;
    std::fprintf(f, "  %s{\"name\": \"%s\", \"sites\": %d, \"occupancies\": [\n", k ? "," : "", g.name, g.nsites);
    for (int oi = 0; oi < 4; ++oi) {
      const int w = kOccupancies[oi];
      const Shape s = shape(d, w);
      const Occupancy o = pin(d, g, w);
      std::fprintf(f, "    %s{\"warps_per_sm\": %d, \"block_threads\": %d, \"blocks\": %d, \"items\": %zu, "
                   "\"occupancy\": {\"blocks_per_sm\": %d, \"achieved_warps_per_sm\": %d, \"ok\": %s}, \"arrangements\": {",
                   oi ? "," : "", w, s.threads, s.blocks, s.items, o.blocks_per_sm, o.blocks_per_sm * w, o.ok ? "true" : "false");
      if (o.blocks_per_sm == 0) { std::fputs("}}\n", f); continue; }
      make_items(int(k), g, s.items, keys, seeds);
      upload(b, keys, seeds);
      const std::vector<int> rnd = random_order(int(k), w, s.items);
      std::vector<std::pair<std::string, std::vector<int>>> arr;
      arr.push_back({"random", rnd});
      arr.push_back({"compact", compact_order(rnd, g, keys, s.items, -1, s.total)});
      if (g.nsites == 2)
        for (int site = 0; site < 2; ++site)
          arr.push_back({"compact_site" + std::to_string(site), compact_order(rnd, g, keys, s.items, site, s.total)});
      const GenArgs a = args(b, s.items);
      for (size_t ai = 0; ai < arr.size(); ++ai) {
        CK(cudaMemcpy(b.perm, arr[ai].second.data(), s.items * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemset(b.out, 0xEE, s.items * sizeof(unsigned)));
        launch(g, s, d, a);  // warm-up
        CK(cudaDeviceSynchronize());
        std::vector<double> times, cycles;
        for (int r = 0; r < reps; ++r) {
          CK(cudaMemset(b.cycles, 0, sizeof(unsigned long long)));
          CK(cudaEventRecord(e0));
          launch(g, s, d, a);
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float ms = 0;
          CK(cudaEventElapsedTime(&ms, e0, e1));
          unsigned long long c = 0;
          CK(cudaMemcpy(&c, b.cycles, sizeof c, cudaMemcpyDeviceToHost));
          times.push_back(ms);
          cycles.push_back(double(c));
        }
        got.resize(s.items);
        CK(cudaMemcpy(got.data(), b.out, s.items * sizeof(unsigned), cudaMemcpyDeviceToHost));
        bool same = true;
        if (ai == 0) ref = got;
        else same = std::memcmp(ref.data(), got.data(), s.items * sizeof(unsigned)) == 0;
        if (!same) { kernel_ok = false; bad = arr[ai].first + " at " + std::to_string(w) + " warps per SM"; }
        std::fprintf(f, "%s\"%s\": {\"times_ms\": ", ai ? ", " : "", arr[ai].first.c_str());
        json_list(f, times, "%.6f");
        std::fprintf(f, ", \"median_ms\": %.6f, \"summed_warp_cycles\": ", median(times));
        json_list(f, cycles, "%.0f");
        std::fprintf(f, ", \"summed_warp_cycles_median\": %.1f, \"outputs_match_random\": %s}", median(cycles), same ? "true" : "false");
      }
      std::fputs("}}\n", f);
    }
    std::fprintf(f, "  ], \"outputs_match\": %s}\n", kernel_ok ? "true" : "false");
    if (!kernel_ok) {
      mismatched.push_back(g.name);
      std::fprintf(stderr, "gen: %s: per-item outputs differ from the random arrangement's (%s)\n", g.name, bad.c_str());
    }
    std::fprintf(stderr, "gen: measured %s (%zu of %zu)\n", g.name, k + 1, n);
  }
  std::fprintf(f, " ],\n \"outputs_mismatched\": [");
  for (size_t i = 0; i < mismatched.size(); ++i) std::fprintf(f, "%s\"%s\"", i ? ", " : "", mismatched[i].c_str());
  std::fputs("]}\n", f);
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::fprintf(stderr, "gen: cannot write %s\n", path.c_str());
    return 1;
  }
  if (!mismatched.empty()) {
    std::fprintf(stderr, "gen: %zu kernel(s) with outputs that depend on the arrangement, first %s\n", mismatched.size(),
                 mismatched[0].c_str());
    return 1;
  }
  return 0;
}

bool parse_int(const char* s, int lo, int hi, int& v) {
  char* end = nullptr;
  const long x = std::strtol(s, &end, 10);
  if (!*s || *end || x < lo || x > hi) return false;
  v = int(x);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("no mode");
  const std::string mode = argv[1];
  if (mode == "measure") {
    std::string out;
    int reps = 7;
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--out" && i + 1 < argc) out = argv[++i];
      else if (a == "--reps" && i + 1 < argc) { if (!parse_int(argv[++i], 5, 1001, reps)) return usage("--reps takes 5..1001"); }
      else return usage(("unknown argument " + a).c_str());
    }
    if (out.empty()) return usage("measure needs --out FILE.json");
    return measure(out, reps);
  }
  if (mode == "attribute" || mode == "ncu") {
    int w = 0;
    if (argc != 4 || std::string(argv[2]) != "--warps-per-sm" || !parse_int(argv[3], 1, 32, w))
      return usage((mode + " takes --warps-per-sm W (1..32)").c_str());
    return run_once(w);
  }
  return usage(("unknown mode " + mode).c_str());
}
"""


def write(seed: int, n: int, out: Path) -> dict:
    text, manifest = generate(seed, n)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gen.cu").write_text(text)
    write_json(out / "manifest.json", manifest)
    return manifest


@tool_main("generated_corpus")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="generated_corpus", description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--kernels", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if not 1 <= args.kernels <= 999:
        raise InputError(f"--kernels {args.kernels}: 1..999")
    if args.seed < 0:
        raise InputError(f"--seed {args.seed}: not negative")
    manifest = write(args.seed, args.kernels, args.out)
    print(f"generated_corpus: {len(manifest['kernels'])} kernels (seed {args.seed}) in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
