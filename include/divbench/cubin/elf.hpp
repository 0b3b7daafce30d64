// A CUDA cubin as an ELF64 file: the header, section headers, symbols and the `.text.<function>`
// sections that hold SASS. Our own small reader (no libelf): it accepts only the layout nvcc/ptxas
// emit (ELF64, little endian, EM_CUDA, OS ABI 0x33/0x41 with ABI version 7 or 8) and refuses anything
// else with a UsageError naming the problem. The bytes are kept verbatim: writing an unpatched file
// back reproduces it byte for byte, and patching changes only the bytes of the patched instructions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace divbench::cubin {

constexpr std::uint16_t kEmCuda = 190;
constexpr std::uint32_t kShtNull = 0;
constexpr std::uint32_t kShtSymtab = 2;
constexpr std::uint32_t kShtStrtab = 3;
constexpr std::uint32_t kShtNobits = 8;
constexpr std::uint64_t kShfExecinstr = 0x4;

struct Section {
  int index = 0;
  std::string name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t offset = 0;  // in the file
  std::uint64_t size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  std::uint64_t addralign = 0;
  std::uint64_t entsize = 0;
};

struct Symbol {
  std::string name;
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  int type = 0;  // STT_*: 2 = FUNC
  int bind = 0;  // STB_*
  std::uint16_t shndx = 0;
};

struct Header {
  int os_abi = 0;        // e_ident[EI_OSABI]: 0x33 (ABI 7) or 0x41 (ABI 8, CUDA 13)
  int abi_version = 0;   // e_ident[EI_ABIVERSION]: 7 or 8
  std::uint16_t type = 0;
  std::uint16_t machine = 0;
  std::uint32_t flags = 0;  // e_flags; SM number in bits 0-7 (ABI 7) or 8-15 (ABI 8)
  std::uint64_t shoff = 0;
  std::uint16_t shnum = 0;
  std::uint16_t shstrndx = 0;
};

// SM number (e.g. 90, 100) from e_flags for the given ABI version.
int sm_from_flags(std::uint32_t e_flags, int abi_version);

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
