// "divbench.kernels/1": loops, clock reads, branch sides (with the calls on each), timed region of
// every function of analysed cubins (kernel_facts.hpp), and the run-time readers of kernel_facts.json.
#include "divbench/model/kernel_facts.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <filesystem>
#include <memory>
#include <set>

#include "divbench/core/errors.hpp"
#include "divbench/core/process.hpp"
#include "divbench/model/timed_region.hpp"
#include "divbench/sass/bracket.hpp"

namespace divbench::model {

using namespace divbench::sass;  // the analyzer this reads

std::optional<int> LoopFacts::stall_sum() const {
  int s = 0;
  for (const auto& i : instructions) {
    if (!i.control) return std::nullopt;
    s += i.control->stall;
  }
  return s;
}

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

namespace {

// Name of the entry (function or subroutine) whose code holds block b: follow immediate dominators
// up to the child of the virtual root.
std::string entry_name(const FunctionAnalysis& a, const Loops& loops, int b) {
  const int root = static_cast<int>(a.cfg.blocks.size());
  int v = b;
  while (v >= 0 && loops.idom[v] != root && loops.idom[v] != v && loops.idom[v] >= 0) v = loops.idom[v];
  if (v < 0) return a.function->name;
  const auto start = a.cfg.blocks[v].start;
  for (const auto& [name, off] : a.function->subroutines)
    if (off == start) return name;
  return a.function->name;
}

std::vector<std::uint64_t> starts(const Cfg& cfg, const std::vector<int>& blocks) {
  std::vector<std::uint64_t> out;
  for (int b : blocks) out.push_back(cfg.blocks[b].start);
  return out;
}

// The blocks of loop l in execution order when every block has one successor inside the loop and
// they form one cycle from the header; empty otherwise.
std::vector<int> single_path(const Cfg& cfg, const Loop& l) {
  std::vector<int> path;
  int v = l.header;
  do {
    int next = -1, count = 0;
    for (int s : cfg.blocks[v].succ)
      if (l.contains(s)) {
        next = s;
        ++count;
      }
    if (count != 1) return {};
    path.push_back(v);
    v = next;
    if (path.size() > l.blocks.size()) return {};
  } while (v != l.header);
  return path.size() == l.blocks.size() ? path : std::vector<int>{};
}

LoopInstruction loop_instruction(const Function& f, std::size_t i) {
  const Instruction& ins = f.instructions[i];
  return {ins.offset, ins.text(), ins.base, scheduling_control(f, i)};
}

std::string callee_of(const Instruction& ins) {
  if (!ins.call_symbol.empty()) return ins.call_symbol;
  return ins.operands.empty() ? std::string() : ins.operands.front();
}

json side_json(const FunctionAnalysis& a, const Loops& loops, const std::vector<int>& blocks) {
  json calls = json::array(), clocks = json::array(), ls = json::array();
  std::set<int> loop_ids;
  int n = 0;
  for (int b : blocks) {
    const int l = loops.innermost(b);
    if (l >= 0) loop_ids.insert(l);
    for (std::size_t k = a.cfg.blocks[b].first; k <= a.cfg.blocks[b].last; ++k) {
      const auto& ins = a.function->instructions[k];
      ++n;
      if (is_call(ins)) calls.push_back(callee_of(ins));
      if (!clock_kind(ins).empty()) clocks.push_back(json{{"offset", ins.offset}, {"kind", clock_kind(ins)}});
    }
  }
  for (int l : loop_ids) ls.push_back(l);
  return json{{"first", blocks.empty() ? json(nullptr) : json(a.cfg.blocks[blocks.front()].start)},
              {"blocks", blocks.size()},
              {"instructions", n},
              {"calls", calls},
              {"clock_reads", clocks},
              {"loops", ls}};
}

json branches_json(const FunctionAnalysis& a, const Loops& loops) {
  json out = json::array();
  const Function& f = *a.function;
  for (std::size_t i = 0; i < f.instructions.size(); ++i) {
    const int b = a.cfg.block_of_instruction[i];
    if (b < 0 || i != a.cfg.blocks[b].last || !is_potentially_divergent(f.instructions[i])) continue;
    const BranchSides s = branch_sides(a, i);
    const int ip = a.pd.ipdom[b];
    json guards = json::array(), placements = json::array();
    for (const auto& r : a.placement.branches)
      if (r.offset == f.instructions[i].offset) {
        guards.push_back(r.bssy ? json(*r.bssy) : json(nullptr));
        placements.push_back(r.placement);
      }
    const int l = loops.innermost(b);
    out.push_back(json{
        {"offset", f.instructions[i].offset},
        {"instruction", f.instructions[i].text()},
        {"fallthrough", s.fallthrough >= 0 ? json(a.cfg.blocks[s.fallthrough].start) : json(nullptr)},
        {"taken", starts(a.cfg, s.taken)},
        {"ipdom", ip >= 0 && ip < static_cast<int>(a.cfg.blocks.size()) ? json(a.cfg.blocks[ip].start) : json(nullptr)},
        {"bssy", guards},
        {"placement", placements},
        {"loop", l >= 0 ? json(l) : json(nullptr)},
        {"sides", json{{"fallthrough", side_json(a, loops, s.fallthrough_blocks)},
                       {"taken", side_json(a, loops, s.taken_blocks)}}}});
  }
  return out;
}

// The innermost loops of the timed region (no child loop of the region inside it; timer retry loops
// are not in the region); the work loop when there is one.
std::vector<int> leaf_loops(const Loops& loops, const TimedRegion& r) {
  std::vector<int> out;
  for (int l : r.loops) {
    bool leaf = true;
    for (int c : loops.loops[l].children) leaf = leaf && std::find(r.loops.begin(), r.loops.end(), c) == r.loops.end();
    if (leaf) out.push_back(l);
  }
  return out;
}

json offsets(const std::vector<std::uint64_t>& v) { return json(v); }

}  // namespace

LoopFacts loop_facts(const FunctionAnalysis& a, const Loops& loops, int id) {
  const Loop& l = loops.loops[id];
  const Cfg& cfg = a.cfg;
  LoopFacts f;
  f.id = id;
  f.header = cfg.blocks[l.header].start;
  f.entry = entry_name(a, loops, l.header);
  f.blocks = starts(cfg, l.blocks);
  f.latches = starts(cfg, l.latches);
  f.depth = l.depth;
  f.parent = l.parent;
  f.timer_retry = is_timer_retry_loop(*a.function, cfg, l);
  for (const auto& r : a.regions)
    if (std::find(r.instructions.begin(), r.instructions.end(), cfg.blocks[l.header].first) != r.instructions.end())
      f.barrier_regions.push_back(r.bssy_offset);
  std::sort(f.barrier_regions.begin(), f.barrier_regions.end());
  const auto path = single_path(cfg, l);
  f.single_path = !path.empty();
  const auto& order = f.single_path ? path : l.blocks;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Block& b = cfg.blocks[order[k]];
    for (std::size_t i = b.first; i <= b.last; ++i) f.instructions.push_back(loop_instruction(*a.function, i));
    if (f.single_path && cfg.blocks[order[(k + 1) % order.size()]].start != b.end) {
      ++f.taken_branches;
      f.instructions.back().jump = true;
    }
  }
  return f;
}

