// The cost sweep's a_predicted: the loop-cost model (src/model/loop_cost.cpp) applied to this binary's
// own SASS (kernel_facts.json next to the executable, written by the build) with the constants read
// at run time (--loop-cost FILE; by default results/h200/loop_cost.json found from the binary).
// docs/sass.md "Loop-cost model".
#include "experiments/cost/loop_prediction.hpp"

#include "divbench/model/loop_cost.hpp"
#include "divbench/model/slope_prediction.hpp"
#include "divbench/summary/loop_shape.hpp"

namespace divbench {

LoopPrediction predict_loop_cost(const DeviceRecord& dev, Body body, const std::string& constants_file) {
  LoopPrediction p;
  const DeviceFacts df = running_facts_for_device(dev.cc_major, dev.cc_minor);
  if (!df) {
    p.detail = json{{"available", false}, {"why", df.why}};
    return p;
  }
  const auto loaded = model::load_constants(constants_file);
  if (!loaded) {
    p.detail = json{{"available", false}, {"why", loaded.error()}};
    return p;
  }
  const model::CostConstants& constants = loaded->constants;
  json b = model::predict_body(*df.facts, df.sm, body_name(body), constants, model::kDefaultPredictionIters);
  p.available = b["a"].is_number();
  if (p.available) p.a = b["a"].get<double>();
  b.erase("body");
  b["available"] = p.available;
  b["sm"] = df.sm;
  b["model"] = model::model_json(constants, df.sm);
  b["constants_file"] = loaded->file;
  p.detail = b;
  return p;
}

}  // namespace divbench
