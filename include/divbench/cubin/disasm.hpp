// Disassembly of an in-memory cubin through the sass helper's nvdisasm runner, and selecting
// instructions of a function by opcode pattern.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/cubin/elf.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::cubin {

// Writes `file`'s bytes to a temporary cubin and disassembles it (nvdisasm -json). Throws
// UsageError with nvdisasm's message when it rejects the file.
sass::Cubin disassemble_bytes(const CubinFile& file, const std::string& nvdisasm);

// The function `name` of a disassembled cubin; UsageError when absent.
const sass::Function& function_named(const sass::Cubin& c, const std::string& name);

// Instructions of `fn` whose opcode (with modifiers, e.g. "BSSY.RECONVERGENT") matches one of the
// comma-separated shell patterns in `patterns` ("BSSY*,BSYNC*"). `nth` >= 0 keeps only the nth
// match (0-based); `all` keeps every match; with neither, exactly one instruction must match.
// Throws UsageError when nothing matches or the choice is ambiguous.
std::vector<const sass::Instruction*> select_instructions(const sass::Function& fn, const std::string& patterns,
                                                          int nth, bool all);

}  // namespace divbench::cubin
