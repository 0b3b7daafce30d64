// Programs people write, each with the fix a developer would apply (issue 47 item 4): `divbench attribute`
// predicts the time a kernel would save without its divergence; the fix's measured gain checks it
// (scripts/gpu/54-attribute-fixes.sh, judged by scripts/divbench/attribute_fixes.py).
//   usage: divbench_attribute_fixes MODE VARIANT [--time] [--reps N]
// VARIANT is `before` (the code as written) or one of the mode's fixes (`after` and, where a second fix is
// common, `after_<name>`). Without --time: one run of the variant (what `divbench attribute` runs); with it: a
// warm-up run, then N (default 9, at least 7) timed runs; each run's time is the sum of cudaEvent timings of the
// kernels the fix changes (named below; extern "C", so the attribute document names them the same), and one JSON
// line {"target", "mode", "variant", "kernels", "reps", "median_ms", "times_ms", ...} is printed once the result
// checked. Every mode generates its inputs from a fixed seed; `before` and every fix compute the same result,
// checked on the host against one reference (exactly, or where a fix reorders float sums within the tolerance
// named at the check; a mismatch exits 1 naming the mode). Every loop is bounded.
//   mode        timed kernel(s)                 fixes (fix_changes_work: the fix changes the work, not only its order)
//   bfs         bfs_<variant> (every level)     after: vertices relabelled by degree (degree-sorted);
//                                               after_warp: a warp per frontier vertex (changes the work's mapping)
//   spmv        spmv_<variant>                  after: vector CSR, a warp per row (changes); after_sorted: rows by length
//   mandelbrot  mandelbrot_<variant>            after: pixels binned by a coarse escape estimate (same pixels)
//   nbody       nbody_<variant>                 after: bodies sorted spatially (Morton order of cells)
//   nw          nw_<variant>                    after: 32-row strips swept whole instead of Rodinia's 32x32 tiles
//                                               (the same cells; the idle lanes of each tile's diagonal ramp go)
//   resample    resample_<variant>              after: binary search (changes the algorithm); after_sorted: the
//                                               particles' draws sorted (the same linear scans, grouped)
//   histogram   histogram_<variant>             after: warp-aggregated atomics (changes); after_sorted: records
//                                               partitioned by the filter (the same records)
//   segsort     segsort_<variant>               after: segments in order of length (the same insertion sorts)
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"

namespace {

using divbench::DeviceBuffer;
constexpr unsigned kFull = 0xffffffffu;
constexpr std::uint32_t kSeed = 47;  // issue 47: every input is drawn from this seed

struct Opts {
  bool time = false;
  int reps = 9;
};

int mismatch(const char* mode, const std::string& variant, const char* what, long at) {
  std::fprintf(stderr, "fixes %s %s: %s wrong at %ld\n", mode, variant.c_str(), what, at);
  return 1;
}

template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& h) {
  return DeviceBuffer<T>(h);
}

// Float arithmetic that neither side contracts into a fused multiply-add: device and host round alike, so
// the host reference is bit-exact.
__host__ __device__ inline float mul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
__host__ __device__ inline float add(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

// cudaEvent timing of the launches a fix changes: start()/stop() around each, take_ms() sums one run's.
class KernelTimer {
 public:
  explicit KernelTimer(bool on) : on_(on) {}
  ~KernelTimer() {
    for (auto& e : events_) {
      cudaEventDestroy(e.first);
      cudaEventDestroy(e.second);
    }
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  void start() {
    if (!on_) return;
    if (used_ == events_.size()) {
      cudaEvent_t a, b;
      DIVBENCH_CUDA_CHECK(cudaEventCreate(&a));
      DIVBENCH_CUDA_CHECK(cudaEventCreate(&b));
      events_.emplace_back(a, b);
    }
    DIVBENCH_CUDA_CHECK(cudaEventRecord(events_[used_].first));
  }
  void stop() {
    if (!on_) return;
    DIVBENCH_CUDA_CHECK(cudaEventRecord(events_[used_].second));
    ++used_;
  }
  double take_ms() {
    double total = 0;
    for (std::size_t i = 0; i < used_; ++i) {
      DIVBENCH_CUDA_CHECK(cudaEventSynchronize(events_[i].second));
      float ms = 0;
      DIVBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i].first, events_[i].second));
      total += ms;
    }
    used_ = 0;
    return total;
  }

 private:
  bool on_;
  std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events_;
  std::size_t used_ = 0;
};

// One run without --time; with it a warm-up run and opts.reps timed ones. Returns the times (ms).
std::vector<double> measure(const Opts& opts, const std::function<void(KernelTimer&)>& once) {
  KernelTimer timer(opts.time);
  once(timer);
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> times;
  if (!opts.time) return times;
  timer.take_ms();  // the warm-up's
  for (int r = 0; r < opts.reps; ++r) {
    once(timer);
    times.push_back(timer.take_ms());
  }
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return times;
}

