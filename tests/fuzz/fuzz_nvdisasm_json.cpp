// libFuzzer harness: the `nvdisasm -json` parser (src/sass/parse_json.cpp) and the analysis of what it
// accepts. Accepted or UsageError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/sass/parse.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    divbench::sass::ListingMeta meta;
    auto fns = divbench::sass::parse_nvdisasm_json_text(std::string(reinterpret_cast<const char*>(data), size), &meta);
    divbench::fuzz::analyse_all(std::move(fns), meta.sm);
  } catch (const divbench::UsageError&) {
  }
  return 0;
}
