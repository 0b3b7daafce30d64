// The host references that GPU outputs are checked against must be sensitive to the work done:
// a kernel that ran one iteration too few (or none) must not match. Host code only; no GPU.
#include <gtest/gtest.h>

#include <cstring>

#include "divbench/core/lane_map.hpp"
#include "divbench/kernels/kway.hpp"

using namespace divbench;

namespace {
KwayParams params(int k, std::uint32_t iters, const std::vector<float>& table) {
  LaneAssignment a = assign_lanes(LaneMap::modulo, k, iters > 0 ? iters : 1, 1);
  if (iters == 0) a.iters_of_path.fill(0);  // "did nothing"
  KwayParams p;
  p.k = k;
  for (int l = 0; l < 32; ++l) p.path_of_lane[l] = a.path_of_lane[l];
  for (int q = 0; q < 32; ++q) p.iters_of_path[q] = a.iters_of_path[q];
  p.table_words = static_cast<std::uint32_t>(table.size());
  finish_kway_params(p);
  return p;
}
bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

TEST(BodyReferences, EveryLaneDependsOnTheIterationCount) {
  for (Body b : all_bodies()) {
    if (kway_tolerance(b) != 0) continue;  // approximate bodies (sfu) are checked with a tolerance
    const auto table = kway_body_table(b);
    for (std::uint32_t iters : {1000u, 10000u}) {
      const KwayParams p = params(8, iters, table), q = params(8, iters + 1, table), z = params(8, 0, table);
      for (int lane = 0; lane < 32; ++lane) {
        const float r = kway_reference(b, p, lane, table);
        EXPECT_FALSE(same(r, kway_reference(b, q, lane, table))) << body_name(b) << " lane " << lane;
        EXPECT_FALSE(same(r, kway_reference(b, z, lane, table))) << body_name(b) << " lane " << lane;
      }
    }
  }
}
