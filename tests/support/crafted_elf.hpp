// Crafted cubins for the tests: the smallest ELF64 file the cubin reader accepts (header, a null
// section, .shstrtab, a .text.<kernel>, .symtab + .strtab) and named variants that each break one
// bound the reader must check. Used by the ELF/inspect regression tests (tests/cubin, tests/sass)
// and written to disk for the bad-input suite by tests/badinput/craft.cpp: one builder, so the
// unit tests and the CLI cases exercise the same files.
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace divbench::testing {

struct CraftSection {
  std::string name;
  std::uint32_t type = 1;  // SHT_PROGBITS
  std::uint64_t flags = 0;
  std::vector<std::uint8_t> data;
  std::uint32_t link = 0;
  std::uint64_t entsize = 0;
};

// Lays out header | section data | section header table. Section 0 is the null section.
inline std::vector<std::uint8_t> build_elf(const std::vector<CraftSection>& secs, std::uint16_t shstrndx) {
  std::vector<std::uint8_t> b(64, 0);
  auto put = [&](std::size_t off, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
  };
  const std::uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41, 8};
  std::memcpy(b.data(), ident, sizeof ident);
  put(16, 2, 2);            // ET_EXEC
  put(18, 190, 2);          // EM_CUDA
  put(20, 1, 4);            // EV_CURRENT
  put(48, 0x0a005a04u, 4);  // e_flags: sm_90 in bits 8-15 (ABI 8), as nvcc 13 writes it
  put(52, 64, 2);           // e_ehsize
  put(58, 64, 2);           // e_shentsize
  std::vector<std::uint64_t> offs;
  for (const auto& s : secs) {
    while (b.size() % 16) b.push_back(0);
    offs.push_back(b.size());
    b.insert(b.end(), s.data.begin(), s.data.end());
  }
  while (b.size() % 8) b.push_back(0);
  const std::uint64_t shoff = b.size();
  b.resize(b.size() + 64 * (secs.size() + 1), 0);  // + the null section 0
  put(40, shoff, 8);
  put(60, secs.size() + 1, 2);
  put(62, shstrndx, 2);
  for (std::size_t i = 0; i < secs.size(); ++i) {
    const std::size_t h = shoff + 64 * (i + 1);
    const auto& s = secs[i];
    put(h + 4, s.type, 4);
    put(h + 8, s.flags, 8);
    put(h + 24, offs[i], 8);
    put(h + 32, s.data.size(), 8);
    put(h + 40, s.link, 4);
    put(h + 56, s.entsize, 8);
  }
  // Section names: each section's name is looked up in .shstrtab (section `shstrndx`, when that is one
  // of ours) and its offset written into sh_name.
  if (shstrndx >= 1 && shstrndx <= secs.size()) {
    const auto& tab = secs[shstrndx - 1].data;
    const std::string strings(tab.begin(), tab.end());
    for (std::size_t i = 0; i < secs.size(); ++i) {
      const auto pos = strings.find(secs[i].name + std::string(1, '\0'));
      if (pos != std::string::npos) put(shoff + 64 * (i + 1), pos, 4);
    }
  }
  return b;
}

inline std::vector<std::uint8_t> bytes_of(const std::string& s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }

// The well-formed minimal cubin: kernel "k", two 16-byte instructions, one FUNC symbol.
// Sections: 1 .shstrtab, 2 .strtab, 3 .symtab (link 2), 4 .text.k.
inline std::vector<CraftSection> minimal_sections() {
  const std::string shstr = std::string("\0.shstrtab\0.strtab\0.symtab\0.text.k\0", 35);
  const std::string str = std::string("\0k\0", 3);
  std::vector<std::uint8_t> sym(48, 0);  // null symbol + "k"
  sym[24] = 1;                           // st_name = 1
  sym[24 + 4] = 0x12;                    // STB_GLOBAL, STT_FUNC
  sym[24 + 6] = 4;                       // st_shndx = .text.k
  sym[24 + 16] = 32;                     // st_size
  std::vector<std::uint8_t> text(32, 0);
  text[0] = 0x4d, text[1] = 0x79;        // EXIT-like opcode bits (content is irrelevant to the reader)
  return {{".shstrtab", 3, 0, bytes_of(shstr)},
          {".strtab", 3, 0, bytes_of(str)},
          {".symtab", 2, 0, sym, 2, 24},
          {".text.k", 1, 0x6, text}};
}

