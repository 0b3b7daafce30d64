// nvdisasm text listing -> instruction model (encodings, labels, BRX targets; the only source on
// toolkits without -json).
#include <map>
#include <regex>
#include <sstream>

#include "divbench/sass/cfg.hpp"
#include "divbench/sass/parse.hpp"

namespace divbench::sass {

namespace {

const std::regex kSection(R"(^\s*\.section\s+\.text\.([^,\s]+),)");
const std::regex kLabel(R"(^\s*([.$A-Za-z_][\w.$@]*):\s*$)");
const std::regex kFuncType(R"(^\s*\.type\s+([^,\s]+),\s*@function)");
const std::regex kIns(R"(^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*(?:/\*\s*(0x[0-9a-fA-F]+)\s*\*/)?\s*$)");
const std::regex kHexOnly(R"(^\s*/\*\s*(0x[0-9a-fA-F]+)\s*\*/\s*$)");
const std::regex kTargets(R"re(\(\*"BRANCH_TARGETS\s+([^"]*)"\*\))re");
const std::regex kLabelRef(R"re(`\(([^)]+)\))re");

std::uint64_t hex(const std::string& s) { return std::stoull(s, nullptr, 16); }

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
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kSection)) {
      fns.emplace_back();
      fns.back().name = m[1];
      fns.back().instruction_bytes = sm >= 70 || sm == 0 ? 16 : 8;
      pend.emplace_back();
      pending_labels.clear();
      last = nullptr;
      last_needs_encoding = false;
      continue;
    }
    if (fns.empty()) continue;
    Function& f = fns.back();
    if (std::regex_search(line, m, kFuncType)) {
      if (m[1] != f.name) f.subroutines[m[1]] = 0;  // offset filled when its label is seen
      continue;
    }
    if (std::regex_match(line, m, kLabel)) {
      pending_labels.push_back(m[1]);
      continue;
    }
    if (std::regex_match(line, m, kHexOnly)) {
      const std::uint64_t v = hex(m[1]);
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
    if (!std::regex_match(line, m, kIns)) continue;
    Instruction ins;
    ins.offset = hex(m[1]);
    std::string body = m[2];
    if (m[3].matched) {
      Encoding e;
      e.lo = hex(m[3]);
      if (sm > 0 && sm < 70) {
        e.bits = 64;
        e.control = bundle_control;
      }
      ins.encoding = e;
    }
    Pending p;
    if (std::regex_search(body, m, kTargets)) {
      std::stringstream ts(m[1].str());
      std::string t;
      while (std::getline(ts, t, ',')) p.target_labels.push_back(t);
      body = std::regex_replace(body, kTargets, "");
    }
    while (!body.empty() && (body.back() == ';' || body.back() == ' ' || body.back() == '}')) body.pop_back();
    if (!body.empty() && body[0] == '{') body.erase(0, body.find_first_not_of("{ "));
    const bool has_table = !p.target_labels.empty();
    std::string refs = body;
    for (std::sregex_iterator it(refs.begin(), refs.end(), kLabelRef), end; it != end; ++it)
      if (!has_table) p.target_labels.push_back((*it)[1]);
    body = std::regex_replace(body, kLabelRef, "$1");
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
