// Host launchers of the predication kernels (device code: predication.cuh): every variant at every
// code placement, the host reference, and the mangled-name needle the SASS facts are looked up by.
#include <stdexcept>
#include <string>

#include "timed_launch.cuh"
#include "experiments/predication/launcher.hpp"
#include "predication.cuh"

namespace divbench {
namespace {

using pred::PredArms;
using PredKernel = void (*)(PredArms, RegionSample*, float*);

// Kernel of a run-time placement (0..kPlacements-1), mapped to the template argument.
template <int P = 0>
PredKernel branchy_at(int placement) {
  if constexpr (P < kPlacements) {
    return placement == P ? &pred::pred_branchy_kernel<P> : branchy_at<P + 1>(placement);
  } else {
    throw std::invalid_argument("predication: placement " + std::to_string(placement) + " outside 0.." +
                                std::to_string(kPlacements - 1));
  }
}

template <int K, int P = 0>
PredKernel select_at(int placement) {
  if constexpr (P < kPlacements) {
    return placement == P ? &pred::pred_select_kernel<K, P> : select_at<K, P + 1>(placement);
  } else {
    throw std::invalid_argument("predication: placement " + std::to_string(placement) + " outside 0.." +
                                std::to_string(kPlacements - 1));
  }
}

PredKernel kernel_of(PredVariant v, int arms, int placement) {
  switch (v) {
    case PredVariant::single:
    case PredVariant::branchy: return branchy_at(placement);
    case PredVariant::predicated:
      switch (arms) {
        case 1: return select_at<1>(placement);
        case 2: return select_at<2>(placement);
        case 4: return select_at<4>(placement);
        case 8: return select_at<8>(placement);
        case 16: return select_at<16>(placement);
        case 32: return select_at<32>(placement);
      }
  }
  throw std::invalid_argument("predication: arms must be 1, 2, 4, 8, 16 or 32");
}

PredArms make_arms(int arms, std::uint32_t iters) {
  if (arms < 1 || arms > kWarpLanes) throw std::invalid_argument("predication: arms outside 1..32");
  PredArms p{};
  p.arms = arms;
  p.iters = iters;
  p.zero = 0;
  p.a = bodies::FmaChain::a_of(0);
  p.b = bodies::FmaChain::b_of(0);
  for (int lane = 0; lane < kWarpLanes; ++lane) p.mask[lane % arms] |= 1u << lane;
  return p;
}

}  // namespace

const char* pred_variant_name(PredVariant v) {
  switch (v) {
    case PredVariant::single: return "single";
    case PredVariant::branchy: return "branchy";
    case PredVariant::predicated: return "predicated";
  }
  return "?";
}

const std::vector<int>& predicated_arm_counts() {
  static const std::vector<int> v{1, 2, 4, 8, 16, 32};
  return v;
}

int pred_arms(PredVariant v, int arms) {
  switch (v) {
    case PredVariant::single: return 1;
    case PredVariant::branchy: return 2;
    case PredVariant::predicated: return arms;
  }
  return 0;
}

int pred_work_loops_per_iteration(PredVariant v, int arms) {
  return v == PredVariant::predicated ? 1 : pred_arms(v, arms);
}

std::string predication_kernel_needle(PredVariant v, int arms, int placement) {
  const std::string p = std::to_string(placement);
  if (v == PredVariant::predicated) return "pred_select_kernelILi" + std::to_string(pred_arms(v, arms)) + "ELi" + p + "EE";
  return "pred_branchy_kernelILi" + p + "EE";
}

TimedKernel predication_timed_kernel(PredVariant v, int arms, std::uint32_t iters, int placement) {
  const int n = pred_arms(v, arms);
  return make_timed_kernel<PredArms>(
      std::string("predication/") + pred_variant_name(v) + " arms=" + std::to_string(n) + " placement " +
          std::to_string(placement),
      placement, kernel_of(v, n, placement), make_arms(n, iters), nullptr,
      [v, arms, iters](int lane) { return predication_reference(v, arms, iters, lane); }, 0.0);
}

float predication_reference(PredVariant v, int arms, std::uint32_t iters, int lane) {
  const PredArms p = make_arms(pred_arms(v, arms), iters);
  const int q = lane % p.arms;
  return bodies::FmaChain::chain(lane_seed(lane) + pred::arm_offset(q), p.a, p.b, iters);
}

}  // namespace divbench
