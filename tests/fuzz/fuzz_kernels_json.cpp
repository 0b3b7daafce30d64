// libFuzzer harness: the JSON readers of `divbench kernels fit` and `kernels predict`, as the
// command runs them after read_json_file: the input is up to three JSON documents separated by NUL bytes,
// taken as the facts, a measured result (a --cost result and a --kway result) and the loop-cost constants.
// Every document that parses goes through model::fit_from_documents and model::predict_from_documents:
// accepted or UsageError (a json type/range error that escapes as anything else is a finding).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "divbench/core/errors.hpp"
#include "divbench/model/kernels_inputs.hpp"

namespace {
using divbench::json;

json parse_or_null(const std::string& text) {
  try {
    return json::parse(text);  // read_json_file's parse: its errors are UsageError there
  } catch (const json::exception&) {
    return json();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  std::vector<json> docs;
  for (std::size_t start = 0; docs.size() < 3;) {
    const std::size_t nul = in.find('\0', start);
    docs.push_back(parse_or_null(in.substr(start, nul == std::string::npos ? std::string::npos : nul - start)));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  docs.resize(3);
  const json& facts = docs[0];
  try {
    divbench::model::fit_from_documents(facts, "facts.json", &docs[1], "cost.json", {}, {});
  } catch (const divbench::UsageError&) {
  }
  try {
    divbench::model::fit_from_documents(facts, "facts.json", nullptr, "", {docs[1]}, {"kway.json"});
  } catch (const divbench::UsageError&) {
  }
  try {
    divbench::model::predict_from_documents(docs[2], "constants.json", {facts}, {"facts.json"}, 10000);
  } catch (const divbench::UsageError&) {
  }
  return 0;
}
