// Ordinary programs for `divbench attribute` (scripts/gpu/52-attribute-programs.sh, tests/attribute/
// programs_layout_test.py): code laid out as nvcc, NVRTC and the CUDA libraries lay it out, which an
// attribute tool must take as it comes. Each mode runs its kernels on fixed inputs and checks every output
// on the host (exit 1 on a mismatch); stdout: one JSON line of what ran.
//   gaussian        Rodinia gaussian's Fan1/Fan2 (float division: the IEEE slow path after the kernel's EXIT)
//   particlefilter  a particle filter's likelihood, normalisation and resampling (float division, expf, a
//                   search loop of data-dependent length)
//   ieee            __fdiv_rn, __frcp_rn, __fsqrt_rn with denormal operands on some lanes (their slow paths run)
//   double_math     double 1/x, sqrt, sin (large arguments: the Payne-Hanek path), exp, pow
//   shared_callee   one __noinline__ function called from two kernels under a lane-dependent condition
//   indirect        calls through a table of device function pointers, indexed per lane
//   jump_table      a dense switch of 12 cases (a BRX jump table)
//   recursion       a recursive device function of per-lane depth
//   nvrtc           a kernel with float division compiled at run time by NVRTC (its own module, kept loaded)
//   graph           the gaussian and ieee kernels captured into a CUDA graph, launched twice
//   cub             CUB/Thrust: histogram (DeviceHistogram::HistogramEven), exclusive scan, radix sort of
//                   pairs, select (DeviceSelect::If), reduce by key, unique
//   all             every mode above, in that order (default)
//   fault           a kernel reads an address no allocation holds (an illegal address, as srad_v2's out-of-bounds
//                   reads): the program exits 1; not in `all`
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/unique.h>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"