json to_json(const LoopFacts& l) {
  json ins = json::array();
  for (const auto& i : l.instructions) {
    json j{{"offset", i.offset}, {"text", i.text}, {"base", i.base}, {"jump", i.jump}};
    if (i.control) {
      j["stall"] = i.control->stall;
      j["yield"] = i.control->yield;
      j["write_barrier"] = i.control->write_barrier == 7 ? json(nullptr) : json(i.control->write_barrier);
      j["read_barrier"] = i.control->read_barrier == 7 ? json(nullptr) : json(i.control->read_barrier);
      j["wait_mask"] = i.control->wait_mask;
    }
    ins.push_back(j);
  }
  const auto ss = l.stall_sum();
  return json{{"id", l.id},
              {"header", l.header},
              {"entry", l.entry},
              {"blocks", l.blocks},
              {"latches", l.latches},
              {"depth", l.depth},
              {"parent", l.parent >= 0 ? json(l.parent) : json(nullptr)},
              {"timer_retry", l.timer_retry},
              {"in_barrier_region", !l.barrier_regions.empty()},
              {"barrier_regions", l.barrier_regions},
              {"single_path", l.single_path},
              {"taken_branches", l.taken_branches},
              {"instruction_count", l.instruction_count()},
              {"stall_sum", ss ? json(*ss) : json(nullptr)},
              {"instructions", ins}};
}