void report(const char* mode, const std::string& variant, const std::string& kernel, const Opts& opts,
            const std::vector<double>& times) {
  std::printf("{\"target\": \"fixes\", \"mode\": \"%s\", \"variant\": \"%s\", \"kernels\": [\"%s\"], \"check\": \"ok\"",
              mode, variant.c_str(), kernel.c_str());
  if (opts.time && !times.empty()) {
    std::vector<double> s = times;
    std::sort(s.begin(), s.end());
    const std::size_t n = s.size();
    const double median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    std::printf(", \"reps\": %zu, \"warmup\": 1, \"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, \"times_ms\": [", n,
                median, s.front(), s.back());
    for (std::size_t i = 0; i < times.size(); ++i) std::printf("%s%.6f", i ? ", " : "", times[i]);
    std::printf("]");
  }
  std::printf("}\n");
  std::fflush(stdout);
}

int blocks_for(long n, int threads) { return int((n + threads - 1) / threads); }

// Pareto-distributed lengths (x_m, alpha), capped: the skewed degrees and row lengths of real graphs and matrices.
std::vector<int> pareto_lengths(std::mt19937& rng, long n, double xm, double alpha, int cap) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<int> len(n);
  for (auto& l : len) l = int(std::min<double>(cap, std::floor(xm * std::pow(1.0 - u(rng), -1.0 / alpha))));
  return len;
}

std::vector<int> offsets_of(const std::vector<int>& len) {
  std::vector<int> off(len.size() + 1, 0);
  for (std::size_t i = 0; i < len.size(); ++i) off[i + 1] = off[i] + len[i];
  return off;
}

// Indices 0..n-1 ordered by key descending, ties by index (a stable, deterministic order).
std::vector<int> order_by_desc(const std::vector<int>& key) {
  std::vector<int> order(key.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] > key[b]; });
  return order;
}

// === bfs: level-synchronous BFS, a thread per frontier vertex (frontier compacted in vertex order) ===========
__device__ inline void expand_vertex(const int* row, const int* col, int* dist, int v, int next) {
  const int end = row[v + 1];
  for (int e = row[v]; e < end; ++e) {  // the degree: skewed, so a warp waits on its largest
    const int u = col[e];
    if (dist[u] == INT_MAX) dist[u] = next;  // every writer writes the same level
  }
}
extern "C" __global__ void bfs_before(const int* row, const int* col, int* dist, const int* frontier, int count, int next) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) expand_vertex(row, col, dist, frontier[i], next);
}
// The same code on the graph relabelled by degree: a warp's frontier vertices have similar degrees.
extern "C" __global__ void bfs_after(const int* row, const int* col, int* dist, const int* frontier, int count, int next) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) expand_vertex(row, col, dist, frontier[i], next);
}
// A warp per frontier vertex, its lanes striding over the edges (the original labelling).
extern "C" __global__ void bfs_after_warp(const int* row, const int* col, int* dist, const int* frontier, int count,
                                          int next) {
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (w >= count) return;
  const int v = frontier[w], end = row[v + 1];
  for (int e = row[v] + lane; e < end; e += 32) {
    const int u = col[e];
    if (dist[u] == INT_MAX) dist[u] = next;
  }
}
struct AtLevel {
  const int* dist;
  int level;
  __host__ __device__ bool operator()(int v) const { return dist[v] == level; }
};

