// libFuzzer harness: the text listing parser (`nvdisasm -c -hex`, src/sass/parse_text.cpp; linear in
// the line length, no std::regex) and the analysis of what it accepts. The first byte picks the
// architecture (Pascal's 64-bit bundles, Volta+ 128-bit words, unknown). Accepted or UsageError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/sass/parse.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const int kSm[] = {0, 52, 61, 70, 75, 90, 100, 120};
  const int sm = kSm[data[0] % 8];
  try {
    auto fns = divbench::sass::parse_nvdisasm_text(std::string(reinterpret_cast<const char*>(data + 1), size - 1), sm);
    divbench::fuzz::analyse_all(std::move(fns), sm);
  } catch (const divbench::UsageError&) {
  }
  return 0;
}
