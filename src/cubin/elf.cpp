#include "divbench/cubin/elf.hpp"

#include <cstring>
#include <sstream>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/sass/nvdisasm.hpp"

namespace divbench::cubin {
namespace {

template <typename T>
T rd(const std::vector<std::uint8_t>& b, std::uint64_t off) {
  T v{};
  std::memcpy(&v, b.data() + off, sizeof(T));  // little endian host (x86-64, aarch64)
  return v;
}

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw UsageError(name + ": " + what);
}

bool in_bounds(std::uint64_t off, std::uint64_t len, std::uint64_t total) {
  return off <= total && len <= total - off;
}

// A section whose bytes are in the file: not the null section 0, not SHT_NOBITS, inside the file.
bool has_file_bytes(const Section& s, std::uint64_t file_size) {
  return s.index > 0 && s.type != kShtNobits && in_bounds(s.offset, s.size, file_size);
}

// The NUL-terminated string at `idx` of string table `strtab`; every bound is checked here (the
// table may be any section a crafted file names: section 0, SHT_NOBITS, beyond the end).
std::string cstr_at(const std::vector<std::uint8_t>& b, const Section& strtab, std::uint64_t idx,
                    const std::string& name, const std::string& what) {
  if (strtab.type != kShtStrtab || !has_file_bytes(strtab, b.size()))
    bad(name, what + " uses section " + std::to_string(strtab.index) +
                  " as its string table, which is not a string table with bytes in the file");
  if (idx >= strtab.size) bad(name, "string index " + std::to_string(idx) + " beyond string table " + std::to_string(strtab.index));
  const std::uint64_t start = strtab.offset + idx;
  const std::uint64_t end = strtab.offset + strtab.size;
  std::uint64_t p = start;
  while (p < end && b[p] != 0) ++p;
  if (p == end) bad(name, "unterminated string in string table " + std::to_string(strtab.index));
  return std::string(reinterpret_cast<const char*>(b.data() + start), p - start);
}

}  // namespace

int sm_from_flags(std::uint32_t e_flags, int abi_version) { return sass::sm_from_e_flags(e_flags, abi_version); }