int run_bfs(const std::string& variant, const Opts& opts) {
  const int n = 1 << 20;
  std::mt19937 rng(kSeed);
  const std::vector<int> degree = pareto_lengths(rng, n, 2.0, 1.3, 2048);
  std::vector<int> row = offsets_of(degree), col(row[n]);
  std::uniform_int_distribution<int> target(0, n - 1);
  for (auto& c : col) c = target(rng);
  const int source = 0;
  // The host reference: BFS levels from the source.
  std::vector<int> ref(n, INT_MAX), queue;
  queue.reserve(n);
  ref[source] = 0;
  queue.push_back(source);
  for (std::size_t h = 0; h < queue.size(); ++h)
    for (int e = row[queue[h]]; e < row[queue[h] + 1]; ++e)
      if (ref[col[e]] == INT_MAX) ref[col[e]] = ref[queue[h]] + 1, queue.push_back(col[e]);
  // after: relabel by degree, descending (new id of old vertex old_of_new[v] is v).
  std::vector<int> new_of_old(n);
  std::iota(new_of_old.begin(), new_of_old.end(), 0);
  if (variant == "after") {
    const std::vector<int> old_of_new = order_by_desc(degree);
    for (int v = 0; v < n; ++v) new_of_old[old_of_new[v]] = v;
    std::vector<int> row2(n + 1, 0), col2(col.size());
    for (int v = 0; v < n; ++v) row2[v + 1] = row2[v] + degree[old_of_new[v]];
    for (int v = 0; v < n; ++v) {
      const int o = old_of_new[v];
      for (int k = 0; k < degree[o]; ++k) col2[row2[v] + k] = new_of_old[col[row[o] + k]];
    }
    row.swap(row2);
    col.swap(col2);
  }
  auto drow = to_device(row), dcol = to_device(col);
  DeviceBuffer<int> dist(n), frontier(n), count(1);
  std::size_t temp_bytes = 0;
  AtLevel pred{dist.get(), 0};
  DIVBENCH_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, thrust::counting_iterator<int>(0), frontier.get(),
                                            count.get(), n, pred));
  DeviceBuffer<char> temp(temp_bytes);
  const int src = new_of_old[source];
  auto once = [&](KernelTimer& timer) {
    const std::vector<int> start = {src};
    DIVBENCH_CUDA_CHECK(cudaMemcpy(frontier.get(), start.data(), sizeof(int), cudaMemcpyHostToDevice));
    std::vector<int> init(n, INT_MAX);
    init[src] = 0;
    DIVBENCH_CUDA_CHECK(cudaMemcpy(dist.get(), init.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int frontier_size = 1;
    for (int level = 0; frontier_size > 0 && level < n; ++level) {
      timer.start();
      if (variant == "before") {
        bfs_before<<<blocks_for(frontier_size, 256), 256>>>(drow.get(), dcol.get(), dist.get(), frontier.get(), frontier_size, level + 1);
        divbench::check_launch("bfs_before");
      } else if (variant == "after") {
        bfs_after<<<blocks_for(frontier_size, 256), 256>>>(drow.get(), dcol.get(), dist.get(), frontier.get(), frontier_size, level + 1);
        divbench::check_launch("bfs_after");
      } else {
        bfs_after_warp<<<blocks_for(32L * frontier_size, 256), 256>>>(drow.get(), dcol.get(), dist.get(), frontier.get(),
                                                                       frontier_size, level + 1);
        divbench::check_launch("bfs_after_warp");
      }
      timer.stop();
      std::size_t bytes = temp_bytes;
      DIVBENCH_CUDA_CHECK(cub::DeviceSelect::If(temp.get(), bytes, thrust::counting_iterator<int>(0), frontier.get(),
                                                count.get(), n, AtLevel{dist.get(), level + 1}));
      DIVBENCH_CUDA_CHECK(cudaMemcpy(&frontier_size, count.get(), sizeof(int), cudaMemcpyDeviceToHost));
    }
  };
  const auto times = measure(opts, once);
  const auto got = dist.download();
  for (int v = 0; v < n; ++v)
    if (got[new_of_old[v]] != ref[v]) return mismatch("bfs", variant, "level", v);
  report("bfs", variant, "bfs_" + variant, opts, times);
  return 0;
}

// === spmv: CSR y = A x with skewed row lengths =================================================================
extern "C" __global__ void spmv_before(const int* row, const int* col, const float* val, const float* x, float* y, int n) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;  // scalar CSR: a thread per row
  if (r >= n) return;
  float sum = 0;
  for (int e = row[r]; e < row[r + 1]; ++e) sum += val[e] * x[col[e]];
  y[r] = sum;
}
extern "C" __global__ void spmv_after(const int* row, const int* col, const float* val, const float* x, float* y, int n) {
  const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;  // vector CSR: a warp per row
  if (r >= n) return;
  float sum = 0;
  for (int e = row[r] + lane; e < row[r + 1]; e += 32) sum += val[e] * x[col[e]];
  for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(kFull, sum, o);
  if (lane == 0) y[r] = sum;
}
extern "C" __global__ void spmv_after_sorted(const int* row, const int* col, const float* val, const float* x, float* y,
                                             const int* order, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // scalar CSR over the rows in order of length
  if (i >= n) return;
  const int r = order[i];
  float sum = 0;
  for (int e = row[r]; e < row[r + 1]; ++e) sum += val[e] * x[col[e]];
  y[r] = sum;
}

int run_spmv(const std::string& variant, const Opts& opts) {
  const int n = 1 << 21;
  std::mt19937 rng(kSeed + 1);
  const std::vector<int> len = pareto_lengths(rng, n, 2.0, 1.3, 2048);
  const std::vector<int> row = offsets_of(len);
  std::vector<int> col(row[n]);
  std::vector<float> val(row[n]), x(n);
  std::uniform_int_distribution<int> c(0, n - 1), v(1, 4), xv(0, 3);
  for (std::size_t e = 0; e < col.size(); ++e) col[e] = c(rng), val[e] = float(v(rng));
  for (auto& xi : x) xi = float(xv(rng));
  // Small integers: every partial sum is exact in float (below 2^24), whatever the order: checked exactly.
  std::vector<float> ref(n);
  for (int r = 0; r < n; ++r) {
    double s = 0;
    for (int e = row[r]; e < row[r + 1]; ++e) s += double(val[e]) * x[col[e]];
    ref[r] = float(s);
  }
  const std::vector<int> order = order_by_desc(len);
  auto drow = to_device(row), dcol = to_device(col), dorder = to_device(order);
  auto dval = to_device(val), dx = to_device(x);
  DeviceBuffer<float> y(n);
  auto once = [&](KernelTimer& timer) {
    y.fill_bytes(0xff);
    timer.start();
    if (variant == "before") {
      spmv_before<<<blocks_for(n, 256), 256>>>(drow.get(), dcol.get(), dval.get(), dx.get(), y.get(), n);
      divbench::check_launch("spmv_before");
    } else if (variant == "after") {
      spmv_after<<<blocks_for(32L * n, 256), 256>>>(drow.get(), dcol.get(), dval.get(), dx.get(), y.get(), n);
      divbench::check_launch("spmv_after");
    } else {
      spmv_after_sorted<<<blocks_for(n, 256), 256>>>(drow.get(), dcol.get(), dval.get(), dx.get(), y.get(), dorder.get(), n);
      divbench::check_launch("spmv_after_sorted");
    }
    timer.stop();
  };
  const auto times = measure(opts, once);
  const auto got = y.download();
  for (int r = 0; r < n; ++r)
    if (got[r] != ref[r]) return mismatch("spmv", variant, "y", r);
  report("spmv", variant, "spmv_" + variant, opts, times);
  return 0;
}

