// The cost sweep's a_predicted: the loop-cost model (src/sass/loop_cost.cpp) applied to this binary's
// own SASS (kernel_facts.json next to the executable, written by the build) with the constants the
// build carries (results/h200/loop_cost.json at configure time). docs/sass.md "Loop-cost model".
#include "loop_prediction.hpp"

#include "divbench/sass/kernel_facts.hpp"
#include "divbench/sass/loop_cost.hpp"
#include "divbench/sass/slope_prediction.hpp"

namespace divbench {

LoopPrediction predict_loop_cost(const DeviceRecord& dev, Body body) {
  LoopPrediction p;
  const auto facts = sass::load_kernel_facts(sass::executable_dir());
  if (!facts) {
    p.detail = json{{"available", false},
                    {"why", std::string("no ") + sass::kKernelFactsFile + " next to divbench (built without nvdisasm)"}};
    return p;
  }
  const auto constants = sass::committed_constants();
  if (!constants) {
    p.detail = json{{"available", false},
                    {"why", std::string("this build carries no loop-cost constants (") + sass::kCommittedConstantsFile +
                                " missing at configure time)"}};
    return p;
  }
  const int sm = dev.cc_major * 10 + dev.cc_minor;
  json b = sass::predict_body(*facts, sm, body_name(body), *constants, sass::kDefaultPredictionIters);
  p.available = b["a"].is_number();
  if (p.available) p.a = b["a"].get<double>();
  b.erase("body");
  b["available"] = p.available;
  b["model"] = sass::model_json(*constants, sm);
  b["constants_file"] = sass::kCommittedConstantsFile;
  p.detail = b;
  return p;
}

}  // namespace divbench
