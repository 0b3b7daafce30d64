#include "driver_api.hpp"

#include <dlfcn.h>

#include "divbench/core/errors.hpp"

namespace divbench::cubin {
namespace {
#define DIVBENCH_STR2(x) #x
#define DIVBENCH_STR(x) DIVBENCH_STR2(x)  // expands cuda.h's aliases first: cuMemAlloc -> "cuMemAlloc_v2"

DriverApi load() {
  void* h = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) throw NoDeviceError("no CUDA driver: cannot load libcuda.so.1 (no NVIDIA driver on this machine)");
  DriverApi api;
#define DIVBENCH_CU_FN(fn)                                                                         \
  api.fn = reinterpret_cast<decltype(&::fn)>(::dlsym(h, DIVBENCH_STR(fn)));                       \
  if (api.fn == nullptr) throw NoDeviceError(std::string("the CUDA driver lacks ") + DIVBENCH_STR(fn));
#include "driver_api_functions.inc"
#undef DIVBENCH_CU_FN
  return api;
}
}  // namespace

const DriverApi& DriverApi::get() {
  static const DriverApi api = load();
  return api;
}

std::string DriverApi::describe(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &text);
  return std::string(name ? name : ("CUresult " + std::to_string(static_cast<int>(r))).c_str()) +
         (text ? std::string(": ") + text : std::string());
}

}  // namespace divbench::cubin