LoopFacts loop_from_json(const json& j) {
  const auto small = [](const json& v, const char* key) {  // ids, depths, control-word fields
    return static_cast<int>(integer_in(v, -1, 1 << 24, std::string("divbench.kernels/1: loop entry (") + key + ")"));
  };
  const auto address = [](const json& v, const char* key) {
    return unsigned_in(v, std::string("divbench.kernels/1: loop entry (") + key + ")");
  };
  const auto addresses = [&](const json& v, const char* key) {
    std::vector<std::uint64_t> out;
    for (const auto& x : v.get_ref<const json::array_t&>()) out.push_back(address(x, key));
    return out;
  };
  try {
    LoopFacts l;
    l.id = small(j.at("id"), "id");
    l.header = address(j.at("header"), "header");
    l.entry = j.at("entry").get<std::string>();
    l.blocks = addresses(j.at("blocks"), "blocks");
    l.latches = addresses(j.at("latches"), "latches");
    l.depth = small(j.at("depth"), "depth");
    l.parent = j.at("parent").is_null() ? -1 : small(j.at("parent"), "parent");
    l.timer_retry = j.at("timer_retry").get<bool>();
    l.barrier_regions = addresses(j.at("barrier_regions"), "barrier_regions");
    l.single_path = j.at("single_path").get<bool>();
    l.taken_branches = small(j.at("taken_branches"), "taken_branches");
    for (const auto& ji : j.at("instructions")) {
      LoopInstruction i;
      i.offset = address(ji.at("offset"), "offset");
      i.text = ji.at("text").get<std::string>();
      i.base = ji.at("base").get<std::string>();
      i.jump = ji.at("jump").get<bool>();
      if (ji.contains("stall")) {
        ControlWord w;
        w.stall = small(ji.at("stall"), "stall");
        w.yield = small(ji.at("yield"), "yield");
        w.write_barrier = ji.at("write_barrier").is_null() ? 7 : small(ji.at("write_barrier"), "write_barrier");
        w.read_barrier = ji.at("read_barrier").is_null() ? 7 : small(ji.at("read_barrier"), "read_barrier");
        w.wait_mask = small(ji.at("wait_mask"), "wait_mask");
        i.control = w;
      }
      l.instructions.push_back(std::move(i));
    }
    return l;
  } catch (const json::exception& e) {
    throw UsageError(std::string("divbench.kernels/1: malformed loop entry (") + e.what() + ")");
  }
}

json function_facts(const FunctionAnalysis& a) {
  const Function& f = *a.function;
  const Loops loops = find_loops(a.cfg);
  json lj = json::array();
  for (std::size_t i = 0; i < loops.loops.size(); ++i) lj.push_back(to_json(loop_facts(a, loops, static_cast<int>(i))));
  json clocks = json::array();
  for (const auto& c : clock_reads(f, a.cfg))
    clocks.push_back(json{{"offset", c.offset}, {"instruction", f.instructions[c.index].text()}, {"kind", c.kind},
                          {"entry", entry_name(a, loops, a.cfg.block_of_instruction[c.index])}});
  const TimedRegion region = timed_region(a, loops);
  const Bracket br = check_bracket(a, region);
  const auto leaves = leaf_loops(loops, region);
  json j{{"name", f.name},
         {"demangled", demangle(f.name)},
         {"instructions", f.instructions.size()},
         {"barrier_regions", a.regions.size()},
         {"loops", lj},
         {"irreducible_blocks", starts(a.cfg, loops.irreducible_blocks)},
         {"clock_reads", clocks},
         {"divergent_branches", branches_json(a, loops)},
         {"timed_region", json{{"loops", region.loops},
                               {"branches", offsets(region.branches)},
                               {"barriers", offsets(region.barriers)},
                               {"instructions", region.instructions.size()},
                               {"start_clock", br.start ? json(*br.start) : json(nullptr)},
                               {"stop_clock", br.stop ? json(*br.stop) : json(nullptr)},
                               {"not_after_start", offsets(br.not_after_start)},
                               {"not_before_stop", offsets(br.not_before_stop)},
                               {"bracketed", region.instructions.empty() || !br.start ? json(nullptr)
                                                                                      : json(br.bracketed())}}},
         {"work_loop", leaves.size() == 1 ? json(leaves.front()) : json(nullptr)}};
  return j;
}