CubinFile CubinFile::parse(std::vector<std::uint8_t> bytes, const std::string& name) {
  CubinFile f;
  f.name_ = name;
  f.bytes_ = std::move(bytes);
  const auto& b = f.bytes_;
  const std::uint64_t n = b.size();
  if (n < 64) bad(name, "too short for an ELF64 header (" + std::to_string(n) + " bytes)");
  if (!(b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F')) bad(name, "not an ELF file (bad magic)");
  if (b[4] != 2) bad(name, "not ELF64 (EI_CLASS " + std::to_string(b[4]) + "); cubins are ELF64");
  if (b[5] != 1) bad(name, "not little endian (EI_DATA " + std::to_string(b[5]) + ")");
  if (b[6] != 1) bad(name, "unknown ELF version " + std::to_string(b[6]));
  Header& h = f.header_;
  h.os_abi = b[7];
  h.abi_version = b[8];
  h.type = rd<std::uint16_t>(b, 16);
  h.machine = rd<std::uint16_t>(b, 18);
  if (h.machine != kEmCuda)
    bad(name, "e_machine " + std::to_string(h.machine) + " is not EM_CUDA (190): not a cubin");
  if (!((h.os_abi == 0x33 && h.abi_version == 7) || (h.os_abi == 0x41 && h.abi_version == 8))) {
    std::ostringstream os;
    os << "unknown CUDA ELF layout (OS ABI 0x" << std::hex << h.os_abi << std::dec << ", ABI version "
       << h.abi_version << "); known: 0x33/7 and 0x41/8";
    bad(name, os.str());
  }
  h.flags = rd<std::uint32_t>(b, 48);
  h.shoff = rd<std::uint64_t>(b, 40);
  const auto ehsize = rd<std::uint16_t>(b, 52);
  const auto shentsize = rd<std::uint16_t>(b, 58);
  h.shnum = rd<std::uint16_t>(b, 60);
  h.shstrndx = rd<std::uint16_t>(b, 62);
  if (ehsize != 64) bad(name, "unexpected ELF header size " + std::to_string(ehsize));
  if (h.shnum == 0) bad(name, "no section headers");
  if (shentsize != 64) bad(name, "unexpected section header size " + std::to_string(shentsize));
  if (!in_bounds(h.shoff, std::uint64_t(h.shnum) * 64, n)) bad(name, "section header table beyond the end of the file");
  if (h.shstrndx == 0 || h.shstrndx >= h.shnum) bad(name, "section name table index " + std::to_string(h.shstrndx) + " out of range");
  const auto phoff = rd<std::uint64_t>(b, 32);
  const auto phentsize = rd<std::uint16_t>(b, 54);
  const auto phnum = rd<std::uint16_t>(b, 56);
  if (phnum > 0 && phentsize != 56) bad(name, "unexpected program header size " + std::to_string(phentsize));
  if (phnum > 0 && !in_bounds(phoff, std::uint64_t(phnum) * 56, n)) bad(name, "program header table beyond the end of the file");
  f.sm_ = sm_from_flags(h.flags, h.abi_version);
  if (f.sm_ < 30) bad(name, "implausible SM number " + std::to_string(f.sm_) + " in e_flags");

  for (int i = 0; i < h.shnum; ++i) {
    const std::uint64_t o = h.shoff + std::uint64_t(i) * 64;
    Section s;
    s.index = i;
    s.type = rd<std::uint32_t>(b, o + 4);
    s.flags = rd<std::uint64_t>(b, o + 8);
    s.offset = rd<std::uint64_t>(b, o + 24);
    s.size = rd<std::uint64_t>(b, o + 32);
    s.link = rd<std::uint32_t>(b, o + 40);
    s.info = rd<std::uint32_t>(b, o + 44);
    s.addralign = rd<std::uint64_t>(b, o + 48);
    s.entsize = rd<std::uint64_t>(b, o + 56);
    if (i == 0 && s.type != kShtNull) bad(name, "section 0 is not the null section (type " + std::to_string(s.type) + ")");
    if (i > 0 && s.type != kShtNobits && !in_bounds(s.offset, s.size, n))
      bad(name, "section " + std::to_string(i) + " extends beyond the end of the file");
    s.name = std::to_string(rd<std::uint32_t>(b, o));  // resolved below
    f.sections_.push_back(s);
  }
  const Section shstr = f.sections_[h.shstrndx];
  for (auto& s : f.sections_) s.name = cstr_at(b, shstr, std::stoull(s.name), name, "the section header table");

  for (const auto& s : f.sections_) {
    if (s.type != kShtSymtab) continue;
    if (s.entsize != 24 || s.size % 24 != 0) bad(name, "symbol table " + s.name + " has an unexpected layout");
    if (s.link == 0 || s.link >= f.sections_.size()) bad(name, "symbol table " + s.name + " links to a missing string table");
    const Section& strtab = f.sections_[s.link];
    for (std::uint64_t o = s.offset; o < s.offset + s.size; o += 24) {
      Symbol sym;
      sym.name = cstr_at(b, strtab, rd<std::uint32_t>(b, o), name, "symbol table " + s.name);
      const std::uint8_t info = b[o + 4];
      sym.type = info & 0xf;
      sym.bind = info >> 4;
      sym.shndx = rd<std::uint16_t>(b, o + 6);
      sym.value = rd<std::uint64_t>(b, o + 8);
      sym.size = rd<std::uint64_t>(b, o + 16);
      f.symbols_.push_back(sym);
    }
  }
  for (const auto& s : f.sections_) {
    if (s.name.rfind(".text.", 0) != 0) continue;
    if (s.type == kShtNobits) bad(name, s.name + " has no bytes in the file (SHT_NOBITS)");
    if (!(s.flags & kShfExecinstr)) bad(name, s.name + " is not executable");
    if (s.size % 16 != 0) bad(name, s.name + " size " + std::to_string(s.size) + " is not a multiple of 16 bytes");
  }
  return f;
}

std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  const std::string data = read_regular_file(path);
  return std::vector<std::uint8_t>(data.begin(), data.end());
}

void write_file_bytes_atomic(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  write_text_atomic(path, std::string(bytes.begin(), bytes.end()));
}

CubinFile CubinFile::load(const std::string& path) { return parse(read_file_bytes(path), path); }

std::vector<std::string> CubinFile::functions() const {
  std::vector<std::string> out;
  for (const auto& s : sections_)
    if (s.name.rfind(".text.", 0) == 0) out.push_back(s.name.substr(6));
  return out;
}

const Section& CubinFile::text_section(const std::string& function) const {
  for (const auto& s : sections_)
    if (s.name == ".text." + function) return s;
  std::string avail;
  for (const auto& fn : functions()) avail += (avail.empty() ? "" : ", ") + fn;
  throw UsageError(name_ + ": no function '" + function + "' (no .text." + function + " section; functions: " +
                   (avail.empty() ? "none" : avail) + ")");
}

const Section* CubinFile::section_at(std::uint64_t file_offset) const {
  for (const auto& s : sections_)
    if (s.index > 0 && s.type != kShtNobits && file_offset >= s.offset && file_offset < s.offset + s.size) return &s;
  return nullptr;
}

}  // namespace divbench::cubin
