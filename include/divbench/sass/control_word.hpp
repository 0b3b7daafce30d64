// Volta+ scheduling control bits of a 128-bit instruction:
//   stall 105-108, yield 109, write barrier 110-112, read barrier 113-115, wait mask 116-121,
//   reuse 122-125. Barrier index 7 means "none". The yield bit is reported raw.
// Source of the fields and their meaning: Z. Jia, M. Maggioni, J. Smith, D. P. Scarpazza, "Dissecting
// the NVIDIA Turing T4 GPU via Microbenchmarking", arXiv:1903.07486 (2019), section on control
// information (one 128-bit word carries an instruction and its own control bits on Volta and Turing;
// reuse flags, wait barrier mask, read/write barrier index, stall cycles, yield flag). The bit positions
// above were checked against nvdisasm 13.5 -hex output of sm_80..sm_120 cubins (tests/sass/
// test_cubins.cpp, docs/sass.md "Control words").
// Also the opcode field (bits 0-11) and, for BSSY/BSYNC/BREAK, the barrier register (16-19).
#pragma once
#include <cstdint>
#include <optional>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::sass {

struct ControlWord {
  int stall = 0;
  int yield = 0;
  int write_barrier = 7;
  int read_barrier = 7;
  int wait_mask = 0;
  int reuse = 0;
  int opcode_bits = 0;   // bits 0-11
  int barrier_reg = -1;  // bits 16-19 for BSSY/BSYNC/BREAK/BMOV, else -1
  int guard_bits = 0;    // bits 12-14 (7 = PT)
  bool guard_negate = false;  // bit 15
};

// nullopt when the instruction has no 128-bit encoding.
std::optional<ControlWord> decode_control(const Instruction& ins);

// Maxwell/Pascal: the instruction's 21-bit share of its bundle's 64-bit control word (slot s = 0, 1,
// 2 at bits 21s..21s+20: stall 0-3, yield 4, write barrier 5-7, read barrier 8-10, wait mask 11-16,
// reuse 17-20; the maxas layout). The slot is the instruction's place in its 32-byte bundle
// (offset % 32 = 8, 16, 24). nullopt without a bundle control word (Encoding::control). Only the
// scheduling fields are filled (opcode_bits, guard and barrier_reg keep their defaults).
std::optional<ControlWord> decode_bundle_control(const Instruction& ins);
// decode_control for 128-bit instructions, decode_bundle_control for 64-bit ones.
std::optional<ControlWord> scheduling_control(const Instruction& ins);
// Instruction i of f; for a 64-bit instruction without a bundle control word of its own (the text
// listing gives none to the second instruction of a dual-issue pair `{ A ; B }`), the control word
// another instruction of the same 32-byte bundle carries.
std::optional<ControlWord> scheduling_control(const Function& f, std::size_t i);
json to_json(const ControlWord& w);

}  // namespace divbench::sass
