// The SASS instruction model: what the analyzer knows about one machine instruction.
//
// Filled by a parser (nvdisasm -json for CUDA 12.8+, the text listing for older toolkits or
// architectures newer nvdisasm refuses) and never by the analysis passes, which only read it.
// A parser for another listing format (e.g. Pascal sm_6x from a CUDA 12.x nvdisasm, 64-bit
// instructions with a control word per bundle of three) fills the same structs: see parse.hpp.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace divbench::sass {

// Raw encoding of one instruction. Volta and later: 128 bits, `lo` = bits 0-63, `hi` = 64-127.
// Pascal and earlier: 64-bit instructions (`lo` only, `bits` = 64) plus the 64-bit control word of
// its bundle in `control` (bits = 64 means `hi` is unused).
struct Encoding {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  int bits = 128;
  std::optional<std::uint64_t> control;  // Pascal/Maxwell bundle control word, when known

  // Bit `i` (0-based, 0..bits-1) and an unsigned field of `width` bits starting at `first`.
  bool bit(int i) const { return i < 64 ? ((lo >> i) & 1u) : ((hi >> (i - 64)) & 1u); }
  std::uint64_t field(int first, int width) const {
    std::uint64_t v = 0;
    for (int k = width - 1; k >= 0; --k) v = (v << 1) | (bit(first + k) ? 1u : 0u);
    return v;
  }
};

struct Instruction {
  std::uint64_t offset = 0;      // byte offset inside the function's .text section
  // Guard predicate "@P0" / "@!UP1": register name without '@'/'!' ("" when unguarded or @PT).
  std::string guard;
  bool guard_negated = false;
  std::string opcode;            // full mnemonic with modifiers, e.g. "BSSY.RECONVERGENT"
  std::string base;              // "BSSY"
  std::vector<std::string> modifiers;  // {"RECONVERGENT"}
  std::vector<std::string> operands;   // split at top-level commas, trimmed
  // Absolute offsets this instruction can transfer control to (BRA/JMP/BSSY/SSY/PBK/CALL..., and
  // BRX/JMX jump tables when the listing names their BRANCH_TARGETS). Empty when unknown.
  std::vector<std::uint64_t> targets;
  std::string call_symbol;       // CALL target given by name (a subroutine inside the function)
  bool control_flow = false;     // nvdisasm's "control-flow" attribute (or inferred from base)
  bool subroutine_call = false;  // nvdisasm's "subroutine-call" attribute (CALL)
  std::optional<Encoding> encoding;
  // Source position from the cubin's line table (nvdisasm -json -g; a -lineinfo or -G build): an
  // index into Cubin::source_files and a line; source_line 0 = unknown.
  int source_file = -1;
  int source_line = 0;

  bool has(const std::string& modifier) const;
  bool guarded() const { return !guard.empty(); }
  // "@!P0 BRA.U !UP0, 0x1b0" style text, for messages and the console.
  std::string text() const;
};

struct Function {
  std::string name;
  std::uint64_t start = 0;   // offset of the first instruction in its section
  std::uint64_t length = 0;  // bytes
  int instruction_bytes = 16;
  std::vector<Instruction> instructions;  // ascending offsets, one per instruction slot
  // Labels and subroutine symbols inside the function (offset -> name), when the listing has them.
  std::map<std::uint64_t, std::string> labels;
  // Subroutines inside this function's section (name -> offset), e.g. "$_Z2k2Pi$_Z1fi": entered by
  // CALL, not by falling through. Used as extra CFG entries.
  std::map<std::string, std::uint64_t> subroutines;

  const Instruction* at(std::uint64_t offset) const;  // nullptr when no instruction there
};

struct Cubin {
  std::string path;          // the cubin analysed (a temp file when extracted)
  std::string source;        // the file the user named (executable, object, or the cubin itself)
  int sm = 0;                // SM number from the ELF header, e.g. 90
  std::string producer;      // nvdisasm's Producer string, or its --version line
  std::string toolkit;       // ptxas version from .note.nv.tkinfo when present
  std::vector<Function> functions;
  std::vector<std::string> source_files;  // the line table's files (paths), when disassembled with line info
};

// Splits "BSSY.RECONVERGENT" into base and modifiers; splits operand text at top-level commas
// (commas inside [] () {} are kept) and trims spaces.
void split_opcode(const std::string& opcode, std::string& base, std::vector<std::string>& modifiers);
std::vector<std::string> split_operands(const std::string& text);

// True when `reg` names a uniform predicate or the always-true predicate (UP0..UP7, UPT, PT).
bool is_uniform_predicate(const std::string& reg);
// Parses "0x1b0" / "-0x260" / "123"; nullopt when `s` is not a plain integer literal or lies
// outside the int64 range.
std::optional<std::int64_t> parse_integer(const std::string& s);

}  // namespace divbench::sass