// === mandelbrot: escape time, max_iter iterations at most =======================================================
constexpr int kMandelW = 2048, kMandelH = 2048, kMaxIter = 1000;
__host__ __device__ inline int escape(int p) {
  const float cx = -2.0f + 3.0f * float(p % kMandelW) / float(kMandelW);
  const float cy = -1.5f + 3.0f * float(p / kMandelW) / float(kMandelH);
  float x = 0, y = 0;
  int i = 0;
  for (; i < kMaxIter; ++i) {
    const float xx = mul(x, x), yy = mul(y, y);
    if (add(xx, yy) > 4.0f) break;
    const float xy = mul(x, y);
    y = add(add(xy, xy), cy);
    x = add(add(xx, -yy), cx);
  }
  return i;
}
extern "C" __global__ void mandelbrot_before(int* out) {  // 16x16 blocks of pixels, as the CUDA samples tile it
  const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < kMandelW && py < kMandelH) out[py * kMandelW + px] = escape(py * kMandelW + px);
}
extern "C" __global__ void mandelbrot_after(int* out, const int* order, int n) {  // pixels binned by estimate
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[order[i]] = escape(order[i]);
}

int run_mandelbrot(const std::string& variant, const Opts& opts) {
  const int n = kMandelW * kMandelH, tile = 8;
  // The binning's cheap estimate: the escape count at each 8x8 tile's centre pixel (1/64 of the work, on the
  // host, untimed); pixels ordered by their tile's estimate, a tile's pixels kept together.
  std::vector<int> key(n);
  for (int ty = 0; ty < kMandelH / tile; ++ty)
    for (int tx = 0; tx < kMandelW / tile; ++tx) {
      const int est = escape((ty * tile + tile / 2) * kMandelW + tx * tile + tile / 2);
      for (int y = 0; y < tile; ++y)
        for (int x = 0; x < tile; ++x) key[(ty * tile + y) * kMandelW + tx * tile + x] = est * 65536 + ty * (kMandelW / tile) + tx;
    }
  std::vector<int> order = order_by_desc(key);
  auto dorder = to_device(order);
  DeviceBuffer<int> out(n);
  auto once = [&](KernelTimer& timer) {
    out.fill_bytes(0xff);
    timer.start();
    if (variant == "before") {
      mandelbrot_before<<<dim3(kMandelW / 16, kMandelH / 16), dim3(16, 16)>>>(out.get());
      divbench::check_launch("mandelbrot_before");
    } else {
      mandelbrot_after<<<blocks_for(n, 256), 256>>>(out.get(), dorder.get(), n);
      divbench::check_launch("mandelbrot_after");
    }
    timer.stop();
  };
  const auto times = measure(opts, once);
  const auto got = out.download();
  for (int p = 0; p < n; ++p) {
    if (got[p] < 0 || got[p] > kMaxIter) return mismatch("mandelbrot", variant, "iterations", p);
    if (p % 29 == 0 && got[p] != escape(p)) return mismatch("mandelbrot", variant, "iterations (host reference)", p);
  }
  report("mandelbrot", variant, "mandelbrot_" + variant, opts, times);
  return 0;
}

// === nbody: forces within a cutoff radius (the all-pairs tiled loop of GPU Gems 3, ch. 31, with a cutoff) =======
constexpr int kBodyTile = 128;
__device__ inline void nbody_forces(const float4* pos, float4* acc, int n, float rc2) {
  __shared__ float4 sh[kBodyTile];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 p = pos[i];
  float ax = 0, ay = 0, az = 0;
  int near = 0;
  for (int t = 0; t < n; t += kBodyTile) {
    sh[threadIdx.x] = pos[t + threadIdx.x];
    __syncthreads();
    for (int k = 0; k < kBodyTile; ++k) {
      const float4 q = sh[k];
      const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      const float r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < rc2 && r2 > 0.0f) {  // within the cutoff: which lanes, depends on where their bodies are
        const float inv = rsqrtf(r2 + 1e-4f);
        const float s = q.w * inv * inv * inv;
        ax += dx * s, ay += dy * s, az += dz * s;
        ++near;
      }
    }
    __syncthreads();
  }
  acc[i] = make_float4(ax, ay, az, float(near));
}
extern "C" __global__ void nbody_before(const float4* pos, float4* acc, int n, float rc2) { nbody_forces(pos, acc, n, rc2); }
extern "C" __global__ void nbody_after(const float4* pos, float4* acc, int n, float rc2) { nbody_forces(pos, acc, n, rc2); }

unsigned spread_bits(unsigned v) {  // 4 bits -> every third bit (a Morton code of 16^3 cells)
  unsigned r = 0;
  for (int b = 0; b < 4; ++b) r |= ((v >> b) & 1u) << (3 * b);
  return r;
}