namespace {

using divbench::DeviceBuffer;

int fail(const char* mode, const char* what, long at) {
  std::fprintf(stderr, "programs %s: %s wrong at %ld\n", mode, what, at);
  return 1;
}

template <typename T>
std::vector<T> to_host(const DeviceBuffer<T>& d, std::size_t n) {
  std::vector<T> h(n);
  DIVBENCH_CUDA_CHECK(cudaMemcpy(h.data(), d.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& h) {
  DeviceBuffer<T> d(h.size());
  DIVBENCH_CUDA_CHECK(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
void finish(const char* kernel) {
  divbench::check_launch(kernel);
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
}
bool close(double a, double b, double rel) { return a == b || std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)); }

// --- gaussian (Rodinia's gaussian.cu, Fan1 and Fan2 as it writes them) -------------------------------
__global__ void Fan1(float* m, const float* a, int size, int t) {
  if (threadIdx.x + blockIdx.x * blockDim.x >= size - 1 - t) return;
  const int row = blockDim.x * blockIdx.x + threadIdx.x + t + 1;
  m[size * row + t] = a[size * row + t] / a[size * t + t];
}
__global__ void Fan2(float* m, float* a, float* b, int size, int t) {
  const int xidx = blockIdx.x * blockDim.x + threadIdx.x, yidx = blockIdx.y * blockDim.y + threadIdx.y;
  if (xidx >= size - 1 - t || yidx >= size - t) return;
  a[size * (xidx + 1 + t) + (yidx + t)] -= m[size * (xidx + 1 + t) + t] * a[size * t + (yidx + t)];
  if (yidx == 0) b[xidx + 1 + t] -= m[size * (xidx + 1 + t) + (yidx + t)] * b[t];
}

int run_gaussian() {
  const int size = 48;
  std::vector<float> a(size * size), b(size);
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < size; ++i) {
    for (int j = 0; j < size; ++j) a[i * size + j] = u(rng);
    a[i * size + i] += float(size);  // diagonally dominant: no pivoting needed
    b[i] = u(rng);
  }
  // Some rows' pivot-column entries are denormal: their divisions take the slow path.
  for (int i = 3; i < size; i += 7) a[i * size + (i % 5)] = 1e-39f;
  auto da = to_device(a), db = to_device(b);
  DeviceBuffer<float> dm(size * size);
  DIVBENCH_CUDA_CHECK(cudaMemset(dm.get(), 0, size * size * sizeof(float)));
  for (int t = 0; t < size - 1; ++t) {
    Fan1<<<(size + 63) / 64, 64>>>(dm.get(), da.get(), size, t);
    divbench::check_launch("Fan1");
    Fan2<<<dim3((size + 15) / 16, (size + 15) / 16), dim3(16, 16)>>>(dm.get(), da.get(), db.get(), size, t);
    divbench::check_launch("Fan2");
  }
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  // The same elimination on the host, operation by operation (float, no fused multiply-add contracted by the
  // the device contracts Fan2's multiply-subtract into an FMA: checked to 1e-4).
  std::vector<float> ha = a, hb = b, hm(size * size, 0.0f);
  for (int t = 0; t < size - 1; ++t) {
    for (int r = t + 1; r < size; ++r) hm[size * r + t] = ha[size * r + t] / ha[size * t + t];
    for (int x = 0; x < size - 1 - t; ++x)
      for (int y = 0; y < size - t; ++y) {
        ha[size * (x + 1 + t) + (y + t)] -= hm[size * (x + 1 + t) + t] * ha[size * t + (y + t)];
        if (y == 0) hb[x + 1 + t] -= hm[size * (x + 1 + t) + (y + t)] * hb[t];
      }
  }
  const auto ga = to_host(da, a.size()), gb = to_host(db, b.size());
  for (int i = 0; i < size * size; ++i)
    if (!close(ga[i], ha[i], 1e-4) && std::fabs(ga[i] - ha[i]) > 1e-4) return fail("gaussian", "a", i);
  for (int i = 0; i < size; ++i)
    if (!close(gb[i], hb[i], 1e-4) && std::fabs(gb[i] - hb[i]) > 1e-4) return fail("gaussian", "b", i);
  return 0;
}

// --- particlefilter (the likelihood, normalisation and resampling kernels of Rodinia's naive version) ---
__global__ void likelihood_kernel(const float* x, const float* y, const int* image, int width, const int* ones,
                                  int count_ones, float* weights, float* likelihood, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0;
  for (int j = 0; j < count_ones; ++j) {
    const int px = int(roundf(x[i])) + ones[2 * j], py = int(roundf(y[i])) + ones[2 * j + 1];
    const int v = image[(py & (width - 1)) * width + (px & (width - 1))];
    sum += (float((v - 100) * (v - 100)) - float((v - 228) * (v - 228))) / 50.0f;
  }
  likelihood[i] = sum / float(count_ones);
  weights[i] = weights[i] * expf(likelihood[i]);
}
__global__ void normalize_weights(float* weights, const float* total, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) weights[i] = weights[i] / total[0];
}
__global__ void find_index(const float* cdf, const float* u, int* index, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int k = n - 1;
  for (int j = 0; j < n; ++j)  // a search of data-dependent length per lane
    if (cdf[j] >= u[i]) {
      k = j;
      break;
    }
  index[i] = k;
}

int run_particlefilter() {
  const int n = 2048, width = 128, count_ones = 37;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(0.0f, float(width));
  std::uniform_int_distribution<int> pix(0, 255);
  std::vector<float> x(n), y(n), w(n, 1.0f / n);
  for (int i = 0; i < n; ++i) x[i] = pos(rng), y[i] = pos(rng);
  std::vector<int> image(width * width), ones(2 * count_ones);
  for (auto& v : image) v = pix(rng);
  for (int j = 0; j < count_ones; ++j) ones[2 * j] = j % 7 - 3, ones[2 * j + 1] = j / 7 - 3;
  auto dx = to_device(x), dy = to_device(y), dw = to_device(w);
  auto dimage = to_device(image), dones = to_device(ones);
  DeviceBuffer<float> dl(n);
  likelihood_kernel<<<(n + 127) / 128, 128>>>(dx.get(), dy.get(), dimage.get(), width, dones.get(), count_ones, dw.get(),
                                              dl.get(), n);
  finish("likelihood_kernel");
  auto hw = to_host(dw, n);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) {
    float sum = 0;
    for (int j = 0; j < count_ones; ++j) {
      const int px = int(std::round(x[i])) + ones[2 * j], py = int(std::round(y[i])) + ones[2 * j + 1];
      const int v = image[(py & (width - 1)) * width + (px & (width - 1))];
      sum += (float((v - 100) * (v - 100)) - float((v - 228) * (v - 228))) / 50.0f;
    }
    ref[i] = (1.0f / n) * std::exp(sum / float(count_ones));
    if (!close(hw[i], ref[i], 1e-3)) return fail("particlefilter", "weight", i);
  }
  // Normalise on the device by the host-summed total (the check is the kernels', not a reduction's).
  const double total_d = std::accumulate(hw.begin(), hw.end(), 0.0);
  const std::vector<float> total = {float(total_d)};
  auto dtotal = to_device(total);
  normalize_weights<<<(n + 127) / 128, 128>>>(dw.get(), dtotal.get(), n);
  finish("normalize_weights");
  const std::vector<float> before = hw;
  hw = to_host(dw, n);
  std::vector<float> cdf(n), u(n);
  float acc = 0;
  for (int i = 0; i < n; ++i) {
    if (hw[i] != before[i] / total[0]) return fail("particlefilter", "normalised", i);  // IEEE division both sides
    acc += hw[i];
    cdf[i] = acc;
  }
  std::uniform_real_distribution<float> uu(0.0f, acc);
  for (auto& v : u) v = uu(rng);
  auto dcdf = to_device(cdf), du = to_device(u);
  DeviceBuffer<int> dindex(n);
  find_index<<<(n + 127) / 128, 128>>>(dcdf.get(), du.get(), dindex.get(), n);
  finish("find_index");
  const auto hi = to_host(dindex, n);
  for (int i = 0; i < n; ++i) {
    int k = n - 1;
    for (int j = 0; j < n; ++j)
      if (cdf[j] >= u[i]) {
        k = j;
        break;
      }
    if (hi[i] != k) return fail("particlefilter", "index", i);
  }
  return 0;
}

