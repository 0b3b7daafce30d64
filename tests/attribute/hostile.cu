// Programs that misbehave under `divbench attribute` (tests/attribute/hostile_test.sh, label gpu): each
// mode first runs one checked divergent kernel, then does one thing a job runner must survive.
//   trap         a second kernel executes __trap(); the program reports the error and exits 3
//   hang         a kernel spins up to 30 s of clock64 (bounded: prints "cap reached" and exits 5)
//   ignore_term  ignores SIGTERM, then sleeps up to 30 s (bounded) and exits 0
//   fork         forks a child that sleeps 20 s (bounded) and exits; the parent exits 0 at once
//   nvrtc        compiles a kernel with NVRTC, runs it from its own module (cuModuleLoadData), unloads
//                the module, exits 0
//   nvrtc_library  the same through cuLibraryLoadData / cuLibraryGetKernel
//   nvrtc_first  the same as nvrtc, before the checked kernel (no collection range open yet)
//   nvrtc_keep   the same as nvrtc, the module left loaded until the program exits
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"

namespace {

constexpr int kThreads = 256, kBlocks = 8;

__global__ void hostile_divergent(unsigned* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = t;
  for (int j = 0; j < t % 13; ++j) acc = acc * 5 + j;
  out[t] = acc;
}

__global__ void hostile_trap(unsigned* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % 2) out[t] += 1;
  if (t == 37) __trap();
}

__global__ void hostile_spin(unsigned long long cap_cycles, unsigned* out) {
  const long long start = clock64();
  unsigned n = 0;
  while (static_cast<unsigned long long>(clock64() - start) < cap_cycles) ++n;  // bounded by cap_cycles
  out[threadIdx.x] = n;
}

unsigned host_divergent(int t) {
  unsigned acc = t;
  for (int j = 0; j < t % 13; ++j) acc = acc * 5 + j;
  return acc;
}

