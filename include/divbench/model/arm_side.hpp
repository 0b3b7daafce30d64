// Which arm of a probe's two-arm branch the binary's SASS puts on the branch's fall-through side,
// and whether a BSSY convergence barrier guards that branch, read from a "divbench.kernels/1"
// document (the kernel facts the build writes next to divbench: every function's potentially
// divergent branches with the calls on each side, `sides.fallthrough.calls` / `sides.taken.calls`,
// their `bssy` guards, and the addresses `fallthrough` and `taken` where the two sides begin). The probes' arms are distinct __noinline__ functions, so each arm is
// one call site and the callee's symbol names the arm.
//
// The one place the dynamic probes learn their kernels' layout: the order probe, producer/consumer
// and peer-wait read it at run time, the SASS self-check (tests/sass/) over the built binary.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"

namespace divbench::model {

struct ArmBranch {
  std::vector<std::string> kernel;  // substrings every matching function name contains
  std::string then_callee;          // substring of the `then` arm's symbol, e.g. "order_armILi0E"
  std::string else_callee;
};

struct ArmSide {
  std::string function;         // the mangled kernel name
  std::uint64_t branch = 0;     // offset of the branch instruction
  std::string fallthrough_arm;  // "then" | "else"
  // A BSSY (SSY) guards the branch: the BSSY/BSYNC form, else WARPSYNC only. Also true where the facts
  // give the BSSY to another branch whose BSYNC is at this branch's immediate post-dominator, the BSSY
  // above this branch (a loop's latch inside the region of a BSSY before the loop: the order probe's
  // loop kernels).
  bool bssy_guarded = false;
  // Where the two sides begin: the fall-through block (the instruction after the branch) and the
  // branch target, from the facts' `fallthrough` and `taken` (absent in facts that lack them).
  std::optional<std::uint64_t> fallthrough_at, taken_at;
  // taken_at < fallthrough_at: the taken side lies at the lower address (a backward branch), so the
  // fall-through side is not the lower one; unknown without both addresses.
  std::optional<bool> taken_below_fallthrough() const {
    if (!fallthrough_at || !taken_at) return std::nullopt;
    return *taken_at < *fallthrough_at;
  }
};

struct ArmSideResult {
  std::optional<ArmSide> side;
  std::string error;  // why not, when side is empty
};

// In the cubin of architecture sm (90 for sm_90) of `facts`: the one function matching q.kernel,
// and in it the divergent branch with one arm's call on the fall-through side and the other's on
// the taken side.
ArmSideResult arm_side(const json& facts, int sm, const ArmBranch& q);

}  // namespace divbench::model