// --- ieee: correctly rounded float division, reciprocal and square root ------------------------------
__global__ void ieee_float(const float* a, const float* b, float* q, float* r, float* s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  q[i] = __fdiv_rn(a[i], b[i]);
  r[i] = __frcp_rn(b[i]);
  s[i] = __fsqrt_rn(a[i]);
}

int run_ieee() {
  const int n = 4096;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i % 5 == 0 ? 3e-39f * float(i % 11 + 1) : 1.0f + 0.37f * float(i);  // denormals on every fifth lane
    b[i] = i % 7 == 0 ? 2e-39f * float(i % 13 + 1) : 3.0f + 0.11f * float(i);
  }
  auto da = to_device(a), db = to_device(b);
  DeviceBuffer<float> q(n), r(n), s(n);
  ieee_float<<<(n + 255) / 256, 256>>>(da.get(), db.get(), q.get(), r.get(), s.get(), n);
  finish("ieee_float");
  const auto hq = to_host(q, n), hr = to_host(r, n), hs = to_host(s, n);
  for (int i = 0; i < n; ++i) {  // IEEE round-to-nearest on both sides: bit-equal
    if (hq[i] != a[i] / b[i]) return fail("ieee", "__fdiv_rn", i);
    if (hr[i] != 1.0f / b[i]) return fail("ieee", "__frcp_rn", i);
    if (hs[i] != std::sqrt(a[i])) return fail("ieee", "__fsqrt_rn", i);
  }
  return 0;
}

// --- double_math ------------------------------------------------------------------------------------
__global__ void double_math(const double* x, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double v = x[i];
  out[5 * i + 0] = 1.0 / v;
  out[5 * i + 1] = sqrt(fabs(v));
  out[5 * i + 2] = sin(v);
  out[5 * i + 3] = exp(v * 1e-3);
  out[5 * i + 4] = pow(fabs(v) + 1.0, 0.37);
}