int run_nbody(const std::string& variant, const Opts& opts) {
  const int n = 65536;
  const float rc = 0.2f, rc2 = rc * rc;
  std::mt19937 rng(kSeed + 3);
  std::uniform_real_distribution<float> u(0.0f, 1.0f), m(0.5f, 1.5f);
  std::vector<float4> pos(n);
  for (auto& p : pos) p = make_float4(u(rng), u(rng), u(rng), m(rng));
  // after: bodies in the Morton order of their 1/16-cells (host, untimed); results mapped back.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (variant == "after") {
    std::vector<int> key(n);
    for (int i = 0; i < n; ++i) {
      const auto cell = [](float c) { return unsigned(std::min(15, int(c * 16))); };
      key[i] = -int(spread_bits(cell(pos[i].x)) | spread_bits(cell(pos[i].y)) << 1 | spread_bits(cell(pos[i].z)) << 2);
    }
    order = order_by_desc(key);  // ascending Morton code
  }
  std::vector<float4> arranged(n);
  for (int i = 0; i < n; ++i) arranged[i] = pos[order[i]];
  auto dpos = to_device(arranged);
  DeviceBuffer<float4> acc(n);
  auto once = [&](KernelTimer& timer) {
    acc.fill_bytes(0xff);
    timer.start();
    if (variant == "before") {
      nbody_before<<<n / kBodyTile, kBodyTile>>>(dpos.get(), acc.get(), n, rc2);
      divbench::check_launch("nbody_before");
    } else {
      nbody_after<<<n / kBodyTile, kBodyTile>>>(dpos.get(), acc.get(), n, rc2);
      divbench::check_launch("nbody_after");
    }
    timer.stop();
  };
  const auto times = measure(opts, once);
  const auto got = acc.download();
  // The host reference in double on every 256th body: the neighbour count exactly (the distances are the same
  // float operations; a pair within 1e-6 of the cutoff is not judged), each force component within 1e-3 of the
  // sum of its terms' magnitudes (the device sums in float, in its order of bodies).
  for (int b = 0; b < n; b += 256) {
    int slot = int(std::find(order.begin(), order.end(), b) - order.begin());
    const float4 p = pos[b];
    double f[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
    int near = 0, edge = 0;
    for (int j = 0; j < n; ++j) {
      const double d[3] = {double(pos[j].x) - p.x, double(pos[j].y) - p.y, double(pos[j].z) - p.z};
      const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      if (std::fabs(r2 - rc2) < 1e-6) ++edge;
      if (r2 < rc2 && r2 > 0) {
        const double inv = 1.0 / std::sqrt(r2 + 1e-4), s = pos[j].w * inv * inv * inv;
        for (int k = 0; k < 3; ++k) f[k] += d[k] * s, mag[k] += std::fabs(d[k] * s);
        ++near;
      }
    }
    const float4 g = got[slot];
    if (std::abs(int(g.w) - near) > edge) return mismatch("nbody", variant, "neighbour count", b);
    const double gf[3] = {g.x, g.y, g.z};
    for (int k = 0; k < 3; ++k)
      if (!edge && std::fabs(gf[k] - f[k]) > 1e-3 * mag[k] + 1e-6) return mismatch("nbody", variant, "force", b);
  }
  report("nbody", variant, "nbody_" + variant, opts, times);
  return 0;
}

// === nw: Needleman-Wunsch scores of a batch of sequence pairs, a warp per pair ================================
// Lane t owns row 32s+1+t of strip s; at step k it computes column k-t (a skewed sweep: the cell above comes
// from lane t-1 by shuffle, the row above the strip from shared memory, lane 31 writes the strip's last row).
// before: Rodinia nw's blocking, 32x32 tiles one after another, each a 63-step diagonal ramp (half its lanes
// idle on average); after: the strip swept across the whole width at once, idle only in one ramp of 31 steps.
constexpr int kNwLen = 512, kNwWarps = 4, kGap = 2;
__device__ inline void nw_cell(int step, int lane, int first_col, int cols, int ai, const signed char* b, int* top,
                               int& left, int& diag, int& cur) {
  const int up_from_lane = __shfl_up_sync(kFull, cur, 1);
  const int c = step - lane;
  if (c >= 0 && c < cols) {  // the lanes on this step's diagonal
    const int col = first_col + c;
    const int up = lane == 0 ? top[col] : up_from_lane;
    const int h = max(diag + (ai == b[col - 1] ? 2 : -1), max(up, left) - kGap);
    diag = up;
    left = h;
    cur = h;
    if (lane == 31) top[col] = h;
  }
  __syncwarp();
}
template <bool kTiled>
__device__ inline void nw_pair(const signed char* a, const signed char* b, int* out, int pairs) {
  __shared__ int top_all[kNwWarps][kNwLen + 1];
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32, pair = blockIdx.x * kNwWarps + w;
  if (pair >= pairs) return;  // a whole warp
  int* top = top_all[w];
  a += long(pair) * kNwLen;
  b += long(pair) * kNwLen;
  for (int j = lane; j <= kNwLen; j += 32) top[j] = -kGap * j;
  __syncwarp();
  for (int s = 0; s < kNwLen / 32; ++s) {
    const int row = 32 * s + 1 + lane, ai = a[row - 1];
    int left = -kGap * row, diag = -kGap * (row - 1), cur = 0;
    if (lane == 31) top[0] = left;  // column 0 of the strip's last row (lane 0 takes its diagonal from a register)
    if (kTiled) {
      for (int t = 0; t < kNwLen / 32; ++t)
        for (int step = 0; step < 63; ++step) nw_cell(step, lane, 32 * t + 1, 32, ai, b, top, left, diag, cur);
    } else {
      for (int step = 0; step < kNwLen + 31; ++step) nw_cell(step, lane, 1, kNwLen, ai, b, top, left, diag, cur);
    }
  }
  for (int j = lane; j <= kNwLen; j += 32) out[long(pair) * (kNwLen + 1) + j] = top[j];
}
extern "C" __global__ void nw_before(const signed char* a, const signed char* b, int* out, int pairs) {
  nw_pair<true>(a, b, out, pairs);
}
extern "C" __global__ void nw_after(const signed char* a, const signed char* b, int* out, int pairs) {
  nw_pair<false>(a, b, out, pairs);
}

