// The one ELF64 reader of divbench: the file header, the program header table's bounds and the
// section header table, every offset and size checked against the file without sums that can wrap
// past 2^64. Used by inspect_bytes (what a file is: cubin, host ELF) and by the cubin reader of the
// bit-flip tools (cubin/elf.hpp), which adds the CUDA layout rules, section names and symbols on top.
// Host-only, no libelf; little-endian ELF64 only (what nvcc, ptxas and the host toolchains write).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace divbench::sass {

constexpr std::uint16_t kEmCuda = 190;
constexpr std::uint32_t kShtNull = 0;
constexpr std::uint32_t kShtSymtab = 2;
constexpr std::uint32_t kShtStrtab = 3;
constexpr std::uint32_t kShtNobits = 8;
constexpr std::uint64_t kShfExecinstr = 0x4;

struct ElfHeader {
  int os_abi = 0;        // e_ident[EI_OSABI]: for a cubin 0x33 (ABI 7) or 0x41 (ABI 8, CUDA 13)
  int abi_version = 0;   // e_ident[EI_ABIVERSION]: for a cubin 7 or 8
  std::uint16_t type = 0;
  std::uint16_t machine = 0;  // e_machine: kEmCuda for a cubin
  std::uint32_t flags = 0;    // e_flags; a cubin's SM number in bits 0-7 (ABI 7) or 8-15 (ABI 8)
  std::uint64_t phoff = 0;
  std::uint64_t shoff = 0;
  std::uint16_t ehsize = 0;
  std::uint16_t phentsize = 0;
  std::uint16_t phnum = 0;
  std::uint16_t shentsize = 0;
  std::uint16_t shnum = 0;
  std::uint16_t shstrndx = 0;
};

struct ElfSection {
  int index = 0;
  std::string name;  // filled by elf_section_names(); read_elf leaves it empty
  std::uint32_t name_offset = 0;  // sh_name: offset in the section name table
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t offset = 0;  // in the file
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  std::uint64_t addralign = 0;
  std::uint64_t entsize = 0;
};

// One entry of a symbol table (SHT_SYMTAB). In a cubin a function symbol's value is its offset in
// its own section (.text.<kernel> for the kernel and the subroutines it holds).
struct ElfSymbol {
  std::string name;
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  int type = 0;  // STT_*: 2 = FUNC
  int bind = 0;  // STB_*
  std::uint16_t shndx = 0;
};
constexpr int kSttFunc = 2;

struct ElfImage {
  ElfHeader header;
  std::vector<ElfSection> sections;  // section i at index i; section 0 included
};

// The little-endian 64-bit field at p + off (composed byte by byte: any host, no unaligned access); the
// caller has checked that the 8 bytes lie inside the file.
std::uint64_t le_u64(const std::uint8_t* p, std::uint64_t off);

// off + len <= total, without computing a sum that can wrap past 2^64.
inline bool fits_in(std::uint64_t off, std::uint64_t len, std::uint64_t total) {
  return off <= total && len <= total - off;
}

// Reads the header and the section header table of the `size` bytes at `data`; `name` starts every
// message. Throws UsageError "<name>: ..." for no ELF magic ("not an ELF file"), fewer than 64 bytes,
// not ELF64, not little endian, an unknown ELF version, a section or program header entry size other
// than ELF64's, and ("truncated ELF file (...)") a section header table, program header table or
// section (other than section 0 and SHT_NOBITS ones) that does not lie inside the file.
ElfImage read_elf(const std::uint8_t* data, std::uint64_t size, const std::string& name);

// A section whose bytes are in the file: not the null section 0, not SHT_NOBITS, inside the file.
bool has_file_bytes(const ElfSection& s, std::uint64_t file_size);

// The NUL-terminated string at `idx` of string table `strtab`. Every bound is checked here (the
// table may be any section a crafted file names: section 0, SHT_NOBITS, beyond the end); `what`
// names the user of the table in the message ("the section header table", "symbol table .symtab").
std::string elf_string(const std::uint8_t* data, std::uint64_t size, const ElfSection& strtab,
                       std::uint64_t idx, const std::string& name, const std::string& what);

// Fills every section's name from the section name table (e_shstrndx); throws UsageError when that
// index is out of range or a name is not a string of it.
void elf_section_names(const std::uint8_t* data, std::uint64_t size, ElfImage& image, const std::string& name);

// Every symbol of every symbol table, in file order. Throws UsageError when a table's entry size or
// size is not ELF64's, its string table index is out of range, or a name is not a string of it.
std::vector<ElfSymbol> elf_symbols(const std::uint8_t* data, std::uint64_t size, const ElfImage& image,
                                   const std::string& name);

// The SM number (e.g. 90, 100) of a cubin from its ELF e_flags: bits 8-15 for ELF ABI version >= 8,
// else bits 0-7. The one rule: inspect_bytes and the cubin reader both use it.
int sm_from_e_flags(std::uint32_t e_flags, int abi_version);

}  // namespace divbench::sass