int run_double_math() {
  const int n = 4096;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = i % 9 == 0 ? 1e300 * (i % 4 + 1)  // sin's large-argument reduction on every ninth lane
         : i % 11 == 0 ? 3e-310             // denormal: 1/x overflows, reciprocal's slow path
                       : 0.5 + 0.013 * i;
  auto dx = to_device(x);
  DeviceBuffer<double> out(5 * n);
  double_math<<<(n + 127) / 128, 128>>>(dx.get(), out.get(), n);
  finish("double_math");
  const auto h = to_host(out, 5 * n);
  for (int i = 0; i < n; ++i) {
    const double v = x[i];
    const double ref[5] = {1.0 / v, std::sqrt(std::fabs(v)), std::sin(v), std::exp(v * 1e-3), std::pow(std::fabs(v) + 1.0, 0.37)};
    for (int k = 0; k < 5; ++k)
      if (!close(h[5 * i + k], ref[k], 1e-13) && !(std::isinf(ref[k]) && std::isinf(h[5 * i + k])))
        return fail("double_math", "value", 5 * i + k);
  }
  return 0;
}

// --- shared_callee: one __noinline__ function, two kernels -------------------------------------------
__device__ __noinline__ unsigned mix(unsigned v, int rounds) {
  for (int r = 0; r < rounds; ++r) v = v * 2654435761u + (v >> 13);
  return v;
}
__global__ void callee_user_a(unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (i & 3) == 0 ? mix(i, 40) : unsigned(i);
}
__global__ void callee_user_b(unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i % 3 ? mix(i ^ 0x55u, i % 17) : unsigned(i) * 7u;
}
unsigned host_mix(unsigned v, int rounds) {
  for (int r = 0; r < rounds; ++r) v = v * 2654435761u + (v >> 13);
  return v;
}

int run_shared_callee() {
  const int n = 4096;
  DeviceBuffer<unsigned> a(n), b(n);
  callee_user_a<<<n / 128, 128>>>(a.get(), n);
  finish("callee_user_a");
  callee_user_b<<<n / 128, 128>>>(b.get(), n);
  finish("callee_user_b");
  const auto ha = to_host(a, n), hb = to_host(b, n);
  for (int i = 0; i < n; ++i) {
    if (ha[i] != ((i & 3) == 0 ? host_mix(i, 40) : unsigned(i))) return fail("shared_callee", "a", i);
    if (hb[i] != (i % 3 ? host_mix(i ^ 0x55u, i % 17) : unsigned(i) * 7u)) return fail("shared_callee", "b", i);
  }
  return 0;
}

// --- indirect: a table of device function pointers ----------------------------------------------------
__device__ __noinline__ int op_add(int v) { return v + 11; }
__device__ __noinline__ int op_mul(int v) { return v * 13; }
__device__ __noinline__ int op_loop(int v) {
  for (int k = 0; k < (v & 31); ++k) v = v * 3 + k;
  return v;
}
__device__ __noinline__ int op_xor(int v) { return v ^ 0x5a5a; }
using Op = int (*)(int);
__global__ void indirect_calls(int* out, int n) {
  Op table[4] = {op_add, op_mul, op_loop, op_xor};
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[(i * 7) % 4](i);
}
int host_op(int which, int v) {
  switch (which) {
    case 0: return v + 11;
    case 1: return int(unsigned(v) * 13u);
    case 2:
      for (int k = 0; k < (v & 31); ++k) v = int(unsigned(v) * 3u + unsigned(k));
      return v;
    default: return v ^ 0x5a5a;
  }
}

int run_indirect() {
  const int n = 4096;
  DeviceBuffer<int> out(n);
  indirect_calls<<<n / 128, 128>>>(out.get(), n);
  finish("indirect_calls");
  const auto h = to_host(out, n);
  for (int i = 0; i < n; ++i)
    if (h[i] != host_op((i * 7) % 4, i)) return fail("indirect", "value", i);
  return 0;
}

// --- jump_table: a dense switch ----------------------------------------------------------------------
__host__ __device__ unsigned switch_case(unsigned c, unsigned v) {
  switch (c) {
    case 0: return v * 3u + 1u;
    case 1: return v ^ 0xdeadu;
    case 2: return v << 3;
    case 3: return v * v;
    case 4: return v + 977u;
    case 5: return (v >> 2) | 1u;
    case 6: return v * 2654435761u;
    case 7: return ~v;
    case 8: return v - 12345u;
    case 9: return v * 5u + (v >> 7);
    case 10: return v | 0x100u;
    case 11: return (v & 0xffu) * 31u;
    default: return v;
  }
}
__global__ void jump_table(unsigned* out, const unsigned* sel, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = switch_case(sel[i], unsigned(i));
}

