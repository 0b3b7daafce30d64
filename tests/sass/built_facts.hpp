// What the tests on the SASS of the built divbench share (experiments/<name>/tests/sass/): its kernel
// facts (the document DIVBENCH_KERNEL_FACTS names, else kernel_facts.json next to DIVBENCH_EXECUTABLE),
// whether their absence fails (DIVBENCH_REQUIRE_NVDISASM=1, CI) or skips, and which cubins hold a kernel.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "divbench/core/json_io.hpp"
#include "divbench/model/kernel_facts.hpp"

namespace divbench::test {

inline std::optional<json> built_kernel_facts(std::string& where) {
  const char* env = std::getenv("DIVBENCH_KERNEL_FACTS");
  const std::filesystem::path path =
      env && *env ? std::filesystem::path(env)
                  : std::filesystem::path(DIVBENCH_EXECUTABLE).parent_path() / model::kKernelFactsFile;
  where = path.string();
  return model::load_kernel_facts(path.parent_path().string(), path.filename().string());
}

inline bool nvdisasm_required() {
  const char* req = std::getenv("DIVBENCH_REQUIRE_NVDISASM");
  return req && std::string(req) == "1";
}

// Whether one cubin of the facts holds a function whose mangled name contains `needle`.
inline bool cubin_has(const json& cubin, const std::string& needle) {
  for (const auto& f : cubin["functions"])
    if (f["name"].get<std::string>().find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace divbench::test
