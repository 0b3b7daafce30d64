// libFuzzer harness: inspect_bytes (src/sass/nvdisasm.cpp), the first look at every file `divbench
// sass` and `flip discover` are given. Accepted or UsageError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/sass/nvdisasm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    divbench::sass::inspect_bytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const divbench::UsageError&) {
  }
  return 0;
}