int run_jump_table() {
  const int n = 4096;
  std::vector<unsigned> sel(n);
  std::mt19937 rng(12);
  for (auto& s : sel) s = rng() % 12;
  auto dsel = to_device(sel);
  DeviceBuffer<unsigned> out(n);
  jump_table<<<n / 128, 128>>>(out.get(), dsel.get(), n);
  finish("jump_table");
  const auto h = to_host(out, n);
  for (int i = 0; i < n; ++i)
    if (h[i] != switch_case(sel[i], unsigned(i))) return fail("jump_table", "value", i);
  return 0;
}

// --- recursion ----------------------------------------------------------------------------------------
__host__ __device__ unsigned recurse(unsigned v, int depth) { return depth == 0 ? v : recurse(v * 3u + unsigned(depth), depth - 1) + 1u; }
__global__ void recursion(unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = recurse(unsigned(i), i % 16);
}

int run_recursion() {
  const int n = 4096;
  DeviceBuffer<unsigned> out(n);
  recursion<<<n / 128, 128>>>(out.get(), n);
  finish("recursion");
  const auto h = to_host(out, n);
  for (int i = 0; i < n; ++i)
    if (h[i] != recurse(unsigned(i), i % 16)) return fail("recursion", "value", i);
  return 0;
}

// --- nvrtc: a kernel with float division compiled at run time --------------------------------------
const char* const kNvrtcSource = R"(
extern "C" __global__ void nvrtc_divide(const float* a, const float* b, float* q, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) q[i] = a[i] > 2.0f ? a[i] / b[i] : a[i] * b[i];
}
)";

int run_nvrtc() {
  int dev = 0, major = 0, minor = 0;
  DIVBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, kNvrtcSource, "nvrtc_divide.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return fail("nvrtc", "nvrtcCreateProgram", 0);
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  const char* opts[] = {arch.c_str(), "-lineinfo"};
  if (nvrtcCompileProgram(prog, 2, opts) != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "programs nvrtc: compile failed:\n%s\n", log.c_str());
    return 1;
  }
  std::size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(prog, cubin.data());
  nvrtcDestroyProgram(&prog);
  const int n = 4096;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = 0.5f + 0.01f * float(i % 500), b[i] = i % 6 == 0 ? 1e-39f : 1.5f + 0.003f * float(i);
  auto da = to_device(a), db = to_device(b);
  DeviceBuffer<float> q(n);
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  if (cuModuleLoadData(&mod, cubin.data()) != CUDA_SUCCESS || cuModuleGetFunction(&fn, mod, "nvrtc_divide") != CUDA_SUCCESS)
    return fail("nvrtc", "cuModuleLoadData", 0);
  const float* pa = da.get();
  const float* pb = db.get();
  float* pq = q.get();
  int nn = n;
  void* args[] = {&pa, &pb, &pq, &nn};
  if (cuLaunchKernel(fn, n / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS || cuCtxSynchronize() != CUDA_SUCCESS)
    return fail("nvrtc", "cuLaunchKernel", 0);
  const auto h = to_host(q, n);
  // The module stays loaded until the program exits, as a JIT cache keeps it: CUPTI 13.4 keeps no records of
  // an unloaded module's kernels (docs/attribute.md; tests/attribute/hostile.cu's nvrtc mode unloads it).
  for (int i = 0; i < n; ++i)
    if (h[i] != (a[i] > 2.0f ? a[i] / b[i] : a[i] * b[i])) return fail("nvrtc", "value", i);
  return 0;
}

