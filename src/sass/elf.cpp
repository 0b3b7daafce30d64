#include "divbench/sass/elf.hpp"

#include "divbench/core/errors.hpp"

namespace divbench::sass {
namespace {

// Little-endian fields composed byte by byte: the same on any host, and no unaligned access. The
// caller has checked that [off, off + n) lies inside the file.
std::uint64_t le(const std::uint8_t* p, std::uint64_t off, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | p[off + i];
  return v;
}
std::uint16_t u16(const std::uint8_t* p, std::uint64_t off) { return static_cast<std::uint16_t>(le(p, off, 2)); }
std::uint32_t u32(const std::uint8_t* p, std::uint64_t off) { return static_cast<std::uint32_t>(le(p, off, 4)); }

constexpr std::uint64_t kEhdrSize = 64;  // ELF64 file header
constexpr std::uint64_t kShdrSize = 64;  // ELF64 section header
constexpr std::uint64_t kPhdrSize = 56;  // ELF64 program header

[[noreturn]] void bad(const std::string& name, const std::string& what) { throw UsageError(name + ": " + what); }

}  // namespace

std::uint64_t le_u64(const std::uint8_t* p, std::uint64_t off) { return le(p, off, 8); }

ElfImage read_elf(const std::uint8_t* b, std::uint64_t n, const std::string& name) {
  // The magic first: a text or empty file is "not an ELF file", whatever its length.
  if (n < 4 || !(b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F'))
    bad(name, "not an ELF file (expected a cubin, an object or an executable with embedded cubins)");
  if (n < kEhdrSize) bad(name, "too short for an ELF64 header (" + std::to_string(n) + " bytes)");
  if (b[4] != 2) bad(name, "not ELF64 (EI_CLASS " + std::to_string(b[4]) + "); cubins are ELF64");
  if (b[5] != 1) bad(name, "not little endian (EI_DATA " + std::to_string(b[5]) + ")");
  if (b[6] != 1) bad(name, "unknown ELF version " + std::to_string(b[6]));
  ElfImage img;
  ElfHeader& h = img.header;
  h.os_abi = b[7];
  h.abi_version = b[8];
  h.type = u16(b, 16);
  h.machine = u16(b, 18);
  h.phoff = le_u64(b, 32);
  h.shoff = le_u64(b, 40);
  h.flags = u32(b, 48);
  h.ehsize = u16(b, 52);
  h.phentsize = u16(b, 54);
  h.phnum = u16(b, 56);
  h.shentsize = u16(b, 58);
  h.shnum = u16(b, 60);
  h.shstrndx = u16(b, 62);
  const std::string truncated = "truncated ELF file (";
  if (h.shnum > 0 && h.shentsize != kShdrSize)
    bad(name, "unexpected section header size " + std::to_string(h.shentsize) + " (ELF64 needs 64)");
  if (!fits_in(h.shoff, std::uint64_t(h.shnum) * kShdrSize, n))
    bad(name, truncated + "section header table beyond the end of the file, " + std::to_string(n) + " bytes)");
  if (h.phnum > 0 && h.phentsize != kPhdrSize)
    bad(name, "unexpected program header size " + std::to_string(h.phentsize) + " (ELF64 needs 56)");
  if (h.phnum > 0 && !fits_in(h.phoff, std::uint64_t(h.phnum) * kPhdrSize, n))
    bad(name, truncated + "program header table beyond the end of the file)");
  img.sections.reserve(h.shnum);
  for (int i = 0; i < h.shnum; ++i) {
    const std::uint64_t o = h.shoff + std::uint64_t(i) * kShdrSize;  // inside the file: checked above
    ElfSection s;
    s.index = i;
    s.name_offset = u32(b, o);
    s.type = u32(b, o + 4);
    s.flags = le_u64(b, o + 8);
    s.offset = le_u64(b, o + 24);
    s.size = le_u64(b, o + 32);
    s.link = u32(b, o + 40);
    s.info = u32(b, o + 44);
    s.addralign = le_u64(b, o + 48);
    s.entsize = le_u64(b, o + 56);
    if (i > 0 && s.type != kShtNobits && !fits_in(s.offset, s.size, n))
      bad(name, truncated + "section " + std::to_string(i) + " extends beyond the end of the file)");
    img.sections.push_back(s);
  }
  return img;
}

bool has_file_bytes(const ElfSection& s, std::uint64_t file_size) {
  return s.index > 0 && s.type != kShtNobits && fits_in(s.offset, s.size, file_size);
}

std::string elf_string(const std::uint8_t* b, std::uint64_t n, const ElfSection& strtab, std::uint64_t idx,
                       const std::string& name, const std::string& what) {
  if (strtab.type != kShtStrtab || !has_file_bytes(strtab, n))
    bad(name, what + " uses section " + std::to_string(strtab.index) +
                  " as its string table, which is not a string table with bytes in the file");
  if (idx >= strtab.size)
    bad(name, "string index " + std::to_string(idx) + " beyond string table " + std::to_string(strtab.index));
  const std::uint64_t start = strtab.offset + idx;
  const std::uint64_t end = strtab.offset + strtab.size;  // inside the file: has_file_bytes
  std::uint64_t p = start;
  while (p < end && b[p] != 0) ++p;
  if (p == end) bad(name, "unterminated string in string table " + std::to_string(strtab.index));
  return std::string(reinterpret_cast<const char*>(b + start), p - start);
}

void elf_section_names(const std::uint8_t* b, std::uint64_t n, ElfImage& img, const std::string& name) {
  const std::uint16_t shstrndx = img.header.shstrndx;
  if (shstrndx == 0 || shstrndx >= img.sections.size())
    bad(name, "section name table index " + std::to_string(shstrndx) + " out of range");
  const ElfSection shstr = img.sections[shstrndx];
  for (auto& s : img.sections) s.name = elf_string(b, n, shstr, s.name_offset, name, "the section header table");
}

std::vector<ElfSymbol> elf_symbols(const std::uint8_t* b, std::uint64_t n, const ElfImage& img, const std::string& name) {
  constexpr std::uint64_t kSymSize = 24;  // ELF64 symbol table entry
  std::vector<ElfSymbol> out;
  for (const auto& s : img.sections) {
    if (s.type != kShtSymtab) continue;
    const std::string table = "symbol table " + (s.name.empty() ? std::to_string(s.index) : s.name);
    if (s.entsize != kSymSize || s.size % kSymSize != 0) bad(name, table + " has an unexpected layout");
    if (s.link == 0 || s.link >= img.sections.size()) bad(name, table + " links to a missing string table");
    const ElfSection& strtab = img.sections[s.link];
    for (std::uint64_t o = s.offset; o < s.offset + s.size; o += kSymSize) {  // inside the file: read_elf
      ElfSymbol sym;
      sym.name = elf_string(b, n, strtab, u32(b, o), name, table);
      sym.type = b[o + 4] & 0xf;
      sym.bind = b[o + 4] >> 4;
      sym.shndx = u16(b, o + 6);
      sym.value = le_u64(b, o + 8);
      sym.size = le_u64(b, o + 16);
      out.push_back(std::move(sym));
    }
  }
  return out;
}

int sm_from_e_flags(std::uint32_t e_flags, int abi_version) {
  return static_cast<int>(abi_version >= 8 ? (e_flags >> 8) & 0xff : e_flags & 0xff);
}

}  // namespace divbench::sass
