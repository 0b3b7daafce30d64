// What the SASS of this binary predicts for a body's cost per loop iteration (a), for the cost
// sweep to set beside the measured a. The model is divbench_model (src/model/), beside the SASS
// analyzer; this is the cost sweep's one entry to it (experiments/cost/).
#pragma once
#include "divbench/core/body.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/result.hpp"

namespace divbench {

struct LoopPrediction {
  bool available = false;
  double a = 0;                 // predicted cycles per iteration
  json detail = json::object(); // the loop's instructions, stall sum, constants and their source, or why not
};

// `constants_file`: the divbench.loop_cost/1 file to use ("" = the committed one, found from the binary).
LoopPrediction predict_loop_cost(const DeviceRecord& dev, Body body, const std::string& constants_file);

}  // namespace divbench
