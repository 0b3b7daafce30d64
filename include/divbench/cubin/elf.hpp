// A CUDA cubin as an ELF64 file: the header, section headers, symbols and the `.text.<function>`
// sections that hold SASS. Built on divbench's one ELF reader (sass/elf.hpp, no libelf): it
// accepts only the layout nvcc/ptxas emit (ELF64, little endian, EM_CUDA, OS ABI 0x33/0x41 with ABI
// version 7 or 8) and refuses anything else with a UsageError naming the problem. The bytes are kept verbatim: writing an unpatched file
// back reproduces it byte for byte, and patching changes only the bytes of the patched instructions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/sass/elf.hpp"

namespace divbench::cubin {

// The ELF structures and constants are the shared reader's (sass/elf.hpp); this file adds the
// CUDA layout rules, section names, symbols and the .text checks the patcher relies on.
using sass::kEmCuda;
using sass::kShfExecinstr;
using sass::kShtNobits;
using sass::kShtNull;
using sass::kShtStrtab;
using sass::kShtSymtab;
using Header = sass::ElfHeader;
using Section = sass::ElfSection;

using Symbol = sass::ElfSymbol;

class CubinFile {
 public:
  // Parses `bytes`; `name` is used in messages. Throws UsageError for anything outside the layout
  // described above (bad magic, class, endianness, machine, ABI, section table out of bounds, ...).
  static CubinFile parse(std::vector<std::uint8_t> bytes, const std::string& name = "cubin");
  // Reads and parses a file. Throws UsageError when it cannot be read.
  static CubinFile load(const std::string& path);

  const std::string& name() const { return name_; }
  void set_name(const std::string& n) { name_ = n; }  // e.g. "<original> (patched)" for messages
  const Header& header() const { return header_; }
  int sm() const { return sm_; }
  const std::vector<Section>& sections() const { return sections_; }
  const std::vector<Symbol>& symbols() const { return symbols_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::vector<std::uint8_t>& mutable_bytes() { return bytes_; }

  // Kernel/function names that have a `.text.<name>` section, in section order.
  std::vector<std::string> functions() const;
  // The `.text.<function>` section; throws UsageError naming the available functions when absent.
  const Section& text_section(const std::string& function) const;
  // The section that contains file offset `file_offset`, or nullptr.
  const Section* section_at(std::uint64_t file_offset) const;

 private:
  std::string name_;
  std::vector<std::uint8_t> bytes_;
  Header header_;
  int sm_ = 0;
  std::vector<Section> sections_;
  std::vector<Symbol> symbols_;
};

// Reads a whole regular file (UsageError when missing, unreadable, a directory or a FIFO/device).
std::vector<std::uint8_t> read_file_bytes(const std::string& path);
// Writes bytes atomically (temp file + rename); UsageError when the directory is not writable.
void write_file_bytes_atomic(const std::string& path, const std::vector<std::uint8_t>& bytes);

}  // namespace divbench::cubin
