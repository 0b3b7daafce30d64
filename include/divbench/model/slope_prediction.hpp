// Predicted slopes for GPUs not here (docs/sass.md, "Kernel facts"): for every architecture a divbench.kernels/1
// document holds the k-way kernels of, the loop-cost model (loop_cost.hpp) applied to that
// architecture's SASS of every work body, with the constants of a `kernels fit`
// ("divbench.predicted/1", results/predicted/sm_XX.json):
//   a  cycles per iteration of the body's work loop   predicted, a lower bound, or not predicted
//   b  cycles per path of divergence overhead        not predicted: no model covers it
//   s  slope per path at n iterations                 a*n with b left out (said so), null when a is
// The constants were fitted on one architecture; applied to another they are an assumption, and
// the document says so. Everything but the "run" object (date, git, command) is deterministic, so a
// regenerated set can be compared with the committed one (compare_predictions).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/model/loop_cost.hpp"

namespace divbench::model {

inline constexpr const char* kPredictedSchema = "divbench.predicted/1";
inline constexpr std::uint32_t kDefaultPredictionIters = 10000;  // the k sweep's default n

// The bodies predicted, in order (the Body enum's names; "fma_chain" is the default body).
const std::vector<std::string>& predicted_bodies();

// One document per architecture found in `facts` (paths name them in the provenance), sorted by
// architecture: ("sm_80", document).
std::vector<std::pair<std::string, json>> predict_slopes(const std::vector<json>& facts,
                                                         const std::vector<std::string>& facts_paths,
                                                         const CostConstants& constants,
                                                         const std::string& constants_path, std::uint32_t n);
// One body on one architecture (an element of a document's "bodies"): a, a_lower_bound, a_status,
// b (null), s = a*n, the work loop; the first of its functions (placements), which must agree.
json predict_body(const json& facts, int sm, const std::string& body, const CostConstants& constants, std::uint32_t n);
// The model block of a document: the constants, where they were fitted and what that means on `sm`.
json model_json(const CostConstants& constants, int sm);
std::string prediction_summary(const json& doc);

// Differences between a regenerated and a committed document, ignoring "run": one line per changed
// value ("bodies.0.a.value: committed 28, regenerated 29"); empty when equal.
std::vector<std::string> compare_predictions(const json& committed, const json& regenerated);

}  // namespace divbench::model
