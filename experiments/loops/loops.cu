// The validation loops' kernels (one per body and code placement) and their launchers.
#include <stdexcept>
#include <utility>

#include "timed_launch.cuh"
#include "bodies.cuh"
#include "divbench/core/warp.hpp"
#include "divbench/cuda/timing.cuh"
#include "experiments/loops/launcher.hpp"

#ifndef DIVBENCH_VALIDATION_ARCH_LIST  // set by kernels/CMakeLists.txt; absent in a bare -cubin compile
#define DIVBENCH_VALIDATION_ARCH_LIST ""
#endif

namespace divbench::validation {

struct LoopParams {
  std::uint32_t iters = 0;
  std::uint32_t off = 0;   // always 0: the predicated-off instruction's condition
  std::uint32_t zero = 0;  // always 0: the placement filler folds into it
};

template <class Body, int Pad>
__global__ void loop_kernel(LoopParams p, RegionSample* samples, float* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = tid / 32u;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  float x = dev::placed<Pad>(lane_seed(lane), p.zero);
  dev::RegionTimer timer;
  timer.start();
  x = Body::run(x, p.iters, p.off);
  timer.stop(samples ? samples + warp : nullptr, warp);
  out[tid] = x;
}

}  // namespace divbench::validation

namespace divbench {
namespace {

using namespace validation;

// name, mangled type name (namespace divbench::validation), and a call of f with the type.
template <class F>
decltype(auto) with_validation_body(const std::string& name, F&& f) {
  if (name == "int_chain") return f(IntChain{}, "IntChain");
  if (name == "mixed_pipes") return f(MixedPipes{}, "MixedPipes");
  if (name == "mufu_ex2") return f(MufuEx2{}, "MufuEx2");
  if (name == "mufu_rcp") return f(MufuRcp{}, "MufuRcp");
  if (name == "mufu_sincos") return f(MufuSinCos{}, "MufuSinCos");
  if (name == "unrolled3") return f(Unrolled3{}, "Unrolled3");
  if (name == "predicated_off") return f(PredicatedOff{}, "PredicatedOff");
  if (name == "fma_chain8") return f(FmaChain8{}, "FmaChain8");
  if (name == "int_mulhi") return f(IntMulHi{}, "IntMulHi");
  if (name == "fma_pair_int") return f(FmaPairInt{}, "FmaPairInt");
  if (name == "fma_int_alternating") return f(FmaIntAlternating{}, "FmaIntAlternating");
  if (name == "convert_chain") return f(ConvertChain{}, "ConvertChain");
  throw std::invalid_argument("unknown validation body '" + name + "'");
}

template <class B, int P = 0>
auto loop_kernel_at(int placement) -> decltype(&loop_kernel<B, 0>) {
  if constexpr (P < kPlacements) {
    if (placement == P) return &loop_kernel<B, P>;
    return loop_kernel_at<B, P + 1>(placement);
  } else {
    throw std::invalid_argument("validation loop: placement " + std::to_string(placement) + " outside 0.." +
                                std::to_string(kPlacements - 1));
  }
}

}  // namespace

const std::vector<std::string>& validation_body_names() {
  static const std::vector<std::string> names{"int_chain",    "mixed_pipes",    "mufu_ex2",   "mufu_rcp",
                                              "mufu_sincos",  "unrolled3",      "predicated_off",
                                              "fma_chain8",   "int_mulhi",      "fma_pair_int",
                                              "fma_int_alternating", "convert_chain"};
  return names;
}

TimedKernel validation_timed_kernel(const std::string& body, std::uint32_t iters, int placement) {
  return with_validation_body(body, [&](auto b, const char*) {
    using B = decltype(b);
    LoopParams p;
    p.iters = iters;
    return make_timed_kernel<LoopParams>(
        "loops<" + body + "> n=" + std::to_string(iters) + " placement " + std::to_string(placement), placement,
        loop_kernel_at<B>(placement), p, nullptr,
        [iters](int lane) { return B::run(lane_seed(lane), iters, 0); }, B::tolerance);
  });
}

std::string validation_kernel_needle(const std::string& body, int placement) {
  return with_validation_body(body, [&](auto, const char* type) {
    const std::string t(type);
    return "10validation11loop_kernelINS0_" + std::to_string(t.size()) + t + "ELi" + std::to_string(placement) + "EE";
  });
}

const std::vector<int>& validation_built_for() {
  static const std::vector<int> archs = [] {
    std::vector<int> v;
    const std::string list = DIVBENCH_VALIDATION_ARCH_LIST;  // "90,..." from CMake
    std::size_t i = 0;
    while (i < list.size()) {
      const std::size_t j = list.find(',', i);
      const std::string item = list.substr(i, j == std::string::npos ? std::string::npos : j - i);
      if (!item.empty()) v.push_back(std::stoi(item));
      if (j == std::string::npos) break;
      i = j + 1;
    }
    return v;
  }();
  return archs;
}

}  // namespace divbench
