#include "divbench/sass/control_word.hpp"

#include <algorithm>
#include <cstdio>

namespace divbench::sass {

std::optional<ControlWord> decode_control(const Instruction& ins) {
  if (!ins.encoding || ins.encoding->bits != 128) return std::nullopt;
  const Encoding& e = *ins.encoding;
  ControlWord w;
  w.stall = static_cast<int>(e.field(105, 4));
  w.yield = static_cast<int>(e.field(109, 1));
  w.write_barrier = static_cast<int>(e.field(110, 3));
  w.read_barrier = static_cast<int>(e.field(113, 3));
  w.wait_mask = static_cast<int>(e.field(116, 6));
  w.reuse = static_cast<int>(e.field(122, 4));
  w.opcode_bits = static_cast<int>(e.field(0, 12));
  w.guard_bits = static_cast<int>(e.field(12, 3));
  w.guard_negate = e.bit(15);
  if (ins.base == "BSSY" || ins.base == "BSYNC" || ins.base == "BREAK") w.barrier_reg = static_cast<int>(e.field(16, 4));
  return w;
}

std::optional<ControlWord> decode_bundle_control(const Instruction& ins) {
  if (!ins.encoding || ins.encoding->bits != 64 || !ins.encoding->control) return std::nullopt;
  const std::uint64_t pos = ins.offset % 32;
  if (pos == 0) return std::nullopt;  // the control word's own slot holds no instruction
  const unsigned slot = static_cast<unsigned>(pos / 8 - 1);
  const std::uint64_t c = (*ins.encoding->control >> (21 * slot)) & 0x1fffffu;
  ControlWord w;
  w.stall = static_cast<int>(c & 0xf);
  w.yield = static_cast<int>((c >> 4) & 1);
  w.write_barrier = static_cast<int>((c >> 5) & 7);
  w.read_barrier = static_cast<int>((c >> 8) & 7);
  w.wait_mask = static_cast<int>((c >> 11) & 0x3f);
  w.reuse = static_cast<int>((c >> 17) & 0xf);
  return w;
}

std::optional<ControlWord> scheduling_control(const Instruction& ins) {
  if (auto w = decode_control(ins)) return w;
  return decode_bundle_control(ins);
}

std::optional<ControlWord> scheduling_control(const Function& f, std::size_t i) {
  const Instruction& ins = f.instructions.at(i);
  if (auto w = scheduling_control(ins)) return w;
  if (f.instruction_bytes != 8) return std::nullopt;
  const std::uint64_t bundle = ins.offset / 32;
  const std::size_t lo = i >= 3 ? i - 3 : 0, hi = std::min(f.instructions.size(), i + 4);
  for (std::size_t k = lo; k < hi; ++k) {
    const Instruction& s = f.instructions[k];
    if (k == i || s.offset / 32 != bundle || !s.encoding || !s.encoding->control) continue;
    Instruction copy = ins;
    copy.encoding = Encoding{0, 0, 64, s.encoding->control};
    return decode_bundle_control(copy);
  }
  return std::nullopt;
}

json to_json(const ControlWord& w) {
  json j = json::object();
  j["stall"] = w.stall;
  j["yield"] = w.yield;
  j["write_barrier"] = w.write_barrier == 7 ? json(nullptr) : json(w.write_barrier);
  j["read_barrier"] = w.read_barrier == 7 ? json(nullptr) : json(w.read_barrier);
  j["wait_mask"] = w.wait_mask;
  j["reuse"] = w.reuse;
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%03x", w.opcode_bits);
  j["opcode_bits"] = buf;
  if (w.barrier_reg >= 0) j["barrier_reg"] = w.barrier_reg;
  return j;
}

}  // namespace divbench::sass
