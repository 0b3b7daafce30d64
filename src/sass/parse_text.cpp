// nvdisasm text listing -> instruction model (encodings, labels, BRX targets; the only source on
// toolkits without -json).
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

#include "divbench/core/errors.hpp"
#include "divbench/sass/cfg.hpp"
#include "divbench/sass/parse.hpp"

namespace divbench::sass {

namespace {

// The line shapes of a listing, matched by hand in one left-to-right pass each (no std::regex: its
// backtracking recursed once per character and overflowed the stack on a long line). Character
// classes are those of the ECMAScript patterns they replace, quoted above each matcher.

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

std::size_t skip_space(const std::string& s, std::size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}
bool starts_at(const std::string& s, std::size_t i, const char* lit) { return s.compare(i, std::strlen(lit), lit) == 0; }
bool only_space_from(const std::string& s, std::size_t i) { return skip_space(s, i) == s.size(); }

// Hex digits of a listing (an offset or an encoding half); UsageError when they do not fit 64 bits.
std::uint64_t hex(const std::string& s) {
  std::size_t i = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0;
  while (i + 1 < s.size() && s[i] == '0') ++i;
  if (s.size() - i > 16) throw UsageError("nvdisasm listing: hex number " + s.substr(0, 40) + " does not fit 64 bits");
  return std::stoull(s.substr(i), nullptr, 16);
}

// `^\s*DIRECTIVE\s+PREFIX([^,\s]+),` (a prefix of the line): the name; `comma` is set to the index of
// the comma after it.
std::optional<std::string> match_directive_name(const std::string& l, const char* directive, const char* prefix,
                                                std::size_t& comma) {
  std::size_t i = skip_space(l, 0);
  if (!starts_at(l, i, directive)) return std::nullopt;
  i += std::strlen(directive);
  const std::size_t ws = i;
  i = skip_space(l, i);
  if (i == ws || !starts_at(l, i, prefix)) return std::nullopt;
  i += std::strlen(prefix);
  const std::size_t a = i;
  while (i < l.size() && l[i] != ',' && !is_space(l[i])) ++i;
  if (i == a || i >= l.size() || l[i] != ',') return std::nullopt;
  comma = i;
  return l.substr(a, i - a);
}

// `^\s*\.section\s+\.text\.([^,\s]+),` (a prefix of the line)
std::optional<std::string> match_section(const std::string& l) {
  std::size_t comma = 0;
  return match_directive_name(l, ".section", ".text.", comma);
}

// `^\s*\.type\s+([^,\s]+),\s*@function` (a prefix of the line)
std::optional<std::string> match_function_type(const std::string& l) {
  std::size_t comma = 0;
  auto name = match_directive_name(l, ".type", "", comma);
  if (!name || !starts_at(l, skip_space(l, comma + 1), "@function")) return std::nullopt;
  return name;
}

// `^\s*([.$A-Za-z_][\w.$@]*):\s*$` (the whole line)
std::optional<std::string> match_label(const std::string& l) {
  std::size_t i = skip_space(l, 0);
  const std::size_t a = i;
  if (i >= l.size() || !(l[i] == '.' || l[i] == '$' || l[i] == '_' || std::isalpha(static_cast<unsigned char>(l[i]))))
    return std::nullopt;
  ++i;
  while (i < l.size() && (is_word(l[i]) || l[i] == '.' || l[i] == '$' || l[i] == '@')) ++i;
  if (i >= l.size() || l[i] != ':' || !only_space_from(l, i + 1)) return std::nullopt;
  return l.substr(a, i - a);
}

// `/\*\s*(0x[0-9a-fA-F]+)\s*\*/` exactly spanning l[a, b): the encoding comment.
std::optional<std::string> match_hex_comment(const std::string& l, std::size_t a, std::size_t b) {
  if (b < a + 4 || !starts_at(l, a, "/*") || l.compare(b - 2, 2, "*/") != 0) return std::nullopt;
  std::size_t i = skip_space(l, a + 2);
  const std::size_t h = i;
  if (i + 2 > b - 2 || l[i] != '0' || l[i + 1] != 'x') return std::nullopt;
  i += 2;
  const std::size_t d = i;
  while (i < b - 2 && is_hex(l[i])) ++i;
  if (i == d || skip_space(l, i) != b - 2) return std::nullopt;
  return l.substr(h, i - h);
}

// `^\s*/\*\s*(0x[0-9a-fA-F]+)\s*\*/\s*$` (the whole line): the second half of an encoding.
std::optional<std::string> match_hex_only(const std::string& l) {
  const std::size_t a = skip_space(l, 0);
  std::size_t b = l.size();
  while (b > a && is_space(l[b - 1])) --b;
  return match_hex_comment(l, a, b);
}

struct InstructionLine {
  std::string offset, body;
  std::optional<std::string> encoding;
};

// `^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*(?:/\*\s*(0x[0-9a-fA-F]+)\s*\*/)?\s*$` (the whole line):
// offset comment, body, optional encoding comment. The encoding comment, when present, starts at
// the line's last "/*" (its contents cannot hold one).
std::optional<InstructionLine> match_instruction(const std::string& l) {
  std::size_t i = skip_space(l, 0);
  if (!starts_at(l, i, "/*")) return std::nullopt;
  i += 2;
  const std::size_t a = i;
  while (i < l.size() && is_hex(l[i])) ++i;
  if (i - a < 4 || !starts_at(l, i, "*/")) return std::nullopt;
  InstructionLine r;
  r.offset = l.substr(a, i - a);
  i += 2;
  const std::size_t ws = i;
  i = skip_space(l, i);
  if (i == ws) return std::nullopt;
  std::size_t end = l.size();
  while (end > i && is_space(l[end - 1])) --end;
  const std::size_t last = l.rfind("/*");
  if (last != std::string::npos && last >= i) {
    if (auto e = match_hex_comment(l, last, end)) {
      r.encoding = e;
      end = last;
      while (end > i && is_space(l[end - 1])) --end;
    }
  }
  r.body = l.substr(i, end - i);
  if (r.body.find('\r') != std::string::npos) return std::nullopt;  // '.' matches no line terminator
  return r;
}

// First `\(\*"BRANCH_TARGETS\s+([^"]*)"\*\)` in `body`: its list; every such table is removed.
std::optional<std::string> take_branch_targets(std::string& body) {
  static const std::string kOpen = "(*\"BRANCH_TARGETS";
  std::optional<std::string> first;
  std::string out;
  std::size_t from = 0, i = 0;
  while ((i = body.find(kOpen, i)) != std::string::npos) {
    std::size_t j = i + kOpen.size();
    const std::size_t ws = j;
    j = skip_space(body, j);
    const std::size_t q = body.find('"', j);
    if (j == ws || q == std::string::npos || !starts_at(body, q + 1, "*)")) {
      ++i;
      continue;
    }
    if (!first) first = body.substr(j, q - j);
    out += body.substr(from, i - from);
    from = i = q + 3;
  }
  out += body.substr(from);
  body = out;
  return first;
}

// Every `` `\(([^)]+)\) `` (a backquoted label reference, `(.L_x_3)) in `body`, replaced by the label itself.
std::vector<std::string> take_label_refs(std::string& body) {
  std::vector<std::string> refs;
  std::string out;
  std::size_t from = 0, i = 0;
  while ((i = body.find("`(", i)) != std::string::npos) {
    const std::size_t close = body.find(')', i + 2);
    if (close == std::string::npos || close == i + 2) {
      ++i;
      continue;
    }
    refs.push_back(body.substr(i + 2, close - i - 2));
    out += body.substr(from, i - from) + refs.back();
    from = i = close + 1;
  }
  out += body.substr(from);
  body = out;
  return refs;
}

struct Pending {
  std::vector<std::string> target_labels;  // BRX BRANCH_TARGETS / `(label) operands
};

}  // namespace

std::vector<Function> parse_nvdisasm_text(const std::string& listing, int sm) {
  std::vector<Function> fns;
  std::vector<std::vector<Pending>> pend;
  std::vector<std::string> pending_labels;
  std::optional<std::uint64_t> bundle_control;
  Instruction* last = nullptr;
  bool last_needs_hi = false;
  // Maxwell/Pascal dual issue `{ A ; B }`: B's line has no hex; its encoding is the next hex-only line.
  bool last_needs_encoding = false;
  std::istringstream in(listing);
  std::string line;
  while (std::getline(in, line)) {
    if (auto name = match_section(line)) {
      fns.emplace_back();
      fns.back().name = *name;
      fns.back().instruction_bytes = sm >= 70 || sm == 0 ? 16 : 8;
      pend.emplace_back();
      pending_labels.clear();
      last = nullptr;
      last_needs_encoding = false;
      continue;
    }
    if (fns.empty()) continue;
    Function& f = fns.back();
    if (auto sub = match_function_type(line)) {
      if (*sub != f.name) f.subroutines[*sub] = 0;  // offset filled when its label is seen
      continue;
    }
    if (auto label = match_label(line)) {
      pending_labels.push_back(*label);
      continue;
    }
    if (auto half = match_hex_only(line)) {
      const std::uint64_t v = hex(*half);
      if (last && last_needs_hi) {
        last->encoding->hi = v;
        last_needs_hi = false;
      } else if (last && last_needs_encoding) {
        Encoding e;
        e.lo = v;
        e.bits = 64;
        e.control = bundle_control;
        last->encoding = e;
        last_needs_encoding = false;
      } else if (sm > 0 && sm < 70) {
        bundle_control = v;  // Maxwell/Pascal: control word of the next three instructions
      }
      continue;
    }
    auto m = match_instruction(line);
    if (!m) continue;
    Instruction ins;
    ins.offset = hex(m->offset);
    std::string body = m->body;
    if (m->encoding) {
      Encoding e;
      e.lo = hex(*m->encoding);
      if (sm > 0 && sm < 70) {
        e.bits = 64;
        e.control = bundle_control;
      }
      ins.encoding = e;
    }
    Pending p;
    if (auto list = take_branch_targets(body)) {
      std::stringstream ts(*list);
      std::string t;
      while (std::getline(ts, t, ',')) p.target_labels.push_back(t);
    }
    while (!body.empty() && (body.back() == ';' || body.back() == ' ' || body.back() == '}')) body.pop_back();
    if (!body.empty() && body[0] == '{') body.erase(0, body.find_first_not_of("{ "));
    const bool has_table = !p.target_labels.empty();
    for (auto& ref : take_label_refs(body))
      if (!has_table) p.target_labels.push_back(std::move(ref));
    if (!body.empty() && body[0] == '@') {
      auto sp = body.find(' ');
      std::string g = body.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
      if (!g.empty() && g[0] == '!') {
        ins.guard_negated = true;
        g = g.substr(1);
      }
      ins.guard = (g == "PT" && !ins.guard_negated) ? "" : g;
      body = sp == std::string::npos ? "" : body.substr(sp + 1);
      while (!body.empty() && body[0] == ' ') body.erase(0, 1);
    }
    auto sp = body.find(' ');
    ins.opcode = body.substr(0, sp);
    split_opcode(ins.opcode, ins.base, ins.modifiers);
    ins.operands = split_operands(sp == std::string::npos ? "" : body.substr(sp + 1));
    for (const auto& l : pending_labels) {
      f.labels[ins.offset] = l;
      if (f.subroutines.count(l)) f.subroutines[l] = ins.offset;
    }
    pending_labels.clear();
    if (f.instructions.empty()) f.start = ins.offset;
    f.instructions.push_back(std::move(ins));
    pend.back().push_back(std::move(p));
    last = &f.instructions.back();
    last_needs_hi = last->encoding && last->encoding->bits == 128;
    last_needs_encoding = !last->encoding && sm > 0 && sm < 70;
  }
  // Resolve label references now that every label of the section is known.
  for (std::size_t fi = 0; fi < fns.size(); ++fi) {
    Function& f = fns[fi];
    std::map<std::string, std::uint64_t> by_name;
    for (const auto& [off, name] : f.labels) by_name[name] = off;
    for (std::size_t i = 0; i < f.instructions.size(); ++i) {
      Instruction& ins = f.instructions[i];
      for (const auto& l : pend[fi][i].target_labels) {
        auto it = by_name.find(l);
        if (it == by_name.end()) continue;  // e.g. RET's function name: not a code address here
        if (ins.base == "CALL" && f.subroutines.count(l)) ins.call_symbol = l;
        ins.targets.push_back(it->second);
      }
      if (ins.base == "RET") ins.targets.clear();
      ins.control_flow = ins.control_flow || !ins.targets.empty() || ins.base == "EXIT" || ins.base == "RET" ||
                         ins.base == "BRX" || ins.base == "BSYNC" || is_stack_jump(ins);
      ins.subroutine_call = ins.base == "CALL" || ins.base == "CAL" || ins.base == "JCAL";
    }
    if (sm > 0 && sm < 70) resolve_stack_targets(f);
    if (!f.instructions.empty())
      f.length = f.instructions.back().offset + f.instruction_bytes - f.start;
  }
  return fns;
}

void resolve_stack_targets(Function& f) {
  const std::map<std::string, std::string> pusher = {{"SYNC", "SSY"}, {"BRK", "PBK"}, {"CONT", "PCNT"}};
  for (auto& ins : f.instructions) {
    auto it = pusher.find(ins.base);
    if (it == pusher.end() || !ins.targets.empty()) continue;
    const Instruction* best = nullptr;
    for (const auto& p : f.instructions) {
      if (p.base != it->second || p.targets.empty() || p.offset >= ins.offset || ins.offset > p.targets[0]) continue;
      if (!best || p.offset > best->offset) best = &p;
    }
    if (best) ins.targets.push_back(best->targets[0]);
  }
}

void merge_text_listing(std::vector<Function>& from_json, const std::vector<Function>& from_text) {
  for (Function& f : from_json) {
    const Function* t = nullptr;
    for (const auto& c : from_text)
      if (c.name == f.name) t = &c;
    if (!t) continue;
    f.labels = t->labels;
    f.subroutines = t->subroutines;
    for (Instruction& ins : f.instructions) {
      const Instruction* ti = t->at(ins.offset);
      if (!ti || ti->opcode != ins.opcode) continue;  // listings disagree: keep JSON as is
      if (ti->encoding) ins.encoding = ti->encoding;
      if (ins.targets.empty() && !ti->targets.empty()) ins.targets = ti->targets;  // BRX, CALL by name
      if (ins.call_symbol.empty()) ins.call_symbol = ti->call_symbol;
    }
  }
}

}  // namespace divbench::sass

