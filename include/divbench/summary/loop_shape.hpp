// The shape of a timed kernel's work loop from the binary's own SASS, read from a
// "divbench.kernels/1" document (the kernel-facts module, `divbench kernels facts`: the build writes
// it next to divbench as kernel_facts.json): per iteration the loop's instructions, the sum of
// their control-word stall fields, its taken branches and a count per opcode. Host-only; the
// predication sweep records it beside each point's time, and the SASS check asserts its rule.
//
// Equal loop shapes (the predication rule): at every code placement, the single path's
// work loop (the arm loop's FmaChain loop) is one path per iteration with one taken branch, and
// every K-arm predicated form's loop is that loop with 4(K-1) more FFMA and nothing else: the same
// number of other instructions (the counter, the compare, the back branch), one path, one taken
// branch. The branchy variant runs the single path's own kernel, so its loop is that loop.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "divbench/core/expected.hpp"
#include "divbench/core/json_io.hpp"

namespace divbench {

struct LoopShape {
  std::string function;          // mangled name of the kernel holding the loop
  int sm = 0;                    // architecture of the cubin it was read from
  int instructions = 0;          // per iteration
  std::optional<int> stall_sum;  // control-word stall cycles per iteration (none: not decoded)
  int taken_branches = 0;        // per iteration (the back branch)
  bool single_path = false;      // one path per iteration (then the counts are per iteration)
  std::map<std::string, int> opcodes;  // base opcode -> count per iteration

  int count(const std::string& base) const;
};

json to_json(const LoopShape& s);
LoopShape loop_shape_from_json(const json& j);  // std::runtime_error on a malformed object

// The cubin architecture whose SASS a device of compute capability major.minor runs from this
// document: the largest sm with the same major and a minor <= the device's; nullopt when none (the
// device would run JIT-compiled PTX, whose SASS the document does not hold).
std::optional<int> cubin_sm_for_device(const json& facts, int cc_major, int cc_minor);

// The work loop (the one innermost loop of the timed region) of the one function of architecture
// `sm` whose mangled name contains `needle`. std::runtime_error naming what is missing: no such
// cubin, no or several matching functions, no work loop.
LoopShape work_loop_shape(const json& facts, int sm, const std::string& needle);

// The loop enclosing that work loop (the k-way kernels' loop over paths). std::runtime_error as
// work_loop_shape, and when the work loop is outermost.
LoopShape enclosing_loop_shape(const json& facts, int sm, const std::string& needle);

// Equal shapes: the same instruction count, stall sum, taken branches and count per opcode. One line
// per difference, naming `what`; empty when equal. (The no-divergence control's rule: at every
// placement its loop over paths and its work loop equal the divergent kernel's.)
std::vector<std::string> equal_shape_problems(const LoopShape& want, const LoopShape& got, const std::string& what);

// The kernel facts of the running executable: kernel_facts.json in its directory, or why there is none or it
// is not a "divbench.kernels/1" document (model::find_kernel_facts). Read on the first call; later calls
// return the same document.
const Expected<json>& running_kernel_facts();

// Those facts and the cubin a device of compute capability major.minor runs from them (cubin_sm_for_device),
// or why there are none: "no kernel facts ..." (running_kernel_facts) or "the kernel facts hold no cubin this
// device runs (compute capability X.Y)". What every reader of the running binary's SASS asks first.
struct DeviceFacts {
  const json* facts = nullptr;  // null: see `why`
  int sm = 0;
  std::string why;
  explicit operator bool() const { return facts != nullptr; }
};
DeviceFacts running_facts_for_device(int cc_major, int cc_minor);

}  // namespace divbench