int run_checked() {
  divbench::DeviceBuffer<unsigned> out(kThreads * kBlocks);
  hostile_divergent<<<kBlocks, kThreads>>>(out.get());
  DIVBENCH_CUDA_CHECK(cudaGetLastError());
  DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> h(kThreads * kBlocks);
  DIVBENCH_CUDA_CHECK(cudaMemcpy(h.data(), out.get(), h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int t = 0; t < kThreads * kBlocks; ++t)
    if (h[t] != host_divergent(t)) {
      std::fprintf(stderr, "hostile: wrong output at %d\n", t);
      return 1;
    }
  return 0;
}

#define NVRTC_CHECK(call)                                                                     \
  do {                                                                                        \
    const nvrtcResult r_ = (call);                                                            \
    if (r_ != NVRTC_SUCCESS) {                                                                \
      std::fprintf(stderr, "hostile: %s: %s\n", #call, nvrtcGetErrorString(r_));              \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
#define CU_CHECK(call)                                                                        \
  do {                                                                                        \
    const CUresult r_ = (call);                                                               \
    if (r_ != CUDA_SUCCESS) {                                                                 \
      const char* s_ = nullptr;                                                               \
      cuGetErrorName(r_, &s_);                                                                \
      std::fprintf(stderr, "hostile: %s: %s\n", #call, s_ ? s_ : "?");                       \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

const char* const kNvrtcSource = R"(
extern "C" __global__ void hostile_nvrtc(unsigned* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned acc = t;
  for (int j = 0; j < t % 7; ++j) acc = acc * 3 + j;
  out[t] = acc;
}
)";

int run_nvrtc(bool library, bool unload) {
  int dev = 0, major = 0, minor = 0;
  DIVBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  nvrtcProgram prog;
  NVRTC_CHECK(nvrtcCreateProgram(&prog, kNvrtcSource, "hostile_nvrtc.cu", 0, nullptr, nullptr));
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  const char* opts[] = {arch.c_str(), "-lineinfo"};
  if (nvrtcCompileProgram(prog, 2, opts) != NVRTC_SUCCESS) {
    std::size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "hostile: NVRTC failed:\n%s\n", log.c_str());
    return 1;
  }
  std::size_t size = 0;
  NVRTC_CHECK(nvrtcGetCUBINSize(prog, &size));
  std::vector<char> cubin(size);
  NVRTC_CHECK(nvrtcGetCUBIN(prog, cubin.data()));
  NVRTC_CHECK(nvrtcDestroyProgram(&prog));
  divbench::DeviceBuffer<unsigned> out(kThreads * kBlocks);  // the runtime's primary context is current
  CUmodule mod = nullptr;
  CUlibrary lib = nullptr;
  CUfunction fn;
  if (library) {
    CUkernel k;
    CU_CHECK(cuLibraryLoadData(&lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CU_CHECK(cuLibraryGetKernel(&k, lib, "hostile_nvrtc"));
    fn = reinterpret_cast<CUfunction>(k);  // a CUkernel launches as a CUfunction in the current context
  } else {
    CU_CHECK(cuModuleLoadData(&mod, cubin.data()));
    CU_CHECK(cuModuleGetFunction(&fn, mod, "hostile_nvrtc"));
  }
  unsigned* p = out.get();
  void* args[] = {&p};
  CU_CHECK(cuLaunchKernel(fn, kBlocks, 1, 1, kThreads, 1, 1, 0, nullptr, args, nullptr));
  CU_CHECK(cuCtxSynchronize());
  if (unload) {
    if (library) CU_CHECK(cuLibraryUnload(lib));
    else CU_CHECK(cuModuleUnload(mod));
  }
  std::vector<unsigned> h(kThreads * kBlocks);
  DIVBENCH_CUDA_CHECK(cudaMemcpy(h.data(), out.get(), h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int t = 0; t < kThreads * kBlocks; ++t) {
    unsigned acc = t;
    for (int j = 0; j < t % 7; ++j) acc = acc * 3 + j;
    if (h[t] != acc) {
      std::fprintf(stderr, "hostile: NVRTC kernel: wrong output at %d\n", t);
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "trap" && mode != "hang" && mode != "ignore_term" && mode != "fork" && mode != "nvrtc" &&
      mode != "nvrtc_library" && mode != "nvrtc_first" && mode != "nvrtc_keep" && mode != "plant_links") {
    std::fprintf(stderr, "usage: divbench_attribute_hostile trap|hang|ignore_term|fork|nvrtc|nvrtc_library|nvrtc_first|nvrtc_keep|plant_links\n");
    return 2;
  }
  if (mode == "ignore_term") ::signal(SIGTERM, SIG_IGN);
  if (mode == "nvrtc_first") {
    DIVBENCH_CUDA_CHECK(cudaFree(nullptr));  // the runtime's primary context, current for the driver calls
    if (const int rc = run_nvrtc(false, true)) return rc;
  }
  if (const int rc = run_checked()) return rc;
  if (mode == "trap") {
    divbench::DeviceBuffer<unsigned> out(kThreads * kBlocks);
    hostile_trap<<<kBlocks, kThreads>>>(out.get());
    const cudaError_t e = cudaDeviceSynchronize();
    std::fprintf(stderr, "hostile: the trapping kernel ended with %s\n", cudaGetErrorName(e));
    return 3;
  }
  if (mode == "hang") {
    int clock_khz = 0;
    DIVBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    divbench::DeviceBuffer<unsigned> out(32);
    hostile_spin<<<1, 32>>>(30ull * static_cast<unsigned long long>(clock_khz) * 1000ull, out.get());
    DIVBENCH_CUDA_CHECK(cudaGetLastError());
    DIVBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    std::fprintf(stderr, "hostile: cap reached (the kernel spun its 30 s)\n");
    return 5;
  }
  if (mode == "ignore_term") {
    for (int i = 0; i < 30; ++i) ::sleep(1);  // bounded: 30 s
    return 0;
  }
  if (mode == "fork") {
    const pid_t pid = ::fork();
    if (pid == 0) {
      for (int i = 0; i < 20; ++i) ::sleep(1);  // bounded: 20 s
      std::exit(0);  // the atexit handlers too, the injection library's among them
    }
    return pid > 0 ? 0 : 1;
  }
  if (mode == "plant_links") {
    // Links out of the folder attribute records into (--save-counts copies it): a directory link to /
    // and a file link to /etc/hostname. They must be copied as links, never followed.
    const char* dir = std::getenv("DIVBENCH_ATTRIBUTE_DIR");
    if (!dir) {
      std::fprintf(stderr, "hostile: DIVBENCH_ATTRIBUTE_DIR is not set (run under divbench attribute)\n");
      return 4;
    }
    const std::string base(dir);
    if (::symlink("/", (base + "/escape_dir").c_str()) != 0 || ::symlink("/etc/hostname", (base + "/escape_file").c_str()) != 0) {
      std::perror("hostile: symlink");
      return 4;
    }
    return 0;
  }
  if (mode == "nvrtc_first") return 0;
  return run_nvrtc(mode == "nvrtc_library", mode != "nvrtc_keep");
}
