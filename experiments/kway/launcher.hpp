// Host launchers of the k-way divergence kernel (experiments/kway/kway.cu).
//
// Each warp runs one divergent region: lane l takes path path_of_lane[l] (0..k-1); path P runs the
// work body's loop for iters_of_path[P] iterations inside `if (path == P)`, closed by
// __syncwarp(mask_of_path[P]); the region is bracketed by clock64() after a full __syncwarp().
#pragma once
#include <cstddef>
#include <cstdint>
#ifndef __CUDACC_RTC__  // NVRTC (tests/sass/nvrtc/) sees KwayParams only
#include <string>
#include <vector>

#include "divbench/core/body.hpp"
#include "divbench/core/lane_map.hpp"
#endif
#include "divbench/core/warp.hpp"
#include "divbench/kernels/timed_kernel.hpp"

namespace divbench {

// The lanes' path in the no-divergence control (kway_control_kernel): never equal to a step q < 32,
// so every lane runs every step; its parameters sit in slot kControlPath % 32.
inline constexpr std::uint8_t kControlPath = kWarpLanes;

// Which loop a k-way kernel times: the divergent one (kway_kernel), the no-divergence control that
// reads one parameter slot throughout (kway_control_kernel), or one of the two runs of
// kway_control_slots_kernel: reading slot q at step q as the divergent kernel does (control_slot_q,
// lanes on path kControlPath + 31) or slot 0 at every step (control_slot_0, lanes on kControlPath).
// experiments/kway/kway.cuh.
enum class KwayRegion { divergent, control, control_slot_q, control_slot_0 };

struct KwayParams {
  std::int32_t k = 1;
  std::uint8_t path_of_lane[kWarpLanes] = {};
  std::uint32_t mask_of_path[kWarpLanes] = {};  // lanes of each path (for the per-class __syncwarp)
  std::uint32_t iters_of_path[kWarpLanes] = {};
  const float* table = nullptr;                 // device table for the divergent-memory body
  std::uint32_t table_words = 0;                // a power of two
  std::uint32_t zero = 0;                       // always 0; the placement filler folds into it
};

#ifndef __CUDACC_RTC__
// Parameters for k paths laid out by `lanes` (mask_of_path derived; table_words set for bodies that
// read a table). Throws std::invalid_argument for k outside 1..32 or a lane on a path >= k.
KwayParams make_kway_params(Body body, int k, const LaneAssignment& lanes);

// The key of a k-way point's metric launches: one warp of kway_timed_kernel(body, the params of
// assign_lanes(map, k, iters, seed), placement) and its zero-work twin. Points with equal keys have the
// same launches, in whichever experiment (the k sweep, the occupancy sweep): profiled once
// (PointSpec::launch_key).
inline std::string kway_launch_key(Body body, LaneMap map, int k, std::uint32_t iters, std::uint64_t seed,
                                   int placement) {
  return std::string("kway ") + body_name(body) + " " + lane_map_name(map) + " k=" + std::to_string(k) +
         " iters=" + std::to_string(iters) + " seed=" + std::to_string(seed) + " placement=" +
         std::to_string(placement) + ", one warp";
}

// The k-way kernel of `body` at code placement `placement` (0..kPlacements-1) as a TimedKernel.
// Bodies that read a table get one device copy per device, made at the first launch.
TimedKernel kway_timed_kernel(Body body, const KwayParams& p, int placement);

// The no-divergence controls (kway_control_kernel, kway_control_slots_kernel; experiments/kway/kway.cuh):
// the same loop over k paths, every lane on every path, each step running the body for n iterations
// under a full __syncwarp. Every parameter slot holds n and a full mask, so every control reads the
// same values; the lanes sit on path kControlPath, or kControlPath + 31 for control_slot_q. Throws std::invalid_argument for k outside
// 1..32 or a region that is not a control.
KwayParams make_kway_control_params(Body body, int k, std::uint32_t n, KwayRegion region = KwayRegion::control);

// A control kernel of `body` at `placement` as a TimedKernel (parameters from make_kway_control_params;
// a control region; both slot regions run kway_control_slots_kernel).
TimedKernel kway_control_timed_kernel(Body body, const KwayParams& p, int placement,
                                      KwayRegion region = KwayRegion::control);

// What lane `lane` of a control must produce.
float kway_control_reference(Body body, const KwayParams& p, int lane, KwayRegion region = KwayRegion::control);

// The table a body reads (mem_divergent: 2^21 small floats from a fixed seed; other bodies: empty).
const std::vector<float>& kway_body_table(Body body);

// What lane `lane` must produce (host computation of the same body, same float operations).
float kway_reference(Body body, const KwayParams& p, int lane);

// A substring of the mangled name of exactly one kernel: kway_kernel<body, placement>, or a control's
// (kway_control_kernel; kway_control_slots_kernel for both slot regions) (for the kernel facts).
std::string kway_kernel_needle(Body body, int placement, KwayRegion region);

// The region's name in results ("divergent", "control", "control_slot_q", "control_slot_0").
const char* kway_region_name(KwayRegion region);

// Largest relative error accepted against kway_reference (0: bit-exact).
double kway_tolerance(Body body);

#endif  // __CUDACC_RTC__

}  // namespace divbench
