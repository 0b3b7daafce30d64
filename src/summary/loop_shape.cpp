#include "divbench/summary/loop_shape.hpp"
#include "divbench/core/process.hpp"

#include <stdexcept>

#include "divbench/model/kernel_facts.hpp"

namespace divbench {

int LoopShape::count(const std::string& base) const {
  const auto it = opcodes.find(base);
  return it == opcodes.end() ? 0 : it->second;
}

json to_json(const LoopShape& s) {
  json ops = json::object();
  for (const auto& [base, n] : s.opcodes) ops[base] = n;
  return json{{"function", s.function},
              {"sm", s.sm},
              {"instructions", s.instructions},
              {"stall_sum", s.stall_sum ? json(*s.stall_sum) : json(nullptr)},
              {"taken_branches", s.taken_branches},
              {"single_path", s.single_path},
              {"opcodes", ops}};
}

LoopShape loop_shape_from_json(const json& j) {
  try {
    LoopShape s;
    s.function = j.at("function").get<std::string>();
    s.sm = j.at("sm").get<int>();
    s.instructions = j.at("instructions").get<int>();
    if (!j.at("stall_sum").is_null()) s.stall_sum = j.at("stall_sum").get<int>();
    s.taken_branches = j.at("taken_branches").get<int>();
    s.single_path = j.at("single_path").get<bool>();
    for (const auto& [base, n] : j.at("opcodes").items()) s.opcodes[base] = n.get<int>();
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("malformed loop shape: ") + e.what());
  }
}

std::optional<int> cubin_sm_for_device(const json& facts, int cc_major, int cc_minor) {
  std::optional<int> best;
  if (!facts.contains("cubins")) return best;
  for (const auto& c : facts["cubins"]) {
    const int sm = c.value("sm", 0);
    if (sm / 10 == cc_major && sm % 10 <= cc_minor && (!best || sm > *best)) best = sm;
  }
  return best;
}

namespace {

// The loop of the one function of `sm` matching `needle`: its work loop, or (enclosing) the loop
// around it.
LoopShape loop_shape_of(const json& facts, int sm, const std::string& needle, bool enclosing) {
  const json* found = nullptr;
  bool have_sm = false;
  int matches = 0;
  static const json none = json::array();
  const json& cubins = facts.is_object() && facts.contains("cubins") ? facts["cubins"] : none;
  for (const auto& c : cubins) {
    if (!c.is_object() || c.value("sm", 0) != sm) continue;
    have_sm = true;
    if (!c.contains("functions")) continue;
    for (const auto& f : c["functions"])
      if (f.value("name", "").find(needle) != std::string::npos) {
        ++matches;
        found = &f;
      }
  }
  const std::string where = "sm_" + std::to_string(sm);
  if (!have_sm) throw std::runtime_error("the kernel facts hold no " + where + " cubin");
  if (matches != 1)
    throw std::runtime_error(where + ": " + std::to_string(matches) + " functions match '" + needle + "' (want 1)");
  const json& f = *found;
  if (!f.contains("work_loop") || f["work_loop"].is_null())
    throw std::runtime_error(where + " " + f.value("name", "") + ": no single work loop in the timed region");
  try {
    const json* l = &f.at("loops").at(f["work_loop"].get<std::size_t>());
    if (enclosing) {
      if (l->at("parent").is_null())
        throw std::runtime_error(where + " " + f.value("name", "") + ": the work loop has no enclosing loop");
      const int parent = l->at("parent").get<int>();
      l = nullptr;
      for (const auto& cand : f.at("loops"))
        if (cand.at("id").get<int>() == parent) l = &cand;
      if (!l) throw std::runtime_error(where + " " + f.value("name", "") + ": the work loop's parent is not listed");
    }
    LoopShape s;
    s.function = f.at("name").get<std::string>();
    s.sm = sm;
    s.instructions = l->at("instruction_count").get<int>();
    if (!l->at("stall_sum").is_null()) s.stall_sum = l->at("stall_sum").get<int>();
    s.taken_branches = l->at("taken_branches").get<int>();
    s.single_path = l->at("single_path").get<bool>();
    for (const auto& i : l->at("instructions")) ++s.opcodes[i.at("base").get<std::string>()];
    return s;
  } catch (const json::exception& e) {
    throw std::runtime_error(where + " " + f.value("name", "") + ": malformed work loop (" + e.what() + ")");
  }
}

}  // namespace

LoopShape work_loop_shape(const json& facts, int sm, const std::string& needle) {
  return loop_shape_of(facts, sm, needle, false);
}

LoopShape enclosing_loop_shape(const json& facts, int sm, const std::string& needle) {
  return loop_shape_of(facts, sm, needle, true);
}

std::vector<std::string> equal_shape_problems(const LoopShape& want, const LoopShape& got, const std::string& what) {
  std::vector<std::string> out;
  const std::string who = what + " (" + got.function + " against " + want.function + ")";
  if (got.instructions != want.instructions)
    out.push_back(who + ": " + std::to_string(got.instructions) + " instructions, want " + std::to_string(want.instructions));
  if (got.stall_sum != want.stall_sum)
    out.push_back(who + ": stall sum " + (got.stall_sum ? std::to_string(*got.stall_sum) : "none") + ", want " +
                  (want.stall_sum ? std::to_string(*want.stall_sum) : "none"));
  if (got.taken_branches != want.taken_branches || got.single_path != want.single_path)
    out.push_back(who + ": taken branches or paths differ");
  if (got.opcodes != want.opcodes) {
    std::string diff;
    std::map<std::string, int> all = want.opcodes;
    all.insert(got.opcodes.begin(), got.opcodes.end());
    for (const auto& [base, n] : all)
      if (got.count(base) != want.count(base))
        diff += " " + base + " " + std::to_string(got.count(base)) + "/" + std::to_string(want.count(base));
    out.push_back(who + ": opcode counts differ (got/want):" + diff);
  }
  return out;
}

const Expected<json>& running_kernel_facts() {
  // Read once per process: experiments, predictions and probe layouts all ask for it (a few MB of JSON).
  static const Expected<json> facts = model::find_kernel_facts(own_executable_dir());
  return facts;
}

DeviceFacts running_facts_for_device(int cc_major, int cc_minor) {
  DeviceFacts d;
  const Expected<json>& facts = running_kernel_facts();
  if (!facts) {
    d.why = facts.error();
    return d;
  }
  const std::optional<int> sm = cubin_sm_for_device(*facts, cc_major, cc_minor);
  if (!sm) {
    d.why = "the kernel facts hold no cubin this device runs (compute capability " + std::to_string(cc_major) + "." +
            std::to_string(cc_minor) + ")";
    return d;
  }
  d.facts = &*facts;
  d.sm = *sm;
  return d;
}

}  // namespace divbench
