// k-way divergence kernels (one instantiation per work body) and their host launch wrapper.
#include <stdexcept>

#include "../bodies/fma_chain.cuh"
#include "divbench/core/errors.hpp"
#include "divbench/cuda/check.hpp"
#include "kway.cuh"

namespace divbench {

namespace {
struct BodyEntry {
  Body body;
  const char* name;
};
constexpr BodyEntry kBodies[] = {
    {Body::fma_chain, "fma_chain"},
};
}  // namespace

const std::vector<Body>& all_bodies() {
  static const std::vector<Body> v = [] {
    std::vector<Body> b;
    for (const auto& e : kBodies) b.push_back(e.body);
    return b;
  }();
  return v;
}

const char* body_name(Body b) {
  for (const auto& e : kBodies)
    if (e.body == b) return e.name;
  return "?";
}

Body parse_body(const std::string& name) {
  std::string valid;
  for (const auto& e : kBodies) {
    if (name == e.name) return e.body;
    valid += (valid.empty() ? "" : "|") + std::string(e.name);
  }
  throw UsageError("--body: unknown work body '" + name + "' (valid: " + valid + ")");
}

void finish_kway_params(KwayParams& p) {
  if (p.k < 1 || p.k > kWarpLanes) throw std::invalid_argument("k must be in 1..32");
  for (auto& m : p.mask_of_path) m = 0;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    if (p.path_of_lane[lane] >= p.k) throw std::invalid_argument("lane path outside 0..k-1");
    p.mask_of_path[p.path_of_lane[lane]] |= 1u << lane;
  }
}

template <class B>
static void launch_with(const KwayParams& p, int blocks, int threads, RegionSample* samples, float* out,
                        cudaStream_t s) {
  kway::kway_kernel<B><<<blocks, threads, 0, s>>>(p, samples, out);
}

void launch_kway(Body body, const KwayParams& p, int blocks, int threads_per_block, RegionSample* samples, float* out,
                 cudaStream_t stream) {
  if (threads_per_block % 32 != 0) throw std::invalid_argument("launch_kway: threads_per_block must be a multiple of 32");
  switch (body) {
    case Body::fma_chain: launch_with<bodies::FmaChain>(p, blocks, threads_per_block, samples, out, stream); break;
    default: throw std::invalid_argument("launch_kway: body not built");
  }
  check_launch("kway_kernel");
}

float kway_reference(Body body, const KwayParams& p, int lane, const std::vector<float>& table) {
  const float x0 = kway::lane_seed(lane);
  const int path = p.path_of_lane[lane];
  switch (body) {
    case Body::fma_chain: return kway::reference<bodies::FmaChain>(path, x0, p, table.data());
    default: throw std::invalid_argument("kway_reference: body not built");
  }
}

double kway_tolerance(Body body) {
  switch (body) {
    case Body::fma_chain: return bodies::FmaChain::tolerance;
    default: return 0;
  }
}

}  // namespace divbench
