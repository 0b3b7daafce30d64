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
json to_json(const ControlWord& w);

}  // namespace divbench::sass
