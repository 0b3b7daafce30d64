#include "cupti_api.hpp"
#include "divbench/cupti/metrics.hpp"
#include "divbench/core/process.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace divbench::cupti {
namespace {

constexpr const char* kSoname = "libcupti.so.13";

// CUPTI opens libnvperf_host.so by its bare name. Loading the copy that sits beside the libcupti we
// loaded first (best effort) makes that resolve to it even when its folder is not on the search path.
void preload_nvperf_beside(void* cupti_symbol) {
  Dl_info info{};
  if (!dladdr(cupti_symbol, &info) || !info.dli_fname) return;
  const auto nvperf = std::filesystem::path(info.dli_fname).parent_path() / "libnvperf_host.so";
  std::error_code ec;
  if (std::filesystem::exists(nvperf, ec)) dlopen(nvperf.c_str(), RTLD_NOW | RTLD_GLOBAL);
}

}  // namespace

std::vector<std::string> library_candidates() {
  if (const char* env = std::getenv("DIVBENCH_CUPTI_LIB"); env && *env) return {env};
  std::vector<std::string> c{kSoname};
  if (const std::string d = own_executable_dir(); !d.empty()) {
    c.push_back(d + "/lib/" + kSoname);     // build tree with a lib/ beside the binary
    c.push_back(d + "/../lib/" + kSoname);  // bin/ + lib/ bundle (scripts/gpu/prepare.sh)
  }
#ifdef DIVBENCH_CUDA_LIB_DIR
  c.push_back(std::string(DIVBENCH_CUDA_LIB_DIR) + "/" + kSoname);
#endif
  c.push_back(std::string("/usr/local/cuda/lib64/") + kSoname);
  c.push_back(std::string("/usr/local/cuda/extras/CUPTI/lib64/") + kSoname);
  return c;
}

std::unique_ptr<Api> open_api(const std::vector<std::string>& candidates, std::string* why) {
  auto api = std::make_unique<Api>();
  void* handle = nullptr;
  std::string first_error;
  for (const auto& cand : candidates) {
    handle = dlopen(cand.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      api->path = cand;
      break;
    }
    const char* err = dlerror();
    if (first_error.empty()) first_error = err ? err : cand + ": not loadable";
  }
  if (!handle) {
    if (why) *why = "cannot load libcupti (" + (first_error.empty() ? std::string("no candidates") : first_error) + ")";
    return nullptr;
  }
#define DIVBENCH_CUPTI_RESOLVE(name)                                                        \
  api->name = reinterpret_cast<decltype(api->name)>(dlsym(handle, #name));                  \
  if (!api->name) {                                                                         \
    if (why) *why = api->path + " lacks " #name " (a CUPTI older than the 13.0 headers?)"; \
    dlclose(handle);                                                                        \
    return nullptr;                                                                         \
  }
  DIVBENCH_CUPTI_FUNCTIONS(DIVBENCH_CUPTI_RESOLVE)
#undef DIVBENCH_CUPTI_RESOLVE
  preload_nvperf_beside(reinterpret_cast<void*>(api->cuptiGetResultString));
  return api;
}

const Api* load_api(std::string* why) {
  static std::string error;
  static const std::unique_ptr<Api> api = open_api(library_candidates(), &error);
  if (!api && why) *why = error;
  return api.get();
}

}  // namespace divbench::cupti

namespace divbench {

std::string cupti_library(std::string* why) {
  const cupti::Api* api = cupti::load_api(why);
  return api ? api->path : "";
}

std::uint32_t cupti_api_version() {
  const cupti::Api* api = cupti::load_api(nullptr);
  std::uint32_t v = 0;
  if (!api || api->cuptiGetVersion(&v) != CUPTI_SUCCESS) return 0;
  return v;
}

std::pair<std::string, std::uint32_t> cupti_for_programs(std::string* why) {
  // A CUPTI that instruments every kernel of a run, looked for where divbench keeps one: beside the
  // executable, then the nvidia-cuda-cupti wheel the setup installs. Each is opened only to ask its
  // version (cuptiGetVersion needs no GPU), then closed: the program loads it, not divbench.
  std::vector<std::string> newer;
  if (const char* env = std::getenv("DIVBENCH_CUPTI_LIB"); !(env && *env)) {
    if (const std::filesystem::path dir = own_executable_dir(); !dir.empty()) {
      newer.push_back((dir / "lib" / "libcupti.so.13").string());
      newer.push_back((dir / ".." / "lib" / "libcupti.so.13").string());
    }
#ifdef DIVBENCH_CUPTI_WHEEL_LIB
    newer.push_back(DIVBENCH_CUPTI_WHEEL_LIB);
#endif
  }
  for (const auto& cand : newer) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(cand, ec)) continue;
    void* h = dlopen(cand.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    std::uint32_t v = 0;
    using GetVersion = CUptiResult (*)(std::uint32_t*);
    const auto get = reinterpret_cast<GetVersion>(dlsym(h, "cuptiGetVersion"));
    const bool ok = get && get(&v) == CUPTI_SUCCESS;
    dlclose(h);
    if (ok && v >= kCuptiAllKernelsVersion) return {cand, v};
  }
  const std::string path = cupti_library(why);
  return {path, path.empty() ? 0 : cupti_api_version()};
}

}  // namespace divbench