int run_nw(const std::string& variant, const Opts& opts) {
  const int pairs = 4096, L = kNwLen;
  std::mt19937 rng(kSeed + 4);
  std::vector<signed char> a(long(pairs) * L), b(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = (signed char)(rng() % 4), b[i] = (signed char)(rng() % 4);
  // Similar pairs, as an aligner sees them: b is a with a tenth of its bases changed.
  for (std::size_t i = 0; i < a.size(); ++i)
    if (rng() % 10) b[i] = a[i];
  auto da = to_device(a), db = to_device(b);
  DeviceBuffer<int> out(long(pairs) * (L + 1));
  auto once = [&](KernelTimer& timer) {
    out.fill_bytes(0xff);
    timer.start();
    if (variant == "before") {
      nw_before<<<pairs / kNwWarps, 32 * kNwWarps>>>(da.get(), db.get(), out.get(), pairs);
      divbench::check_launch("nw_before");
    } else {
      nw_after<<<pairs / kNwWarps, 32 * kNwWarps>>>(da.get(), db.get(), out.get(), pairs);
      divbench::check_launch("nw_after");
    }
    timer.stop();
  };
  const auto times = measure(opts, once);
  const auto got = out.download();
  // The host reference (the full matrix) on every 128th pair: the last row exactly.
  std::vector<int> prev(L + 1), cur(L + 1);
  for (int p = 0; p < pairs; p += 128) {
    for (int j = 0; j <= L; ++j) prev[j] = -kGap * j;
    for (int i = 1; i <= L; ++i) {
      cur[0] = -kGap * i;
      for (int j = 1; j <= L; ++j)
        cur[j] = std::max(prev[j - 1] + (a[long(p) * L + i - 1] == b[long(p) * L + j - 1] ? 2 : -1),
                          std::max(prev[j], cur[j - 1]) - kGap);
      prev.swap(cur);
    }
    for (int j = 0; j <= L; ++j)
      if (got[long(p) * (L + 1) + j] != prev[j]) return mismatch("nw", variant, "last row", long(p) * (L + 1) + j);
  }
  report("nw", variant, "nw_" + variant, opts, times);
  return 0;
}

// === resample: a particle filter's multinomial resampling (Rodinia particlefilter's find_index) ===============
extern "C" __global__ void resample_before(const float* cdf, const float* u, int* index, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = n - 1;
  for (int j = 0; j < n; ++j)  // a linear scan: its length is where the draw falls
    if (cdf[j] >= u[i]) {
      k = j;
      break;
    }
  index[i] = k;
}
extern "C" __global__ void resample_after(const float* cdf, const float* u, int* index, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int lo = 0, hi = n - 1;  // binary search: the first j with cdf[j] >= u (n - 1 when none), log2(n) steps
  const float v = u[i];
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (cdf[mid] >= v) hi = mid;
    else lo = mid + 1;
  }
  index[i] = lo;
}
extern "C" __global__ void resample_after_sorted(const float* cdf, const float* u, int* index, const int* order, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int p = order[i];  // the particles in the order of their draws: a warp's scans end close together
  int k = n - 1;
  for (int j = 0; j < n; ++j)
    if (cdf[j] >= u[p]) {
      k = j;
      break;
    }
  index[p] = k;
}

