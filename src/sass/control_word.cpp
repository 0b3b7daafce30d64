#include "divbench/sass/control_word.hpp"

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
