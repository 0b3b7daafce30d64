// k-way divergence kernels (one instantiation per work body) and their host launch wrapper.
#include <stdexcept>

#include "../bodies/fma_chain.cuh"
#include "../bodies/fma_indep.cuh"
#include "../bodies/int_alu.cuh"
#include "../bodies/mem_divergent.cuh"
#include "../bodies/sfu.cuh"
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
    {Body::fma_chain, "fma_chain"},   {Body::fma_indep, "fma_indep"},         {Body::int_alu, "int_alu"},
    {Body::sfu, "sfu"},               {Body::mem_divergent, "mem_divergent"},
};

// Calls f(BodyType{}) for the body's type: the one place that maps the Body enum to body types.
template <class F>
decltype(auto) with_body(Body body, F&& f) {
  switch (body) {
    case Body::fma_chain: return f(bodies::FmaChain{});
    case Body::fma_indep: return f(bodies::FmaIndep{});
    case Body::int_alu: return f(bodies::IntAlu{});
    case Body::sfu: return f(bodies::Sfu{});
    case Body::mem_divergent: return f(bodies::MemDivergent{});
  }
  throw std::invalid_argument("unknown work body");
}
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
                        cudaStream_t s, std::size_t smem) {
  if (smem > 48 * 1024)
    DIVBENCH_CUDA_CHECK(cudaFuncSetAttribute(kway::kway_kernel<B>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(smem)));
  kway::kway_kernel<B><<<blocks, threads, smem, s>>>(p, samples, out);
}

void launch_kway(Body body, const KwayParams& p, int blocks, int threads_per_block, RegionSample* samples, float* out,
                 cudaStream_t stream, std::size_t dynamic_smem) {
  if (threads_per_block % 32 != 0) throw std::invalid_argument("launch_kway: threads_per_block must be a multiple of 32");
  if (body == Body::mem_divergent && (p.table == nullptr || p.table_words == 0 || (p.table_words & (p.table_words - 1))))
    throw std::invalid_argument("launch_kway: the mem_divergent body needs a device table of 2^n words");
  with_body(body, [&](auto b) {
    launch_with<decltype(b)>(p, blocks, threads_per_block, samples, out, stream, dynamic_smem);
    return 0;
  });
  check_launch("kway_kernel");
}

int kway_max_active_blocks(Body body, int threads_per_block, std::size_t dynamic_smem) {
  return with_body(body, [&](auto b) {
    using B = decltype(b);
    if (dynamic_smem > 48 * 1024)
      DIVBENCH_CUDA_CHECK(cudaFuncSetAttribute(kway::kway_kernel<B>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(dynamic_smem)));
    int n = 0;
    DIVBENCH_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kway::kway_kernel<B>, threads_per_block, dynamic_smem));
    return n;
  });
}

std::vector<float> kway_body_table(Body body) {
  if (body == Body::mem_divergent) return bodies::MemDivergent::make_table(0x5eed7ab1eull);
  return {};
}

float kway_reference(Body body, const KwayParams& p, int lane, const std::vector<float>& table) {
  if (body == Body::mem_divergent &&
      (table.empty() || table.size() != p.table_words || (p.table_words & (p.table_words - 1)) != 0))
    throw std::invalid_argument("kway_reference: the mem_divergent body needs its table (a power of two words, "
                                "table_words matching)");
  const float x0 = kway::lane_seed(lane);
  const int path = p.path_of_lane[lane];
  return with_body(body, [&](auto b) {
    return kway::reference<decltype(b)>(path, x0, p, table.data());
  });
}

double kway_tolerance(Body body) {
  return with_body(body, [](auto b) { return decltype(b)::tolerance; });
}

}  // namespace divbench
