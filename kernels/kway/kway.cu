// k-way divergence kernels (one instantiation per work body and code placement) and their launchers.
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "../bodies/fma_chain.cuh"
#include "../bodies/fma_indep.cuh"
#include "../bodies/int_alu.cuh"
#include "../bodies/mem_divergent.cuh"
#include "../bodies/sfu.cuh"
#include "divbench/cuda/check.hpp"
#include "divbench/cuda/device_buffer.hpp"
#include "../timed_launch.cuh"
#include "kway.cuh"

namespace divbench {
namespace {

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

// The kernel of body B at placement `placement` (a run-time value mapped to the template argument).
template <class B, int P = 0>
auto kernel_at(int placement) -> decltype(&kway::kway_kernel<B, 0>) {
  if constexpr (P < kPlacements) {
    if (placement == P) return &kway::kway_kernel<B, P>;
    return kernel_at<B, P + 1>(placement);
  } else {
    throw std::invalid_argument("kway: placement " + std::to_string(placement) + " outside 0.." +
                                std::to_string(kPlacements - 1));
  }
}

// The body's table on the current device: one copy per device, made on first use, kept for the run.
const float* device_table(Body body) {
  static std::map<std::pair<int, Body>, DeviceBuffer<float>> tables;
  int dev = 0;
  DIVBENCH_CUDA_CHECK(cudaGetDevice(&dev));
  auto it = tables.find({dev, body});
  if (it == tables.end()) it = tables.emplace(std::make_pair(dev, body), DeviceBuffer<float>(kway_body_table(body))).first;
  return it->second.get();
}

}  // namespace

const std::vector<float>& kway_body_table(Body body) {
  static const std::vector<float> none;
  static const std::vector<float> mem = bodies::MemDivergent::make_table(0x5eed7ab1eull);
  return body == Body::mem_divergent ? mem : none;
}

KwayParams make_kway_params(Body body, int k, const LaneAssignment& lanes) {
  if (k < 1 || k > kWarpLanes) throw std::invalid_argument("k must be in 1..32");
  KwayParams p;
  p.k = k;
  for (int lane = 0; lane < kWarpLanes; ++lane) {
    if (lanes.path_of_lane[lane] >= k) throw std::invalid_argument("lane path outside 0..k-1");
    p.path_of_lane[lane] = lanes.path_of_lane[lane];
    p.mask_of_path[p.path_of_lane[lane]] |= 1u << lane;
  }
  for (int q = 0; q < kWarpLanes; ++q) p.iters_of_path[q] = lanes.iters_of_path[q];
  p.table_words = static_cast<std::uint32_t>(kway_body_table(body).size());
  return p;
}

TimedKernel kway_timed_kernel(Body body, const KwayParams& params, int placement) {
  return with_body(body, [&](auto b) {
    using B = decltype(b);
    std::function<KwayParams(KwayParams)> at_launch;
    if (params.table_words != 0)
      at_launch = [body](KwayParams p) {
        p.table = device_table(body);
        return p;
      };
    return make_timed_kernel<KwayParams>(
        std::string("kway<") + body_name(body) + "> k=" + std::to_string(params.k) + " placement " +
            std::to_string(placement),
        placement, kernel_at<B>(placement), params, at_launch,
        [params, body](int lane) { return kway_reference(body, params, lane); }, B::tolerance);
  });
}

float kway_reference(Body body, const KwayParams& p, int lane) {
  const std::vector<float>& table = kway_body_table(body);
  if (table.size() != p.table_words) throw std::invalid_argument("kway_reference: table_words does not match the body");
  const float x0 = lane_seed(lane);
  const int path = p.path_of_lane[lane];
  return with_body(body, [&](auto b) { return kway::reference<decltype(b)>(path, x0, p, table.data()); });
}

double kway_tolerance(Body body) {
  return with_body(body, [](auto b) { return decltype(b)::tolerance; });
}

}  // namespace divbench
