// Encoding-field discovery: which bits carry an opcode modifier. Over a corpus of cubins, the
// instructions of one SM and one base opcode are grouped by their modifier set; two groups whose
// sets differ by one modifier (added, e.g. BRA -> BRA.U, or replaced, e.g. BSSY.RELIABLE ->
// BSSY.RECONVERGENT) are compared. Operand bits are masked: the guard predicate (12-15), the
// scheduling control bits (105-127), and every bit that varies inside any group of that opcode
// (registers, branch offsets). The bits left that are constant inside each group and differ between
// them carry the modifier.
#pragma once
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/cubin/elf.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::cubin {

struct ModifierField {
  int sm = 0;
  std::string base;             // "BSSY"
  std::string from, to;         // full opcodes, e.g. "BSSY" and "BSSY.RECONVERGENT"
  std::vector<int> bits;        // bit positions that differ (ascending)
  std::string from_bits, to_bits;  // their values in each group, most significant bit first
  std::size_t from_count = 0, to_count = 0;  // instructions in each group
  std::size_t masked_operand_bits = 0;       // bits masked as operand fields for this opcode
};

struct CorpusEntry {
  const CubinFile* file;   // encodings come from the ELF bytes
  const sass::Cubin* disasm;  // texts from nvdisasm
};

std::vector<ModifierField> discover_modifier_fields(const std::vector<CorpusEntry>& corpus);
json to_json(const ModifierField& f);

}  // namespace divbench::cubin

namespace divbench::cubin {

inline constexpr const char* kFlipDiscoverSchema = "divbench.flip-discover/2";

// `divbench flip discover` as a library call: every cubin of `files` (cubins, or executables and
// objects with embedded cubins, extracted into a temporary directory that is removed again),
// disassembled with `nvdisasm`, and the "divbench.flip-discover/2" document of the fields found.
// `progress` (may be null) gets one line per field.
json discover_report(const std::vector<std::string>& files, const std::string& nvdisasm,
                     const std::string& command_line, std::ostream* progress);

}  // namespace divbench::cubin
