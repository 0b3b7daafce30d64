#include "divbench/cubin/elf.hpp"

#include <sstream>

#include "divbench/core/errors.hpp"
#include "divbench/core/files.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/sass/elf.hpp"

namespace divbench::cubin {
namespace {

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw UsageError(name + ": " + what);
}

}  // namespace

CubinFile CubinFile::parse(std::vector<std::uint8_t> bytes, const std::string& name) {
  CubinFile f;
  f.name_ = name;
  f.bytes_ = std::move(bytes);
  const auto& b = f.bytes_;
  // Magic, class, byte order, header, program and section header tables, every section's bounds.
  sass::ElfImage img = sass::read_elf(b.data(), b.size(), name);
  Header& h = f.header_ = img.header;
  if (h.machine != kEmCuda)
    bad(name, "e_machine " + std::to_string(h.machine) + " is not EM_CUDA (190): not a cubin");
  if (!((h.os_abi == 0x33 && h.abi_version == 7) || (h.os_abi == 0x41 && h.abi_version == 8))) {
    std::ostringstream os;
    os << "unknown CUDA ELF layout (OS ABI 0x" << std::hex << h.os_abi << std::dec << ", ABI version "
       << h.abi_version << "); known: 0x33/7 and 0x41/8";
    bad(name, os.str());
  }
  if (h.ehsize != 64) bad(name, "unexpected ELF header size " + std::to_string(h.ehsize));
  if (h.shnum == 0) bad(name, "no section headers");
  f.sm_ = sass::sm_from_e_flags(h.flags, h.abi_version);
  if (f.sm_ < 30) bad(name, "implausible SM number " + std::to_string(f.sm_) + " in e_flags");
  if (img.sections[0].type != kShtNull)
    bad(name, "section 0 is not the null section (type " + std::to_string(img.sections[0].type) + ")");
  sass::elf_section_names(b.data(), b.size(), img, name);
  f.symbols_ = sass::elf_symbols(b.data(), b.size(), img, name);
  f.sections_ = std::move(img.sections);
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
