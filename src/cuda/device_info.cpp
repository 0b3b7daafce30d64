#include "divbench/cuda/device_info.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/clock.hpp"
#include "divbench/cuda/nvml.hpp"
#include "divbench/cuda/occupancy.hpp"

namespace divbench {
namespace {

std::string version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string uuid_string(const cudaUUID_t& u) {
  char buf[64];
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

}  // namespace

int device_count_or_throw() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    cudaGetLastError();  // clear the sticky-free error so later calls do not inherit it
    throw NoDeviceError(std::string("no CUDA GPU found (") +
                        (e == cudaSuccess ? std::string("0 devices") : std::string(cudaGetErrorString(e))) +
                        "); dynamic experiments need one; the static commands do not: sass, kernels, flip patch and flip "
                        "experiment --dry-run, attribute --static, attribute --from-counts, attribute diff");
  }
  return n;
}

std::vector<int> resolve_devices(const std::string& spec) {
  // Syntax first, so a malformed value is a usage error even on a machine without a GPU.
  int idx = -1;
  if (spec != "all") {
    std::size_t used = 0;
    try {
      idx = std::stoi(spec, &used);
    } catch (...) {
      used = 0;
    }
    if (spec.empty() || used != spec.size() || idx < 0)
      throw UsageError("--device: '" + spec + "' is neither 'all' nor a device index");
  }
  const int n = device_count_or_throw();
  std::vector<int> out;
  if (spec == "all") {
    for (int i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  if (idx >= n)
    throw UsageError("--device: no device " + spec + " (this host has " + std::to_string(n) + " CUDA device" +
                     (n == 1 ? "" : "s") + ", indices 0.." + std::to_string(n - 1) + ")");
  out.push_back(idx);
  return out;
}

DeviceRecord query_device(int index) {
  DIVBENCH_CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp p{};
  DIVBENCH_CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceRecord d;
  d.index = index;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.cc = std::to_string(p.major) + "." + std::to_string(p.minor);
  d.sm_count = p.multiProcessorCount;
  d.sm_clock_khz = device_attribute(cudaDevAttrClockRate, index);
  d.mem_clock_khz = device_attribute(cudaDevAttrMemoryClockRate, index);
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.max_blocks_per_sm = device_attribute(cudaDevAttrMaxBlocksPerMultiprocessor, index);
  d.warp_size = p.warpSize;
  int drv = 0, rt = 0;
  DIVBENCH_CUDA_CHECK(cudaDriverGetVersion(&drv));
  DIVBENCH_CUDA_CHECK(cudaRuntimeGetVersion(&rt));
  d.driver = version_string(drv);
  d.runtime = version_string(rt);
  char bus[32] = {0};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, index) == cudaSuccess) d.pci_bus_id = bus;
  d.uuid = uuid_string(p.uuid);
  d.measured_sm_clock_mhz = measure_sm_clock_mhz();
  const NvmlReading nv = read_nvml(d.pci_bus_id);
  if (nv.available) {
    d.driver_release = nv.driver_release;
    d.max_sm_clock_mhz = nv.max_sm_clock_mhz;
    d.sm_clock_now_mhz = nv.sm_clock_mhz;
  }
  return d;
}

}  // namespace divbench
