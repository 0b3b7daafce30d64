// Launchers of the memory-lanes probe (experiments/memory/memory.cu): a warp chases pointers
// through a random cycle of `nodes` ints with only `lanes` of its 32 lanes active, each lane on its own
// chain, `steps` dependent loads inside the timed region. Every load of a step touches `lanes` different
// 32-byte sectors (one per lane), so the cycles per step against lanes give the cost of a load pass as
// fixed + per_sector x sectors at the memory level the table's size puts it in.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/kernels/timed_kernel.hpp"

namespace divbench {

struct MemoryLevel {
  std::string name;     // "dram", "l2", "l1"
  std::uint32_t nodes;  // a power of two: the table's ints (64 MiB, 2 MiB, 16 KiB)
  bool warm;            // every lane reads the whole table before the timed region (the L1: a launch starts cold)
};

// The levels the probe measures, largest table first.
const std::vector<MemoryLevel>& memory_levels();

// The probe at one level for `lanes` active lanes (1..32) and `steps` loads per lane. The table is
// built once per level on the first call (a random single cycle, fixed seed) and kept. Each lane of
// each warp starts at its own position of the cycle; a lane's output is how many positions along the
// cycle it moved (steps for an active lane, 0 for an idle one), read from the table's inverse after the
// timed region. Each launch starts the chains at new positions (the dram level then misses the caches
// every launch; the l2 level's 2 MiB stays in the L2 and the l1 level's 16 KiB is read into the L1
// before the timed region). std::invalid_argument for an unknown level or lanes outside 1..32.
TimedKernel memory_timed_kernel(const std::string& level, int lanes, std::uint32_t steps);

}  // namespace divbench