json kernel_facts_document(const std::vector<CubinAnalysis>& cubins, const std::string& nvdisasm,
                           const std::string& command) {
  json doc = json::object();
  doc["schema"] = kKernelFactsSchema;
  doc["provenance"] = to_document({}, nvdisasm, command).at("provenance");  // the sass/2 provenance block
  json cj = json::array();
  for (const auto& c : cubins) {
    json fns = json::array();
    const std::string arch = "sm_" + std::to_string(c.cubin->sm);
    for (const auto& fa : c.functions) {
      json ff = function_facts(fa);
      fns.push_back(std::move(ff));
    }
    const Cubin& cb = *c.cubin;
    cj.push_back(json{{"source", cb.source},
                      {"cubin", cb.path == cb.source ? cb.path : cb.path.substr(cb.path.find_last_of('/') + 1)},
                      {"sm", cb.sm},
                      {"arch", arch},
                      {"producer", cb.producer},
                      {"ptxas", cb.toolkit},
                      {"functions", fns}});
  }
  doc["cubins"] = cj;
  return doc;
}

int sm_of_cc(const std::string& cc) {
  const auto dot = cc.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == cc.size() || cc.size() > 9) return 0;
  for (std::size_t i = 0; i < cc.size(); ++i)
    if (i != dot && !std::isdigit(static_cast<unsigned char>(cc[i]))) return 0;
  return std::stoi(cc.substr(0, dot)) * 10 + std::stoi(cc.substr(dot + 1));
}

namespace {

Expected<json> load_facts_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Expected<json>::failure(path.string() +
                                   " not found (the build writes it with the kernel-facts step when nvdisasm is installed)");
  try {
    json doc = read_json_file(path.string());
    if (doc.is_object() && doc.value("schema", "") == kKernelFactsSchema && doc.contains("cubins")) return doc;
  } catch (...) {
  }
  return Expected<json>::failure(path.string() + " is not a " + std::string(kKernelFactsSchema) + " document");
}

}  // namespace

Expected<json> find_kernel_facts(const std::string& dir) {
  if (dir.empty()) return Expected<json>::failure("the running executable's directory is unknown");
  const std::string path = kernel_facts_path(dir);
  Expected<json> facts = load_facts_file(path);
  std::error_code ec;
  if (!facts && !std::filesystem::exists(path, ec))
    return Expected<json>::failure(facts.error() + "; nor is the installed " +
                                   (std::filesystem::path(installed_data_dir(dir)) / kKernelFactsFile).string());
  return facts;
}

std::string kernel_facts_path(const std::string& dir) {
  // Beside the executable (the build tree, the GPU bundle), else an install's <prefix>/share/divbench.
  const std::filesystem::path beside = std::filesystem::path(dir) / kKernelFactsFile;
  const std::filesystem::path installed = std::filesystem::path(installed_data_dir(dir)) / kKernelFactsFile;
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::exists(beside, ec) && std::filesystem::is_regular_file(installed, ec))
    return installed.string();
  return beside.string();
}

std::optional<json> load_kernel_facts(const std::string& dir, const std::string& file) {
  if (dir.empty()) return std::nullopt;
  return load_facts_file(std::filesystem::path(dir) / file).optional();
}

std::vector<const json*> find_functions(const json& facts, int sm, const std::vector<std::string>& needles) {
  std::vector<const json*> out;
  if (!facts.contains("cubins")) return out;
  for (const auto& c : facts["cubins"]) {
    if (c.value("sm", 0) != sm || !c.contains("functions")) continue;
    for (const auto& f : c["functions"]) {
      const std::string name = f.value("name", "");
      bool all = true;
      for (const auto& n : needles) all = all && name.find(n) != std::string::npos;
      if (all) out.push_back(&f);
    }
  }
  return out;
}

}  // namespace divbench::model
