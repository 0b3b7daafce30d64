// The memory-lanes probe's kernel and launcher (launcher.hpp).
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

#include "timed_launch.cuh"
#include "divbench/cuda/device_buffer.hpp"
#include "divbench/cuda/timing.cuh"
#include "experiments/memory/launcher.hpp"

namespace divbench::memory {

struct MemoryParams {
  const int* next = nullptr;    // next[node]: the cycle
  const int* order = nullptr;   // order[position]: the node at a position of the cycle
  const int* pos_of = nullptr;  // pos_of[node]: its position
  std::uint32_t mask = 0;       // nodes - 1
  std::uint32_t steps = 0;
  int lanes = 32;
  std::uint32_t seed = 0;  // a new one per launch: the chains start elsewhere each time (no cache kept from the last)
  std::uint32_t warm = 0;  // ints of the table every lane reads before the timed region (the L1 level: all of it)
  int zero = 0;            // always 0 at run time
};

// A warp's lanes start at scattered positions: warp w, lane l at (w * 32 + l) * 40503 + seed (mod nodes).
__device__ __forceinline__ std::uint32_t start_position(std::uint32_t warp, int lane, std::uint32_t seed, std::uint32_t mask) {
  return ((warp * 32u + static_cast<std::uint32_t>(lane)) * 40503u + seed) & mask;
}

__global__ void memory_lanes_kernel(MemoryParams p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const std::uint32_t start = start_position(warp, lane, p.seed, p.mask);
  int node = p.order[start];
  // The L1 level: the whole table read once, coalesced, so that the chase finds it in the L1 (which a
  // launch does not inherit from the last).
  int touched = 0;
  for (std::uint32_t i = static_cast<std::uint32_t>(lane); i < p.warm; i += 32u) touched += p.next[i];
  node += touched & p.zero;
  dev::RegionTimer timer;
  timer.start();
  if (lane < p.lanes) {
#pragma unroll 1
    for (std::uint32_t s = 0; s < p.steps; ++s) node = p.next[node];
  }
  timer.stop(samples ? samples + warp : nullptr, warp);
  const std::uint32_t moved = (static_cast<std::uint32_t>(p.pos_of[node]) - start) & p.mask;
  out[tid] = static_cast<float>(moved);
}

}  // namespace divbench::memory

namespace divbench {
namespace {

using memory::MemoryParams;

struct Table {
  DeviceBuffer<int> next, order, pos_of;
};

const Table& table_for(const MemoryLevel& level) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Table>> tables;
  std::lock_guard<std::mutex> lock(mu);
  auto& t = tables[level.name];
  if (!t) {
    const std::uint32_t n = level.nodes;
    std::vector<int> order(n), next(n), pos_of(n);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937 rng(20261204u);
    for (std::uint32_t i = n - 1; i > 0; --i) std::swap(order[i], order[std::uniform_int_distribution<std::uint32_t>(0, i - 1)(rng)]);
    for (std::uint32_t i = 0; i < n; ++i) {
      next[order[i]] = order[(i + 1) % n];
      pos_of[order[i]] = static_cast<int>(i);
    }
    t = std::make_unique<Table>(Table{DeviceBuffer<int>(next), DeviceBuffer<int>(order), DeviceBuffer<int>(pos_of)});
  }
  return *t;
}

}  // namespace

const std::vector<MemoryLevel>& memory_levels() {
  static const std::vector<MemoryLevel> levels{{"dram", 1u << 24, false}, {"l2", 1u << 19, false}, {"l1", 1u << 12, true}};
  return levels;
}

TimedKernel memory_timed_kernel(const std::string& level, int lanes, std::uint32_t steps) {
  const auto& levels = memory_levels();
  const auto it = std::find_if(levels.begin(), levels.end(), [&](const MemoryLevel& l) { return l.name == level; });
  if (it == levels.end()) throw std::invalid_argument("memory probe: unknown level '" + level + "'");
  if (lanes < 1 || lanes > 32) throw std::invalid_argument("memory probe: lanes " + std::to_string(lanes) + " outside 1..32");
  const MemoryLevel lv = *it;
  MemoryParams p;
  p.mask = lv.nodes - 1;
  p.steps = steps;
  p.lanes = lanes;
  p.warm = lv.warm ? lv.nodes : 0;
  auto launches = std::make_shared<std::uint32_t>(0);
  const std::uint32_t moved = steps & p.mask;
  return make_timed_kernel<MemoryParams>(
      "memory<" + level + "> lanes=" + std::to_string(lanes) + " steps=" + std::to_string(steps), 0,
      memory::memory_lanes_kernel, p,
      [lv, launches](MemoryParams q) {
        const Table& t = table_for(lv);
        q.seed = (++*launches) * 2654435761u;
        q.next = t.next.get();
        q.order = t.order.get();
        q.pos_of = t.pos_of.get();
        return q;
      },
      [lanes, moved](int lane) { return lane < lanes ? static_cast<float>(moved) : 0.0f; }, 0.0);
}

}  // namespace divbench
