#include "divbench/sass/pascal.hpp"

#include <map>
#include <set>

namespace divbench::sass {

bool is_stack_push(const Instruction& i) { return i.base == "SSY" || i.base == "PBK" || i.base == "PCNT"; }

std::vector<BarrierRegion> pascal_regions(const Function& f, const Cfg& cfg) {
  std::vector<BarrierRegion> out;
  const auto& ins = f.instructions;
  std::map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < ins.size(); ++i) index[ins[i].offset] = i;
  int ordinal = 0;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    if (!is_stack_push(ins[i]) || cfg.block_of_instruction[i] < 0 || ins[i].targets.empty()) continue;
    BarrierRegion r;
    r.bssy = i;
    r.bssy_offset = ins[i].offset;
    r.barrier = ordinal++;
    r.modifier = ins[i].base;
    r.target = ins[i].targets.front();
    auto t = index.find(r.target);
    if (t == index.end()) continue;  // target outside the function: nothing to place
    r.bsync = {r.target};
    std::set<std::size_t> in_region{i, t->second};
    std::vector<std::size_t> work{i + 1};
    std::set<std::size_t> started{i + 1};
    while (!work.empty()) {
      const std::size_t k = work.back();
      work.pop_back();
      if (k >= ins.size() || k == t->second || cfg.block_of_instruction[k] < 0) continue;
      const Block& b = cfg.blocks[cfg.block_of_instruction[k]];
      bool stopped = false;
      for (std::size_t j = k; j <= b.last; ++j) {
        if (j == t->second) {  // reached the reconvergence point by falling through
          stopped = true;
          break;
        }
        in_region.insert(j);
        if (is_exit(ins[j]) && !ins[j].guarded()) {
          stopped = true;
          break;
        }
      }
      if (stopped) continue;
      for (int s : b.succ)
        if (started.insert(cfg.blocks[s].first).second) work.push_back(cfg.blocks[s].first);
    }
    r.instructions.assign(in_region.begin(), in_region.end());
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace divbench::sass