// --- graph: kernels captured into a CUDA graph -------------------------------------------------------
int run_graph() {
  cudaStream_t s;
  DIVBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // The inputs are allocated and copied before capture; the captured work is the kernels alone.
  const int size = 64;
  std::vector<float> a(size * size);
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < size; ++j) a[i * size + j] = i == j ? float(size) : 0.01f * float((i * 31 + j * 17) % 23) + (j == i % 5 && i % 7 == 3 ? 1e-39f : 0.0f);
  auto da = to_device(a);
  DeviceBuffer<float> dm(size * size);
  DIVBENCH_CUDA_CHECK(cudaMemset(dm.get(), 0, size * size * sizeof(float)));
  cudaGraph_t graph;
  DIVBENCH_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int t = 0; t < 8; ++t) Fan1<<<1, 64, 0, s>>>(dm.get(), da.get(), size, t);
  DIVBENCH_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  DIVBENCH_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < 2; ++r) DIVBENCH_CUDA_CHECK(cudaGraphLaunch(exec, s));
  DIVBENCH_CUDA_CHECK(cudaStreamSynchronize(s));
  const auto hm = to_host(dm, size * size);
  for (int t = 0; t < 8; ++t)
    for (int r = t + 1; r < size; ++r)
      if (hm[size * r + t] != a[size * r + t] / a[size * t + t]) return fail("graph", "Fan1", size * r + t);
  DIVBENCH_CUDA_CHECK(cudaGraphExecDestroy(exec));
  DIVBENCH_CUDA_CHECK(cudaGraphDestroy(graph));
  DIVBENCH_CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}

// --- cub: CUB and Thrust algorithms as the toolkit ships them -----------------------------------------
struct IsMultipleOf3 {
  __host__ __device__ bool operator()(int v) const { return v % 3 == 0; }
};

int run_cub() {
  const int n = 1 << 18, bins = 64;
  std::mt19937 rng(99);
  std::vector<float> samples(n);
  std::vector<int> keys(n), vals(n);
  std::normal_distribution<float> g(0.5f, 0.18f);  // skewed bins: some heavy, some empty
  for (auto& v : samples) v = g(rng);
  for (int i = 0; i < n; ++i) keys[i] = int(rng() % 100000), vals[i] = i;
  std::size_t temp = 0, need = 0;
  thrust::device_vector<char> scratch(1);
  auto reserve = [&](std::size_t bytes) {
    if (scratch.size() < bytes) scratch.resize(bytes);
    temp = scratch.size();
  };
  // Histogram of floats in [0, 1) (DeviceHistogramSweepKernel, the kernel a user reported refused).
  thrust::device_vector<float> ds(samples.begin(), samples.end());
  thrust::device_vector<int> hist(bins);
  cub::DeviceHistogram::HistogramEven(nullptr, need, ds.data().get(), hist.data().get(), bins + 1, 0.0f, 1.0f, n);
  reserve(need);
  cub::DeviceHistogram::HistogramEven(scratch.data().get(), temp, ds.data().get(), hist.data().get(), bins + 1, 0.0f, 1.0f, n);
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<int> href(bins, 0);
  for (float v : samples)
    if (v >= 0.0f && v < 1.0f) ++href[std::min(bins - 1, int((v - 0.0f) / (1.0f / bins)))];
  thrust::host_vector<int> hh = hist;
  long off = 0;
  for (int b = 0; b < bins; ++b) off += std::abs(hh[b] - href[b]);
  if (off > 4) return fail("cub", "histogram", off);  // bin edges: the device and host may differ by a sample at an edge
  // Exclusive scan.
  std::vector<int> small(n);
  for (int i = 0; i < n; ++i) small[i] = i % 7;
  thrust::device_vector<int> din(small.begin(), small.end()), dout(n);
  cub::DeviceScan::ExclusiveSum(nullptr, need, din.data().get(), dout.data().get(), n);
  reserve(need);
  cub::DeviceScan::ExclusiveSum(scratch.data().get(), temp, din.data().get(), dout.data().get(), n);
  thrust::host_vector<int> hscan = dout;
  long long acc = 0;
  for (int i = 0; i < n; ++i) {
    if (hscan[i] != int(acc)) return fail("cub", "exclusive scan", i);
    acc += small[i];
  }
  // Radix sort of pairs.
  thrust::device_vector<int> dk(keys.begin(), keys.end()), dv(vals.begin(), vals.end()), dko(n), dvo(n);
  cub::DeviceRadixSort::SortPairs(nullptr, need, dk.data().get(), dko.data().get(), dv.data().get(), dvo.data().get(), n);
  reserve(need);
  cub::DeviceRadixSort::SortPairs(scratch.data().get(), temp, dk.data().get(), dko.data().get(), dv.data().get(), dvo.data().get(), n);
  thrust::host_vector<int> hk = dko, hv = dvo;
  for (int i = 0; i < n; ++i) {
    if (i && hk[i - 1] > hk[i]) return fail("cub", "radix sort order", i);
    if (keys[hv[i]] != hk[i]) return fail("cub", "radix sort pairs", i);
  }
  // Select.
  thrust::device_vector<int> dsel(n), dcount(1);
  cub::DeviceSelect::If(nullptr, need, dk.data().get(), dsel.data().get(), dcount.data().get(), n, IsMultipleOf3());
  reserve(need);
  cub::DeviceSelect::If(scratch.data().get(), temp, dk.data().get(), dsel.data().get(), dcount.data().get(), n, IsMultipleOf3());
  const long m3 = std::count_if(keys.begin(), keys.end(), [](int v) { return v % 3 == 0; });
  if (dcount[0] != m3) return fail("cub", "select", dcount[0]);
  // Reduce by key over the sorted keys, and unique.
  thrust::device_vector<int> ones(n, 1), rk(n), rv(n);
  const auto ends = thrust::reduce_by_key(dko.begin(), dko.end(), ones.begin(), rk.begin(), rv.begin());
  std::vector<int> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  const long distinct = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
  if (ends.first - rk.begin() != distinct) return fail("cub", "reduce_by_key", ends.first - rk.begin());
  if (thrust::reduce(rv.begin(), rv.begin() + distinct) != n) return fail("cub", "reduce_by_key sum", 0);
  const auto last = thrust::unique(dko.begin(), dko.end());
  if (last - dko.begin() != distinct) return fail("cub", "unique", last - dko.begin());
  return 0;
}

