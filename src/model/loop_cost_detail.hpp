// Internal to the loop-cost model's files (loop_cost*.cpp): what more than one of them uses.
#pragma once
#include <string>

#include "divbench/core/json_io.hpp"
#include "divbench/model/kernel_facts.hpp"
#include "divbench/model/loop_cost.hpp"

namespace divbench::model::detail {

// The loop can be scheduled by the model (single path, control words); `why` says why not.
bool schedulable(const LoopFacts& l, std::string* why);
// Scoreboard waits inside the loop, by the producer that set the scoreboard: variable latency, memory.
void count_waits(const LoopFacts& l, int& var, int& mem);
// The constants as a divbench.loop_cost/1 document (its fit and validation blocks are the caller's).
json constants_json(const CostConstants& c);

}  // namespace divbench::model::detail
