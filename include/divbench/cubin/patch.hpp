// Setting a bit field in 128-bit SASS instructions of a cubin's `.text.<function>` section.
//
// Instruction words are little endian: bits 0-63 are the first 8 bytes, bits 64-127 the next 8
// (the numbering of nvdisasm -hex: opcode 0-11, guard predicate 12-15, ...; docs/sass.md "Control words").
// Offsets are relative to the function's section, as nvdisasm prints them (/*01d0*/).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/hex.hpp"  // hex128 of instruction words
#include "divbench/cubin/elf.hpp"

namespace divbench::cubin {

constexpr int kInstructionBytes = 16;
constexpr int kInstructionBits = 128;

struct BitField {
  int first = 0;  // lowest bit, 0..127
  int width = 1;  // 1..64, first + width <= 128
};
// Parses "72:2" (first:width) or "72" (one bit). UsageError for anything else or out of range.
BitField parse_bit_field(const std::string& spec);
// UsageError unless `value` fits in `f.width` bits.
void check_value_fits(const BitField& f, std::uint64_t value);

// Read/write a field of one instruction word (16 bytes at `word`).
std::uint64_t get_field(const std::uint8_t* word, const BitField& f);
void set_field(std::uint8_t* word, const BitField& f, std::uint64_t value);

struct PatchRequest {
  std::string function;
  std::uint64_t offset = 0;  // section-relative, multiple of 16
  BitField field;
  std::uint64_t value = 0;
};

struct PatchApplied {
  PatchRequest request;
  std::uint64_t file_offset = 0;
  std::uint64_t old_value = 0;
  std::uint64_t old_lo = 0, old_hi = 0, new_lo = 0, new_hi = 0;  // the whole 128-bit word
};

// Validates every request first (function exists, offset on an instruction boundary inside the
// section, field and value in range) and only then patches `file` in memory. Throws UsageError
// without changing anything when one request is invalid.
std::vector<PatchApplied> apply_patches(CubinFile& file, const std::vector<PatchRequest>& requests);

// The 128-bit word at section-relative `offset` of `function` (lo = bits 0-63).
void read_word(const CubinFile& file, const std::string& function, std::uint64_t offset, std::uint64_t& lo,
               std::uint64_t& hi);

}  // namespace divbench::cubin