inline std::uint64_t section_header(const std::vector<std::uint8_t>& b, int index) {
  std::uint64_t shoff = 0;
  std::memcpy(&shoff, b.data() + 40, 8);
  return shoff + 64 * static_cast<std::uint64_t>(index);
}

template <typename T>
void poke(std::vector<std::uint8_t>& b, std::uint64_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

// Named crafted files: the minimal cubin and one variant per bound the readers check.
// "what" says which refusal each must produce (a substring of the error line).
struct CraftedFile {
  std::vector<std::uint8_t> bytes;
  std::string what;
};

inline std::map<std::string, CraftedFile> crafted_files() {
  std::map<std::string, CraftedFile> m;
  const auto ok = build_elf(minimal_sections(), 1);
  m["minimal.cubin"] = {ok, ""};
  {  // .shstrtab named as section 0 (the null section)
    auto b = ok;
    poke<std::uint16_t>(b, 62, 0);
    m["shstrtab_section0.cubin"] = {b, "section name table index 0 out of range"};
  }
  {  // section 0 is a string table instead of SHT_NULL, with bytes beyond the file
    auto b = ok;
    poke<std::uint32_t>(b, section_header(b, 0) + 4, 3);
    poke<std::uint64_t>(b, section_header(b, 0) + 24, 0x7fffffffffffull);
    poke<std::uint64_t>(b, section_header(b, 0) + 32, 4096);
    m["section0_not_null.cubin"] = {b, "section 0 is not the null section"};
  }
  {  // .shstrtab is SHT_NOBITS with an offset far beyond the file
    auto b = ok;
    poke<std::uint32_t>(b, section_header(b, 1) + 4, 8);
    poke<std::uint64_t>(b, section_header(b, 1) + 24, 0x7fffffff0000ull);
    m["shstrtab_nobits.cubin"] = {b, "not a string table with bytes in the file"};
  }
  {  // .symtab's sh_link is 0 (the null section)
    auto b = ok;
    poke<std::uint32_t>(b, section_header(b, 3) + 40, 0);
    m["symtab_link0.cubin"] = {b, "links to a missing string table"};
  }
  {  // .symtab's string table is SHT_NOBITS (garbage names before the fix)
    auto b = ok;
    poke<std::uint32_t>(b, section_header(b, 2) + 4, 8);
    poke<std::uint64_t>(b, section_header(b, 2) + 24, 0x7fffffff0000ull);
    m["strtab_nobits.cubin"] = {b, "not a string table with bytes in the file"};
  }
  {  // .text.k is SHT_NOBITS: no instruction bytes in the file
    auto b = ok;
    poke<std::uint32_t>(b, section_header(b, 4) + 4, 8);
    poke<std::uint64_t>(b, section_header(b, 4) + 24, 0x7fffffff0000ull);
    m["text_nobits.cubin"] = {b, "has no bytes in the file (SHT_NOBITS)"};
  }
  {  // section header table whose end wraps past 2^64: a 64-byte file
    std::vector<std::uint8_t> b(ok.begin(), ok.begin() + 64);
    poke<std::uint64_t>(b, 40, 0xffffffffffffffc0ull);
    poke<std::uint16_t>(b, 60, 1);
    poke<std::uint16_t>(b, 62, 0);
    m["shoff_wraps.cubin"] = {b, "table beyond"};
  }
  {  // a section whose offset + size wraps past 2^64
    auto b = ok;
    poke<std::uint64_t>(b, section_header(b, 4) + 24, 0x40);
    poke<std::uint64_t>(b, section_header(b, 4) + 32, 0xfffffffffffffff0ull);
    m["section_size_wraps.cubin"] = {b, "beyond"};
  }
  {  // only the ELF magic
    m["magic_only.cubin"] = {bytes_of("\x7f" "ELF"), "too short"};
  }
  return m;
}

}  // namespace divbench::testing
