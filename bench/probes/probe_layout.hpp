// The layout of a probe's two-arm branch in this binary's SASS for the device it runs on: which arm
// is the fall-through, whether a BSSY guards the branch and which side lies at the lower address
// (model/arm_side.hpp, read from the kernel facts the build writes next to divbench). From it, the side a lane group lands on ("fallthrough"
// or "taken") and the reconvergence form ("bssy" or "warpsync"); both stay unknown (null) when
// the facts are missing or do not describe this device's architecture, and the result says why.
#pragma once
#include <optional>
#include <string>

#include "divbench/core/json_io.hpp"
#include "divbench/core/result.hpp"
#include "divbench/model/arm_side.hpp"

namespace divbench {

struct ProbeLayout {
  model::ArmSideResult arms;
  std::string source;  // where the answer came from, or why there is none
};

ProbeLayout probe_layout(const DeviceRecord& dev, const model::ArmBranch& branch);

// The side of the group whose lanes take the `then` arm (group_in_then) or the `else` arm.
std::optional<std::string> group_side(const ProbeLayout& l, bool group_in_then);
// "bssy" when a BSSY guards the branch, "warpsync" otherwise.
std::optional<std::string> reconvergence_form(const ProbeLayout& l);
// Whether the branch's taken side lies at a lower address than its fall-through side (a backward
// branch); unknown without the SASS answer or its side addresses.
std::optional<bool> taken_below_fallthrough(const ProbeLayout& l);
// {source, function, branch, fallthrough_arm, bssy_guarded, fallthrough_at, taken_at,
// taken_below_fallthrough} (null where unknown), plus error.
json to_json(const ProbeLayout& l);

}  // namespace divbench