int run_resample(const std::string& variant, const Opts& opts) {
  const int n = 32768;
  std::mt19937 rng(kSeed + 5);
  std::normal_distribution<float> g(0.0f, 1.5f);
  std::vector<float> cdf(n), u(n);
  float acc = 0;
  for (int i = 0; i < n; ++i) cdf[i] = acc += std::exp(g(rng));  // log-normal weights: an uneven CDF
  std::uniform_real_distribution<float> draw(0.0f, acc);
  for (auto& v : u) v = draw(rng);
  std::vector<int> ref(n), key(n);
  for (int i = 0; i < n; ++i) {
    const auto it = std::lower_bound(cdf.begin(), cdf.end(), u[i]);
    ref[i] = it == cdf.end() ? n - 1 : int(it - cdf.begin());
    key[i] = -ref[i];
  }
  // after_sorted: the draws sorted (by value; the host's sort, untimed).
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return u[x] < u[y]; });
  auto dcdf = to_device(cdf), du = to_device(u);
  auto dorder = to_device(order);
  DeviceBuffer<int> index(n);
  auto once = [&](KernelTimer& timer) {
    index.fill_bytes(0xff);
    timer.start();
    if (variant == "before") {
      resample_before<<<blocks_for(n, 128), 128>>>(dcdf.get(), du.get(), index.get(), n);
      divbench::check_launch("resample_before");
    } else if (variant == "after") {
      resample_after<<<blocks_for(n, 128), 128>>>(dcdf.get(), du.get(), index.get(), n);
      divbench::check_launch("resample_after");
    } else {
      resample_after_sorted<<<blocks_for(n, 128), 128>>>(dcdf.get(), du.get(), index.get(), dorder.get(), n);
      divbench::check_launch("resample_after_sorted");
    }
    timer.stop();
  };
  const auto times = measure(opts, once);
  const auto got = index.download();
  for (int i = 0; i < n; ++i)
    if (got[i] != ref[i]) return mismatch("resample", variant, "index", i);
  report("resample", variant, "resample_" + variant, opts, times);
  return 0;
}

// === histogram: a filtered histogram in shared memory (a quality cut, then the momentum's log-scale bin) =======
constexpr int kBins = 256;
__host__ __device__ inline int momentum_bin(float4 r) {
  const float p2 = add(add(mul(r.x, r.x), mul(r.y, r.y)), mul(r.z, r.z));
#ifdef __CUDA_ARCH__
  const float p = __fsqrt_rn(p2);
  const unsigned bits = __float_as_uint(p);
#else
  const float p = std::sqrt(p2);
  unsigned bits;
  std::memcpy(&bits, &p, sizeof bits);
#endif
  return int((bits >> 19) & (kBins - 1));  // exponent's low bits and the top mantissa bits: a log-scale bin
}
__device__ inline void flush(const unsigned* sh, unsigned* hist) {
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&hist[b], sh[b]);
}
extern "C" __global__ void histogram_before(const float4* rec, unsigned* hist, int n, float cut) {
  __shared__ unsigned sh[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) sh[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float4 r = rec[i];
    if (r.w > cut) atomicAdd(&sh[momentum_bin(r)], 1u);  // the cut: about half the lanes, anywhere
  }
  flush(sh, hist);
}
extern "C" __global__ void histogram_after(const float4* rec, unsigned* hist, int n, float cut) {
  __shared__ unsigned sh[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) sh[b] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  // Warp-uniform trips (n is a multiple of 32): every lane reaches the ballot.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i - lane < n; i += gridDim.x * blockDim.x) {
    const float4 r = i < n ? rec[i] : make_float4(0, 0, 0, cut);
    const bool pass = r.w > cut;
    const unsigned passing = __ballot_sync(kFull, pass);
    if (pass) {  // warp-aggregated: the lanes of one bin add once, by their leader
      const int bin = momentum_bin(r);
      const unsigned peers = __match_any_sync(passing, bin);
      if (lane == __ffs(peers) - 1) atomicAdd(&sh[bin], unsigned(__popc(peers)));
    }
  }
  flush(sh, hist);
}
extern "C" __global__ void histogram_after_sorted(const float4* rec, unsigned* hist, int n, float cut) {
  __shared__ unsigned sh[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) sh[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float4 r = rec[i];  // the records partitioned by the cut: a warp's lanes agree
    if (r.w > cut) atomicAdd(&sh[momentum_bin(r)], 1u);
  }
  flush(sh, hist);
}

int run_histogram(const std::string& variant, const Opts& opts) {
  const int n = 1 << 23;
  const float cut = 0.5f;
  std::mt19937 rng(kSeed + 6);
  std::normal_distribution<float> mom(0.0f, 3.0f);
  std::uniform_real_distribution<float> quality(0.0f, 1.0f);
  std::vector<float4> rec(n);
  for (auto& r : rec) r = make_float4(mom(rng), mom(rng), mom(rng), quality(rng));
  std::vector<unsigned> ref(kBins, 0);
  for (const auto& r : rec)
    if (r.w > cut) ++ref[momentum_bin(r)];
  if (variant == "after_sorted")
    std::stable_partition(rec.begin(), rec.end(), [&](const float4& r) { return r.w > cut; });
  auto drec = to_device(rec);
  DeviceBuffer<unsigned> hist(kBins);
  int dev = 0, sms = 0;
  DIVBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int grid = 8 * sms;
  auto once = [&](KernelTimer& timer) {
    hist.fill_bytes(0);
    timer.start();
    if (variant == "before") {
      histogram_before<<<grid, 256>>>(drec.get(), hist.get(), n, cut);
      divbench::check_launch("histogram_before");
    } else if (variant == "after") {
      histogram_after<<<grid, 256>>>(drec.get(), hist.get(), n, cut);
      divbench::check_launch("histogram_after");
    } else {
      histogram_after_sorted<<<grid, 256>>>(drec.get(), hist.get(), n, cut);
      divbench::check_launch("histogram_after_sorted");
    }
    timer.stop();
  };
  const auto times = measure(opts, once);
  const auto got = hist.download();
  for (int b = 0; b < kBins; ++b)
    if (got[b] != ref[b]) return mismatch("histogram", variant, "bin", b);
  report("histogram", variant, "histogram_" + variant, opts, times);
  return 0;
}

