#include "divbench/sass/instruction.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace divbench::sass {

bool Instruction::has(const std::string& modifier) const {
  return std::find(modifiers.begin(), modifiers.end(), modifier) != modifiers.end();
}

std::string Instruction::text() const {
  std::string s;
  if (!guard.empty()) s += std::string("@") + (guard_negated ? "!" : "") + guard + " ";
  s += opcode;
  for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? ", " : " ") + operands[i];
  return s;
}

const Instruction* Function::at(std::uint64_t off) const {
  auto it = std::lower_bound(instructions.begin(), instructions.end(), off,
                             [](const Instruction& a, std::uint64_t o) { return a.offset < o; });
  return it != instructions.end() && it->offset == off ? &*it : nullptr;
}

void split_opcode(const std::string& opcode, std::string& base, std::vector<std::string>& modifiers) {
  modifiers.clear();
  auto dot = opcode.find('.');
  base = opcode.substr(0, dot);
  while (dot != std::string::npos) {
    auto next = opcode.find('.', dot + 1);
    modifiers.push_back(opcode.substr(dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1));
    dot = next;
  }
}

static std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split_operands(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '[' || c == '(' || c == '{') ++depth;
    if (c == ']' || c == ')' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  return out;
}

bool is_uniform_predicate(const std::string& reg) {
  std::string r = reg;
  if (!r.empty() && r[0] == '!') r = r.substr(1);
  return r == "PT" || r == "UPT" || (r.size() >= 3 && r[0] == 'U' && r[1] == 'P');
}

std::optional<std::int64_t> parse_integer(const std::string& s0) {
  std::string s = trim(s0);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s = s.substr(1);
  }
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s = s.substr(2);
  }
  // Accumulate the magnitude unsigned and refuse anything beyond the int64 range (no signed
  // overflow: a huge literal is not an address, it is "not a plain integer").
  const std::uint64_t limit = neg ? std::uint64_t(1) << 63 : (std::uint64_t(1) << 63) - 1;
  std::uint64_t v = 0;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else return std::nullopt;
    if (v > (limit - d) / static_cast<unsigned>(base)) return std::nullopt;
    v = v * static_cast<unsigned>(base) + d;
  }
  if (neg) return v == (std::uint64_t(1) << 63) ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(v);
  return static_cast<std::int64_t>(v);
}

}  // namespace divbench::sass
