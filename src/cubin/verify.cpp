#include "divbench/cubin/verify.hpp"

#include <cstring>
#include <map>

#include "divbench/core/errors.hpp"
#include "divbench/core/hex.hpp"
#include "divbench/cubin/disasm.hpp"
#include "divbench/cubin/patch.hpp"

namespace divbench::cubin {
namespace {

std::string word_hex(const CubinFile& f, const Section& s, std::uint64_t off) {
  std::uint64_t lo, hi;
  std::memcpy(&lo, f.bytes().data() + s.offset + off, 8);
  std::memcpy(&hi, f.bytes().data() + s.offset + off + 8, 8);
  return hex128(lo, hi);
}

}  // namespace

VerifyReport verify_patch(const CubinFile& original, const CubinFile& patched, const std::string& function,
                          const std::string& nvdisasm) {
  sass::Cubin da;
  try {
    da = disassemble_bytes(original, nvdisasm);
  } catch (const UsageError& e) {
    throw UsageError(std::string("cannot disassemble the original: ") + e.what());
  }
  return verify_patch(original, da, patched, function, nvdisasm);
}

VerifyReport verify_patch(const CubinFile& original, const sass::Cubin& da, const CubinFile& patched,
                          const std::string& function, const std::string& nvdisasm) {
  VerifyReport r;
  r.function = function;
  const Section& s = original.text_section(function);
  const Section& sp = patched.text_section(function);
  if (original.bytes().size() != patched.bytes().size() || s.offset != sp.offset || s.size != sp.size)
    throw UsageError("the patched cubin's layout differs from the original's");
  // Bytes: every difference must lie inside the function's .text section.
  const auto& a = original.bytes();
  const auto& b = patched.bytes();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    if (i < s.offset || i >= s.offset + s.size) {
      r.error = "bytes outside " + s.name + " differ (file offset " + hex(i) + ")";
      return r;
    }
    const std::uint64_t off = (i - s.offset) / kInstructionBytes * kInstructionBytes;
    if (r.patched.empty() || r.patched.back() != off) r.patched.push_back(off);
  }
  sass::Cubin db;
  try {
    db = disassemble_bytes(patched, nvdisasm);
  } catch (const std::exception& e) {
    r.error = std::string("disassembly failed: ") + e.what();
    return r;
  }
  const sass::Function& fa = function_named(da, function);
  const sass::Function& fb = function_named(db, function);
  r.instructions = fa.instructions.size();
  if (fa.instructions.size() != fb.instructions.size()) {
    r.error = "instruction count changed (" + std::to_string(fa.instructions.size()) + " -> " +
              std::to_string(fb.instructions.size()) + ")";
    return r;
  }
  std::map<std::uint64_t, bool> is_patched;
  for (auto o : r.patched) is_patched[o] = true;
  for (std::size_t i = 0; i < fa.instructions.size(); ++i) {
    const auto& x = fa.instructions[i];
    const auto& y = fb.instructions[i];
    const bool p = is_patched.count(x.offset) > 0;
    if (x.text() == y.text()) {
      if (p) r.silent.push_back(x.offset);
      continue;
    }
    InstructionChange c;
    c.offset = x.offset;
    c.before = x.text();
    c.after = y.text();
    c.bytes_before = word_hex(original, s, x.offset);
    c.bytes_after = word_hex(patched, s, x.offset);
    c.patched = p;
    if (!p) r.unexpected.push_back(x.offset);
    r.text_changed.push_back(c);
  }
  r.ok = r.unexpected.empty();
  if (!r.ok) r.error = std::to_string(r.unexpected.size()) + " unpatched instruction(s) changed their text";
  return r;
}

json VerifyReport::to_json() const {
  json j;
  j["ok"] = ok;
  if (!error.empty()) j["error"] = error;
  j["function"] = function;
  j["instructions"] = instructions;
  auto hexes = [](const std::vector<std::uint64_t>& v) {
    json a = json::array();
    for (auto o : v) a.push_back(hex(o));
    return a;
  };
  j["patched"] = hexes(patched);
  j["text_changed"] = json::array();
  for (const auto& c : text_changed)
    j["text_changed"].push_back({{"offset", hex(c.offset)},
                                 {"patched", c.patched},
                                 {"before", c.before},
                                 {"after", c.after},
                                 {"bytes_before", c.bytes_before},
                                 {"bytes_after", c.bytes_after}});
  j["unexpected"] = hexes(unexpected);
  j["silent"] = hexes(silent);
  return j;
}

}  // namespace divbench::cubin
