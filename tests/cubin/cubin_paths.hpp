// Paths of the flip cubins built by kernels/flip/CMakeLists.txt (DIVBENCH_FLIP_CUBIN_DIR), and the
// nvdisasm the tests use (skips when absent: CI installs it from PyPI, so there they run).
#pragma once
#include <string>

#include "divbench/sass/nvdisasm.hpp"

namespace divbench::cubin::test {

inline std::string cubin_path(const std::string& src, int sm) {
  return std::string(DIVBENCH_FLIP_CUBIN_DIR) + "/" + src + ".sm_" + std::to_string(sm) + ".cubin";
}

inline std::string test_nvdisasm() { return sass::locate_tool("nvdisasm"); }

}  // namespace divbench::cubin::test
