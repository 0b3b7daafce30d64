// libFuzzer harness: the JSON/text merge (merge_text_listing), as `divbench sass` runs it: the input
// is an `nvdisasm -json` document, a NUL byte, and the `nvdisasm -c -hex` listing of the same cubin.
// Both parsed, merged by function name and offset, analysed. Accepted or UsageError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/sass/parse.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const auto nul = in.find('\0');
  if (nul == std::string::npos) return 0;
  try {
    divbench::sass::ListingMeta meta;
    auto fns = divbench::sass::parse_nvdisasm_json_text(in.substr(0, nul), &meta);
    const int sm = meta.sm ? meta.sm : 90;
    divbench::sass::merge_text_listing(fns, divbench::sass::parse_nvdisasm_text(in.substr(nul + 1), sm));
    divbench::fuzz::analyse_all(std::move(fns), sm);
  } catch (const divbench::UsageError&) {
  }
  return 0;
}