namespace divbench::sass {

void apply_line_table(std::vector<Function>& functions, std::vector<std::string>& files, const std::string& listing) {
  std::map<std::string, Function*> by_name;
  for (auto& f : functions) by_name[f.name] = &f;
  Function* current = nullptr;
  int file = -1, line = 0;
  std::map<std::string, int> file_index;
  for (std::size_t i = 0; i < files.size(); ++i) file_index[files[i]] = static_cast<int>(i);
  std::istringstream in(listing);
  std::string text;
  while (std::getline(in, text)) {
    const auto a = text.find_first_not_of(" \t");
    if (a == std::string::npos) continue;
    const std::string t = text.substr(a);
    if (t.rfind(".text.", 0) == 0 && t.back() == ':') {  // ".text.<name>:" opens a function
      const auto it = by_name.find(t.substr(6, t.size() - 7));
      current = it == by_name.end() ? nullptr : it->second;
      file = -1, line = 0;
      continue;
    }
    if (t.rfind("//## File \"", 0) == 0) {  // //## File "path", line N[, ...]
      const auto q = t.find('"', 11);
      const auto l = t.find(", line ", q == std::string::npos ? 0 : q);
      if (q == std::string::npos || l == std::string::npos) continue;
      const std::string path = t.substr(11, q - 11);
      auto [it, added] = file_index.emplace(path, static_cast<int>(files.size()));
      if (added) files.push_back(path);
      file = it->second;
      line = std::atoi(t.c_str() + l + 7);
      continue;
    }
    if (!current || t.rfind("/*", 0) != 0) continue;  // "/*0040*/  INSTR ;"
    const auto e = t.find("*/");
    if (e == std::string::npos) continue;
    const auto off = parse_integer("0x" + t.substr(2, e - 2));
    if (!off || *off < 0) continue;
    for (auto& ins : current->instructions)
      if (ins.offset == static_cast<std::uint64_t>(*off)) {
        ins.source_file = file;
        ins.source_line = line;
        break;
      }
  }
}

}  // namespace divbench::sass
