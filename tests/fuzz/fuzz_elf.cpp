// libFuzzer harness: the cubin ELF reader and the patcher (src/cubin/elf.cpp, patch.cpp). Any input
// must be either accepted or refused with UsageError; every other exception, crash, out-of-bounds
// access or undefined behaviour (ASan/UBSan) is a finding. Accepted files are patched at offsets and
// fields taken from the input's last bytes (inside, at and beyond each .text section). The same bytes
// then give their encodings and symbols to a listing that names each .text section's function
// (sass/elf_facts.hpp), with instructions inside it and, chosen by the last byte, at or beyond its end.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "divbench/core/errors.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/cubin/patch.hpp"
#include "divbench/sass/elf_facts.hpp"

using namespace divbench;
using namespace divbench::cubin;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const CubinFile f = CubinFile::parse(std::vector<std::uint8_t>(data, data + size), "fuzz.cubin");
    const std::uint8_t k = size ? data[size - 1] : 0;
    const BitField field{k % 120, 1 + (k >> 3) % 8};
    for (const auto& fn : f.functions()) {
      const Section& s = f.text_section(fn);
      for (std::uint64_t off : {std::uint64_t(0), s.size / 32 * 16, s.size - 16, s.size, s.size + 16, ~std::uint64_t(15)}) {
        CubinFile copy = f;
        try {
          std::uint64_t lo = 0, hi = 0;
          read_word(copy, fn, off, lo, hi);
          apply_patches(copy, {{fn, off, field, k & ((1u << field.width) - 1)}});
        } catch (const UsageError&) {
        }
      }
    }
    for (std::uint64_t off : {std::uint64_t(0), std::uint64_t(size / 2), ~std::uint64_t(0)}) f.section_at(off);
    std::vector<sass::Function> listing;
    for (const auto& fn : f.functions()) {
      sass::Function g;
      g.name = fn;
      const std::uint64_t n = f.text_section(fn).size;
      for (std::uint64_t off : {std::uint64_t(0), n / 32 * 16, k & 1 ? n : n - 16}) {
        sass::Instruction ins;
        ins.offset = off;
        ins.base = "CALL";
        ins.call_symbol = fn;
        g.instructions.push_back(ins);
      }
      listing.push_back(g);
    }
    sass::apply_elf_facts(listing, std::string(reinterpret_cast<const char*>(data), size), "fuzz.cubin");
  } catch (const UsageError&) {
  }
  return 0;
}
