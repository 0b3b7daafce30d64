// What a cubin's own bytes add to nvdisasm's JSON listing (sm_70 and later), so that one nvdisasm run
// is enough: each instruction's 128-bit encoding (its 16 bytes in .text.<function>), the subroutine
// symbols a function's section holds (name -> offset in the section: the CFG's extra entries) and the
// targets of the CALLs that name them. These came from a second nvdisasm run, the text listing
// (`-c -hex`), which costs as much as the first; disassemble() still runs it for what the bytes do not
// say simply: BRX/JMX jump tables, Maxwell/Pascal bundles and their control words, and the -g line
// comments of an nvdisasm whose JSON has no line table.
#pragma once
#include <string>
#include <vector>

#include "divbench/sass/instruction.hpp"

namespace divbench::sass {

// Fills `functions` (parsed from `nvdisasm -json` of the cubin whose file holds `bytes`; `name` for
// messages). Returns false and changes nothing when the bytes and the listing do not fit together: a
// function without a .text.<name> section with bytes, an instruction slot other than 16 bytes or one
// beyond its section. Throws UsageError for a malformed ELF file (sass/elf.hpp).
bool apply_elf_facts(std::vector<Function>& functions, const std::string& bytes, const std::string& name);

// True when a function holds an indirect branch (BRX, BRXU, JMX, JMXU), whose targets only the text
// listing's BRANCH_TARGETS name.
bool has_indirect_branch(const std::vector<Function>& functions);

}  // namespace divbench::sass
