// The timed kernels as one NVRTC translation unit, for the architectures nvcc 13 refuses (sm_61,
// sm_70): NVRTC 12.9 from the cu12 prefix (scripts/study/setup-cu12.sh, scripts/divbench/study/nvrtc_compile.py)
// compiles it with -I kernels -I include -I tests/sass/nvrtc/include -I . (the repository root: an experiment
// folder's kernels, experiments/<name>/*.cu, are included by their path from it). The kernel sources hide their
// host side behind #ifndef __CUDACC_RTC__; templates are instantiated by taking their addresses
// below. tests/sass/CMakeLists.txt builds it and `divbench kernels facts` analyses the cubins
// (kernel_facts_nvrtc.json): the self-check and the predicted slopes for sm_61/sm_70 read them.
#include <utility>

#include "experiments/calibration/calibration.cu"
#include "experiments/kway/kway.cuh"
#include "bodies/fma_chain.cuh"
#include "bodies/fma_indep.cuh"
#include "bodies/int_alu.cuh"
#include "bodies/mem_divergent.cuh"
#include "bodies/sfu.cuh"
#include "experiments/predication/predication.cuh"
#include "experiments/lock/lock.cu"
#include "experiments/peer_wait/peer_wait.cu"
#include "experiments/producer_consumer/producer_consumer.cu"

namespace divbench::nvrtc {

// Never called: naming each specialization's address makes NVRTC emit it.
template <class Body, int... Pad>
__device__ void kway_placements(void**& p, std::integer_sequence<int, Pad...>) {
  ((*p++ = reinterpret_cast<void*>(&kway::kway_kernel<Body, Pad>)), ...);
  ((*p++ = reinterpret_cast<void*>(&kway::kway_control_kernel<Body, Pad>)), ...);
}

template <int... Pad>
__device__ void pred_placements(void**& p, std::integer_sequence<int, Pad...>) {
  ((*p++ = reinterpret_cast<void*>(&pred::pred_branchy_kernel<Pad>)), ...);
  ((*p++ = reinterpret_cast<void*>(&pred::pred_select_kernel<1, Pad>)), ...);
  ((*p++ = reinterpret_cast<void*>(&pred::pred_select_kernel<2, Pad>)), ...);
  ((*p++ = reinterpret_cast<void*>(&pred::pred_select_kernel<4, Pad>)), ...);
  ((*p++ = reinterpret_cast<void*>(&pred::pred_select_kernel<8, Pad>)), ...);
  ((*p++ = reinterpret_cast<void*>(&pred::pred_select_kernel<16, Pad>)), ...);
  ((*p++ = reinterpret_cast<void*>(&pred::pred_select_kernel<32, Pad>)), ...);
}

__device__ void instantiate(void** p) {
  kway_placements<bodies::FmaChain>(p, std::make_integer_sequence<int, kPlacements>{});
  kway_placements<bodies::FmaIndep>(p, std::make_integer_sequence<int, kPlacements>{});
  kway_placements<bodies::IntAlu>(p, std::make_integer_sequence<int, kPlacements>{});
  kway_placements<bodies::Sfu>(p, std::make_integer_sequence<int, kPlacements>{});
  kway_placements<bodies::MemDivergent>(p, std::make_integer_sequence<int, kPlacements>{});
  pred_placements(p, std::make_integer_sequence<int, kPlacements>{});
  *p++ = reinterpret_cast<void*>(&progress::lock_kernel<LockForm::release_in_branch>);
  *p++ = reinterpret_cast<void*>(&progress::lock_kernel<LockForm::release_after_loop>);
  *p++ = reinterpret_cast<void*>(&calibration_kernel<1>);
  *p++ = reinterpret_cast<void*>(&calibration_kernel<2>);
  *p++ = reinterpret_cast<void*>(&calibration_kernel<4>);
  *p++ = reinterpret_cast<void*>(&calibration_kernel<8>);
  *p++ = reinterpret_cast<void*>(&calibration_kernel<16>);
  *p++ = reinterpret_cast<void*>(&calibration_kernel<32>);
}

}  // namespace divbench::nvrtc
