#include "divbench/cubin/discover.hpp"

#include <algorithm>
#include <bitset>
#include <cstring>
#include <map>
#include <set>

#include "divbench/cubin/patch.hpp"

namespace divbench::cubin {
namespace {

using Word = std::bitset<128>;

Word word_at(const CubinFile& f, const Section& s, std::uint64_t off) {
  Word w;
  const std::uint8_t* p = f.bytes().data() + s.offset + off;
  for (int i = 0; i < 128; ++i) w[static_cast<std::size_t>(i)] = (p[i / 8] >> (i % 8)) & 1u;
  return w;
}

struct Group {
  std::vector<std::string> modifiers;  // sorted
  std::vector<Word> words;
};

// True when two modifier sets differ by one modifier: one added (BRA -> BRA.U) or one replaced
// (BSSY.RELIABLE -> BSSY.RECONVERGENT).
bool modifier_step(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> only_a, only_b;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_a));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_b));
  return (only_a.size() + only_b.size() == 1) || (only_a.size() == 1 && only_b.size() == 1);
}

bool constant_bit(const std::vector<Word>& ws, std::size_t bit, bool& value) {
  value = ws.front()[bit];
  for (const auto& w : ws)
    if (w[bit] != value) return false;
  return true;
}

}  // namespace

std::vector<ModifierField> discover_modifier_fields(const std::vector<CorpusEntry>& corpus) {
  // (sm, base) -> opcode with modifiers -> group
  std::map<std::pair<int, std::string>, std::map<std::string, Group>> groups;
  for (const auto& e : corpus) {
    for (const auto& fn : e.disasm->functions) {
      const Section& s = e.file->text_section(fn.name);
      for (const auto& ins : fn.instructions) {
        if (ins.offset + kInstructionBytes > s.size) continue;
        auto& g = groups[{e.file->sm(), ins.base}][ins.opcode];
        if (g.words.empty()) {
          g.modifiers = ins.modifiers;
          std::sort(g.modifiers.begin(), g.modifiers.end());
        }
        g.words.push_back(word_at(*e.file, s, ins.offset));
      }
    }
  }
  std::vector<ModifierField> out;
  for (const auto& [key, by_opcode] : groups) {
    if (by_opcode.size() < 2) continue;
    Word mask;  // operand and scheduling bits, never reported
    for (int i = 12; i <= 15; ++i) mask.set(static_cast<std::size_t>(i));
    for (int i = 105; i <= 127; ++i) mask.set(static_cast<std::size_t>(i));
    for (const auto& [op, g] : by_opcode)
      for (const auto& w : g.words) mask |= (w ^ g.words.front());
    for (auto ia = by_opcode.begin(); ia != by_opcode.end(); ++ia) {
      for (auto ib = std::next(ia); ib != by_opcode.end(); ++ib) {
        const Group* a = &ia->second;
        const Group* b = &ib->second;
        std::string an = ia->first, bn = ib->first;
        if (!modifier_step(a->modifiers, b->modifiers)) continue;
        if (a->modifiers.size() > b->modifiers.size()) {
          std::swap(a, b);
          std::swap(an, bn);
        }
        ModifierField f;
        f.sm = key.first;
        f.base = key.second;
        f.from = an;
        f.to = bn;
        f.from_count = a->words.size();
        f.to_count = b->words.size();
        f.masked_operand_bits = mask.count();
        for (std::size_t bit = 0; bit < 128; ++bit) {
          if (mask[bit]) continue;
          bool va, vb;
          if (constant_bit(a->words, bit, va) && constant_bit(b->words, bit, vb) && va != vb) {
            f.bits.push_back(static_cast<int>(bit));
          }
        }
        for (auto it = f.bits.rbegin(); it != f.bits.rend(); ++it) {
          f.from_bits += a->words.front()[static_cast<std::size_t>(*it)] ? '1' : '0';
          f.to_bits += b->words.front()[static_cast<std::size_t>(*it)] ? '1' : '0';
        }
        out.push_back(f);
      }
    }
  }
  return out;
}

json to_json(const ModifierField& f) {
  return json{{"sm", f.sm},
              {"base", f.base},
              {"from", f.from},
              {"to", f.to},
              {"bits", f.bits},
              {"from_value", f.from_bits},
              {"to_value", f.to_bits},
              {"from_count", f.from_count},
              {"to_count", f.to_count},
              {"masked_operand_bits", f.masked_operand_bits}};
}

}  // namespace divbench::cubin