// --- fault: an illegal address --------------------------------------------------------------------------
__global__ void wild_read(const float* p, float* out, long far) {
  const int i = threadIdx.x;
  out[i] = i % 3 ? p[i] : p[i + far];  // some lanes read far past the buffer
}

int run_fault() {
  DeviceBuffer<float> in(64), out(64);
  wild_read<<<1, 64>>>(in.get(), out.get(), 1L << 40);
  finish("wild_read");  // throws: the fault is reported at the synchronisation
  return fail("fault", "the wild read did not fault", 0);
}

struct Mode {
  const char* name;
  int (*run)();
};
const Mode kModes[] = {{"gaussian", run_gaussian},
                       {"particlefilter", run_particlefilter},
                       {"ieee", run_ieee},
                       {"double_math", run_double_math},
                       {"shared_callee", run_shared_callee},
                       {"indirect", run_indirect},
                       {"jump_table", run_jump_table},
                       {"recursion", run_recursion},
                       {"nvrtc", run_nvrtc},
                       {"graph", run_graph},
                       {"cub", run_cub}};

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  std::vector<const Mode*> chosen;
  const Mode fault = {"fault", run_fault};
  for (const auto& m : kModes)
    if (mode == "all" || mode == m.name) chosen.push_back(&m);
  if (mode == fault.name) chosen.push_back(&fault);
  if (chosen.empty()) {
    std::string names;
    for (const auto& m : kModes) names += std::string(" ") + m.name;
    std::fprintf(stderr, "usage: %s [all|%s] (unknown mode '%s')\n", argv[0], names.c_str() + 1, mode.c_str());
    return 2;
  }
  int deviceCount = 0;
  if (cudaGetDeviceCount(&deviceCount) != cudaSuccess || deviceCount == 0) {
    std::fprintf(stderr, "programs: no CUDA GPU\n");
    return 3;
  }
  std::string ran;
  try {
    for (const Mode* m : chosen) {
      if (const int rc = m->run()) return rc;
      ran += std::string(ran.empty() ? "\"" : ", \"") + m->name + "\"";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "programs %s: %s\n", mode.c_str(), e.what());
    return 1;
  }
  std::printf("{\"target\": \"programs\", \"modes\": [%s]}\n", ran.c_str());
  return 0;
}
