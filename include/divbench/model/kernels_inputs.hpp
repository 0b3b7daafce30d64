// The JSON inputs of `divbench kernels fit` and `kernels predict`, taken as bad input when they do not
// fit: a wrong type, a number out of range or a missing key anywhere in them (the json library's
// type_error, out_of_range, ...) is a UsageError naming the file and the key path, exit 2, never an
// internal error.
// The one place that conversion happens (bench/commands/kernels.cpp and tests/fuzz/fuzz_kernels_json.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/model/loop_cost.hpp"

namespace divbench::model {

// One JSON input of a command: the option that names it, its path as the user gave it, and the
// document read from it (nullptr: not read here as one document, e.g. a folder of files).
struct JsonInput {
  std::string option;
  std::string path;
  const json* doc = nullptr;
};

// The one-line message for a json::exception (`what`) raised while reading `inputs`:
// "OPTION PATH: (/key/path) type must be string, but is number". The file is the input whose
// document holds a value at the exception's key path (of the type the message names); when that does
// not single one out, every candidate is named ("--facts A or --cost B: ...").
std::string json_input_error(const std::vector<JsonInput>& inputs, const std::string& what);

// f(), with a json::exception turned into UsageError(json_input_error(inputs, e.what())).
template <class F>
auto with_json_inputs(const std::vector<JsonInput>& inputs, F&& f) {
  try {
    return f();
  } catch (const json::exception& e) {
    throw UsageError(json_input_error(inputs, e.what()));
  }
}

// kernels fit: the facts (schema checked), then the cost result or the k-way results.
CostFit fit_from_documents(const json& facts, const std::string& facts_path, const json* cost,
                           const std::string& cost_path, const std::vector<json>& kway,
                           const std::vector<std::string>& kway_paths);

// kernels predict: the constants and the facts documents -> one (arch, document) per architecture,
// and the console summary of every document.
struct Predictions {
  std::vector<std::pair<std::string, json>> documents;
  std::string summary;
};
Predictions predict_from_documents(const json& constants, const std::string& constants_path,
                                   const std::vector<json>& facts, const std::vector<std::string>& facts_paths,
                                   std::uint32_t n);

}  // namespace divbench::model
