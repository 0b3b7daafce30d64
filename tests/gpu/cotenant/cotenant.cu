// divbench_cotenant: a second process that keeps part of the GPU busy, the co-tenant of the disturbed-
// measurement tests (tests/gpu/disturbed_test.sh) and of the H200 stage scripts/gpu/25-disturbed.sh.
//
//   divbench_cotenant [--blocks N | --blocks-per-sm N] [--threads T] [--busy-us U] [--period-us P]
//                     [--seconds S] [--ready FILE] [--device D]
//   divbench_cotenant --idle [--hold-mib M] [--seconds S] [--ready FILE] [--device D]
//
// Launches a kernel of N blocks x T threads whose every thread spins on %globaltimer for U us (an
// FMA loop, bounded by the timer and by an iteration cap), once every P us (P <= U: back to back),
// for S seconds in all; writes FILE once its first launch has finished (the context exists), then
// exits 0. SIGINT/SIGTERM end it after the launch in flight. Defaults: every SM 4 blocks of 256
// threads, 10 ms busy back to back, 30 s. --idle: the idle co-tenant (a notebook left open): creates its
// context, allocates M MiB (default 1024), writes FILE, and launches nothing for S seconds.
#include <cuda_runtime.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

__device__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void busy(unsigned long long busy_ns, float* sink, unsigned long long* capped) {
  const unsigned long long end = globaltimer() + busy_ns;
  float a = threadIdx.x * 1e-3f, b = 1.0001f;
  unsigned long long spins = 0;
  const unsigned long long cap = 1ull << 32;  // never reached by a sane busy time; reported if it is
  while (globaltimer() < end) {
    for (int i = 0; i < 64; ++i) a = fmaf(a, b, 1e-7f);
    if (++spins >= cap) {
      atomicAdd(capped, 1ull);
      break;
    }
  }
  if (a == 12345.678f) sink[threadIdx.x] = a;  // keeps the loop
}

int fail(const char* what) {
  std::fprintf(stderr, "divbench_cotenant: error: %s\n", what);
  return 2;
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "divbench_cotenant: error: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  int blocks = -1, blocks_per_sm = 4, threads = 256, device = 0;
  double busy_us = 10000, period_us = 0, seconds = 30;
  std::string ready;
  bool idle = false;
  double hold_mib = 1024;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--idle") {
      idle = true;
      continue;
    }
    if (i + 1 >= argc) return fail(("missing value after " + a).c_str());
    const char* v = argv[++i];
    if (a == "--blocks") blocks = std::atoi(v);
    else if (a == "--blocks-per-sm") blocks_per_sm = std::atoi(v);
    else if (a == "--threads") threads = std::atoi(v);
    else if (a == "--busy-us") busy_us = std::atof(v);
    else if (a == "--period-us") period_us = std::atof(v);
    else if (a == "--seconds") seconds = std::atof(v);
    else if (a == "--ready") ready = v;
    else if (a == "--device") device = std::atoi(v);
    else if (a == "--hold-mib") hold_mib = std::atof(v);
    else return fail(("unknown option " + a).c_str());
  }
  if (threads < 1 || threads > 1024 || busy_us <= 0 || busy_us > 1e6 || seconds <= 0 || seconds > 3600)
    return fail("--threads 1..1024, --busy-us (0, 1e6], --seconds (0, 3600]");
  if (!check(cudaSetDevice(device), "cudaSetDevice")) return 3;
  int sms = 0;
  if (!check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count")) return 3;
  if (blocks < 0) blocks = blocks_per_sm * sms;
  if (blocks < 1) return fail("--blocks must be at least 1");
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  if (idle) {
    if (!(hold_mib >= 1 && hold_mib <= 65536)) return fail("--hold-mib 1..65536");
    void* held = nullptr;
    if (!check(cudaMalloc(&held, static_cast<std::size_t>(hold_mib) << 20), "cudaMalloc (--hold-mib)")) return 1;
    if (!ready.empty()) {
      FILE* f = std::fopen(ready.c_str(), "w");
      if (!f) return fail("cannot write --ready file");
      std::fprintf(f, "%d\n", static_cast<int>(getpid()));
      std::fclose(f);
    }
    const auto i0 = std::chrono::steady_clock::now();
    while (!g_stop && std::chrono::duration<double>(std::chrono::steady_clock::now() - i0).count() < seconds)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::printf("divbench_cotenant: idle, %.0f MiB held, no launch\n", hold_mib);
    cudaFree(held);
    return 0;
  }
  float* sink = nullptr;
  unsigned long long* capped = nullptr;
  if (!check(cudaMalloc(&sink, 1024 * sizeof(float)), "cudaMalloc") ||
      !check(cudaMalloc(&capped, sizeof *capped), "cudaMalloc") || !check(cudaMemset(capped, 0, sizeof *capped), "cudaMemset"))
    return 1;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  long launches = 0;
  while (!g_stop && std::chrono::duration<double>(clock::now() - t0).count() < seconds) {
    const auto l0 = clock::now();
    busy<<<blocks, threads>>>(static_cast<unsigned long long>(busy_us * 1000), sink, capped);
    if (!check(cudaGetLastError(), "launch") || !check(cudaDeviceSynchronize(), "kernel")) return 1;
    if (launches++ == 0 && !ready.empty()) {
      FILE* f = std::fopen(ready.c_str(), "w");
      if (!f) return fail("cannot write --ready file");
      std::fprintf(f, "%d\n", static_cast<int>(getpid()));
      std::fclose(f);
    }
    const double spent_us = std::chrono::duration<double, std::micro>(clock::now() - l0).count();
    if (period_us > spent_us) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(period_us - spent_us)));
  }
  unsigned long long n_capped = 0;
  cudaMemcpy(&n_capped, capped, sizeof n_capped, cudaMemcpyDeviceToHost);
  std::printf("divbench_cotenant: %ld launches of %d x %d threads, %.0f us busy every %.0f us%s\n", launches, blocks,
              threads, busy_us, period_us, n_capped ? " (cap reached in some threads)" : "");
  cudaFree(sink);
  cudaFree(capped);
  return 0;
}
