// nvdisasm -json -> instruction model.
#include <cstdint>
#include <set>
#include <string>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/sass/parse.hpp"

namespace divbench::sass {

namespace {

// Opcodes whose hex literal operand is an absolute code address. BRX/JMX carry a register and a
// table offset instead (their targets come from BRANCH_TARGETS in the text listing).
const std::set<std::string> kAddressOpcodes = {"BRA", "JMP", "BSSY", "CALL", "SSY", "PBK", "PCNT",
                                               "CAL", "JCAL", "PRET", "PLONGJMP", "BPT"};

void fill_guard(Instruction& ins, std::string pred) {
  if (!pred.empty() && pred[0] == '@') pred = pred.substr(1);
  if (!pred.empty() && pred[0] == '!') {
    ins.guard_negated = true;
    pred = pred.substr(1);
  }
  if (pred == "PT" && !ins.guard_negated) pred.clear();  // @PT: always executes
  ins.guard = pred;
}

// An int field of the listing (`fallback` where absent), an integer within +-2^24 (the SM major times 10
// and a line number fit); a fraction or a huge value is a malformed document.
int int_field(const json& o, const char* key, int fallback) {
  if (!o.is_object() || !o.contains(key)) return o.value(key, fallback);  // value(): its type_error off objects
  constexpr std::int64_t kLimit = std::int64_t{1} << 24;
  return static_cast<int>(integer_in(o.at(key), -kLimit, kLimit, std::string("nvdisasm -json: malformed document (\"") + key + "\")"));
}

std::uint64_t address_field(const json& o, const char* key) {
  return unsigned_in(o.at(key), std::string("nvdisasm -json: malformed document (\"") + key + "\")");
}

}  // namespace

void infer_targets(Instruction& ins) {
  // Blackwell's WARPSYNC.COLLECTIVE Rmask, <address>: the text listing names its operand as a label
  // (`(.L_x_3)), a code address like a branch's; a plain WARPSYNC's literal is a lane mask.
  const bool collective = ins.base == "WARPSYNC" && ins.has("COLLECTIVE");
  if (!ins.targets.empty() || (!kAddressOpcodes.count(ins.base) && !collective)) return;
  if (ins.base == "BPT") return;
  for (const auto& op : ins.operands) {
    if (auto v = parse_integer(op); v && *v >= 0) {
      ins.targets.push_back(static_cast<std::uint64_t>(*v));
      return;
    }
  }
  if (ins.base == "CALL" && !ins.operands.empty()) ins.call_symbol = ins.operands.back();
}

namespace {
std::vector<Function> parse_document(const json& doc, ListingMeta* meta);
}  // namespace

std::vector<Function> parse_nvdisasm_json(const json& doc, ListingMeta* meta) {
  try {
    return parse_document(doc, meta);
  } catch (const json::exception& e) {  // a value of the wrong type anywhere in the document
    throw UsageError("nvdisasm -json: malformed document (" + std::string(e.what()) + ")");
  }
}

namespace {
std::vector<Function> parse_document(const json& doc, ListingMeta* meta) {
  if (!doc.is_array() || doc.size() < 2 || doc.size() > 3 || !doc[0].is_object() || !doc[1].is_array())
    throw UsageError("nvdisasm -json output is not [metadata, [functions]]");
  if (meta && doc.size() == 3 && doc[2].is_object()) {  // -g: the line table's files
    const auto& t = doc[2];
    std::vector<std::string> dirs;
    if (t.contains("directories") && t["directories"].is_array())
      for (const auto& d : t["directories"]) dirs.push_back(d.is_string() ? d.get<std::string>() : "");
    if (t.contains("files") && t["files"].is_array())
      for (const auto& f : t["files"]) {
        std::string name = f.is_object() ? f.value("file", "") : "";
        const int dir = f.is_object() ? int_field(f, "dir-idx", -1) : -1;
        if (dir >= 0 && static_cast<std::size_t>(dir) < dirs.size() && !dirs[dir].empty() && (name.empty() || name[0] != '/'))
          name = dirs[dir] + "/" + name;
        meta->source_files.push_back(name);
      }
  }
  if (meta) {
    const auto& m = doc[0];
    if (m.contains("SM") && m["SM"].contains("version"))
      meta->sm = int_field(m["SM"]["version"], "major", 0) * 10 + int_field(m["SM"]["version"], "minor", 0);
    meta->producer = m.value("Producer", "");
    if (m.contains(".note.nv.tkinfo")) meta->toolkit = m[".note.nv.tkinfo"].value("tki_toolVersion", "");
  }
  // Maxwell/Pascal (sm_5x/6x): 64-bit instructions; every fourth 8-byte slot is the control word of
  // the next three and appears in the JSON as an entry with an empty opcode (skipped here).
  int sm = 0;
  if (doc[0].contains("SM") && doc[0]["SM"].contains("version"))
    sm = int_field(doc[0]["SM"]["version"], "major", 0) * 10 + int_field(doc[0]["SM"]["version"], "minor", 0);
  const int slot = sm > 0 && sm < 70 ? 8 : 16;
  std::vector<Function> fns;
  for (const auto& jf : doc[1]) {
    Function f;
    try {
      f.name = jf.at("function-name").get<std::string>();
      f.start = address_field(jf, "start");
      f.length = address_field(jf, "length");
      f.instruction_bytes = slot;
      std::uint64_t off = f.start;
      int file = -1, line = 0;  // the line table's position holds until the next entry names one
      for (const auto& ji : jf.at("sass-instructions")) {
        Instruction ins;
        ins.offset = off;
        off += static_cast<std::uint64_t>(slot);
        ins.opcode = ji.at("opcode").get<std::string>();
        if (ji.contains("source-line")) {
          file = int_field(ji, "source-file-id", -1);
          line = int_field(ji, "source-line", 0);
        }
        if (ins.opcode.empty() && slot == 8) continue;  // control word slot
        ins.source_file = file;
        ins.source_line = line;
        fill_guard(ins, ji.value("predicate", ""));
        split_opcode(ins.opcode, ins.base, ins.modifiers);
        ins.operands = split_operands(ji.value("operands", ""));
        if (ji.contains("other-attributes") && ji["other-attributes"].is_object()) {
          const auto& a = ji["other-attributes"];
          ins.control_flow = a.value("control-flow", "") == "True";
          ins.subroutine_call = a.value("subroutine-call", "") == "True";
        }
        infer_targets(ins);
        f.instructions.push_back(std::move(ins));
      }
    } catch (const json::exception& e) {
      throw UsageError("nvdisasm -json: malformed function entry (" + std::string(e.what()) + ")");
    }
    fns.push_back(std::move(f));
  }
  // A function entry that lies inside another's byte range is code of that symbol's section: a
  // subroutine the kernel reaches by CALL or branch. nvdisasm 12.x and 13.0 list such code as entries of
  // their own, the kernel's entry stopping before it while its length covers it: a kernel's copy of a
  // __noinline__ callee ("$kernel$callee") and the slow paths of IEEE division, reciprocal and square
  // root that nvcc places after the kernel's last EXIT ("$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath");
  // 13.5 lists it inside the kernel's entry. CUPTI counts its pcs under the kernel, so it is folded into the
  // kernel as a subroutine entry. Where the kernel's entry already holds it (nvdisasm 12.x lists a Pascal
  // kernel's subroutines twice), the second listing is dropped. The enclosing entry is the one whose name
  // prefixes it ("$kernel$"), else the nearest entry before it in the listing (nvdisasm lists a section's
  // symbols together) that starts strictly before it and whose range holds it whole: every section starts
  // at offset 0, so a function of a section of its own (-rdc) starts where the one before it does and is
  // never taken for its subroutine.
  std::vector<char> inside(fns.size(), 0);
  const auto holds = [](const Function& g, const Function& f) {
    return f.start > g.start && f.start < g.start + g.length && f.start + f.length <= g.start + g.length;
  };
  for (std::size_t i = 0; i < fns.size(); ++i) {
    Function& f = fns[i];
    std::size_t host = fns.size();
    for (std::size_t k = 0; k < fns.size() && host == fns.size(); ++k)
      if (k != i && !inside[k] && f.name.rfind("$" + fns[k].name + "$", 0) == 0 && f.start >= fns[k].start &&
          f.start < fns[k].start + fns[k].length)
        host = k;
    for (std::size_t k = i; k-- > 0 && host == fns.size();)
      if (!inside[k]) {
        if (holds(fns[k], f)) host = k;
        break;
      }
    if (host == fns.size()) continue;
    Function& g = fns[host];
    inside[i] = 1;
    if (f.instructions.empty() || g.at(f.instructions.front().offset)) continue;  // listed twice
    g.instructions.insert(g.instructions.end(), f.instructions.begin(), f.instructions.end());
    std::sort(g.instructions.begin(), g.instructions.end(),
              [](const Instruction& a, const Instruction& b) { return a.offset < b.offset; });
    g.subroutines[f.name] = f.start;
    for (const auto& [off, label] : f.labels) g.labels.emplace(off, label);
  }
  std::vector<Function> kept;
  for (std::size_t i = 0; i < fns.size(); ++i)
    if (!inside[i]) kept.push_back(std::move(fns[i]));
  return kept;
}
}  // namespace

std::vector<Function> parse_nvdisasm_json_text(const std::string& text, ListingMeta* meta) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError("nvdisasm -json output is not JSON (" + std::string(e.what()) + ")");
  }
  return parse_nvdisasm_json(doc, meta);
}

}  // namespace divbench::sass