// === segsort: an insertion sort per segment (e.g. each vertex's neighbour list), a thread per segment =========
__device__ inline void insertion_sort(unsigned* k, int len) {
  for (int i = 1; i < len; ++i) {
    const unsigned v = k[i];
    int j = i - 1;
    while (j >= 0 && k[j] > v) {  // both the length and the keys decide the trips
      k[j + 1] = k[j];
      --j;
    }
    k[j + 1] = v;
  }
}
extern "C" __global__ void segsort_before(unsigned* keys, const int* off, int segments) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < segments) insertion_sort(keys + off[s], off[s + 1] - off[s]);
}
extern "C" __global__ void segsort_after(unsigned* keys, const int* off, const int* order, int segments) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // the segments in order of length
  if (i < segments) insertion_sort(keys + off[order[i]], off[order[i] + 1] - off[order[i]]);
}

int run_segsort(const std::string& variant, const Opts& opts) {
  const int segments = 1 << 17;
  std::mt19937 rng(kSeed + 7);
  const std::vector<int> len = pareto_lengths(rng, segments, 2.0, 1.5, 512);
  const std::vector<int> off = offsets_of(len);
  std::vector<unsigned> keys(off[segments]);
  for (auto& k : keys) k = rng();
  std::vector<unsigned> ref = keys;
  for (int s = 0; s < segments; ++s) std::sort(ref.begin() + off[s], ref.begin() + off[s + 1]);
  const std::vector<int> order = order_by_desc(len);
  auto dkeys = to_device(keys);
  auto doff = to_device(off), dorder = to_device(order);
  auto once = [&](KernelTimer& timer) {
    dkeys.upload(keys);
    timer.start();
    if (variant == "before") {
      segsort_before<<<blocks_for(segments, 128), 128>>>(dkeys.get(), doff.get(), segments);
      divbench::check_launch("segsort_before");
    } else {
      segsort_after<<<blocks_for(segments, 128), 128>>>(dkeys.get(), doff.get(), dorder.get(), segments);
      divbench::check_launch("segsort_after");
    }
    timer.stop();
  };
  const auto times = measure(opts, once);
  const auto got = dkeys.download();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != ref[i]) return mismatch("segsort", variant, "key", long(i));
  report("segsort", variant, "segsort_" + variant, opts, times);
  return 0;
}

struct Mode {
  const char* name;
  int (*run)(const std::string&, const Opts&);
  std::vector<std::string> variants;  // before first
};
const std::vector<Mode>& modes() {
  static const std::vector<Mode> m = {
      {"bfs", run_bfs, {"before", "after", "after_warp"}},
      {"spmv", run_spmv, {"before", "after", "after_sorted"}},
      {"mandelbrot", run_mandelbrot, {"before", "after"}},
      {"nbody", run_nbody, {"before", "after"}},
      {"nw", run_nw, {"before", "after"}},
      {"resample", run_resample, {"before", "after", "after_sorted"}},
      {"histogram", run_histogram, {"before", "after", "after_sorted"}},
      {"segsort", run_segsort, {"before", "after"}},
  };
  return m;
}

int usage(const char* prog, const std::string& why) {
  std::fprintf(stderr, "usage: %s MODE VARIANT [--time] [--reps N] (%s); modes and variants:\n", prog, why.c_str());
  for (const auto& m : modes()) {
    std::string v;
    for (const auto& s : m.variants) v += (v.empty() ? "" : "|") + s;
    std::fprintf(stderr, "  %-10s %s\n", m.name, v.c_str());
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage(argv[0], "MODE and VARIANT are required");
  const std::string mode = argv[1], variant = argv[2];
  Opts opts;
  for (int a = 3; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--time") {
      opts.time = true;
    } else if (arg == "--reps" && a + 1 < argc) {
      char* end = nullptr;
      const long r = std::strtol(argv[++a], &end, 10);
      if (*end || r < 7 || r > 1000) return usage(argv[0], "--reps takes 7 to 1000");
      opts.reps = int(r);
    } else {
      return usage(argv[0], "unknown argument '" + arg + "'");
    }
  }
  const Mode* chosen = nullptr;
  for (const auto& m : modes())
    if (mode == m.name) chosen = &m;
  if (!chosen) return usage(argv[0], "unknown mode '" + mode + "'");
  if (std::find(chosen->variants.begin(), chosen->variants.end(), variant) == chosen->variants.end())
    return usage(argv[0], "mode " + mode + " has no variant '" + variant + "'");
  int deviceCount = 0;
  if (cudaGetDeviceCount(&deviceCount) != cudaSuccess || deviceCount == 0) {
    std::fprintf(stderr, "fixes: no CUDA GPU\n");
    return 3;
  }
  try {
    return chosen->run(variant, opts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fixes %s %s: %s\n", mode.c_str(), variant.c_str(), e.what());
    return 1;
  }
}
