// The cost sweep's a_predicted: the loop-cost model (src/sass/loop_cost.cpp) applied to this binary's
// own SASS (kernel_facts.json next to the executable, written by the build) with the constants the
// build carries (results/h200/loop_cost.json at configure time). docs/sass.md "Loop-cost model".
#include "loop_prediction.hpp"

#include "divbench/sass/loop_cost.hpp"
#include "divbench/sass/slope_prediction.hpp"
#include "divbench/summary/loop_shape.hpp"

namespace divbench {

LoopPrediction predict_loop_cost(const DeviceRecord& dev, Body body) {
  LoopPrediction p;
  std::string why;
  const auto& facts = running_kernel_facts(why);
  if (!facts) {
    p.detail = json{{"available", false}, {"why", why}};
    return p;
  }
  const auto constants = sass::committed_constants();
  if (!constants) {
    p.detail = json{{"available", false},
                    {"why", std::string("this build carries no loop-cost constants (") + sass::kCommittedConstantsFile +
                                " missing at configure time)"}};
    return p;
  }
  const auto sm = cubin_sm_for_device(*facts, dev.cc_major, dev.cc_minor);
  if (!sm) {
    p.detail = json{{"available", false},
                    {"why", "the kernel facts hold no cubin this device runs (compute capability " + dev.cc + ")"}};
    return p;
  }
  json b = sass::predict_body(*facts, *sm, body_name(body), *constants, sass::kDefaultPredictionIters);
  p.available = b["a"].is_number();
  if (p.available) p.a = b["a"].get<double>();
  b.erase("body");
  b["available"] = p.available;
  b["sm"] = *sm;
  b["model"] = sass::model_json(*constants, *sm);
  b["constants_file"] = sass::kCommittedConstantsFile;
  p.detail = b;
  return p;
}

}  // namespace divbench
