// libFuzzer harness: attribute's reader of recorded counts (`--from-counts`, the injection library's
// divbench.attribute_counts/1 documents), as read_counts runs it after read_json_file. The input is up to
// two JSON documents separated by a NUL byte (two processes of one program): each that parses goes through
// counts_from_json, the two through merge_counts, every function through check_pcs_inside (instructions
// every 16 bytes of a 4 KiB function, as sm_70+ code) and back through to_json / function_counts_from_json.
// Accepted or UsageError; anything else escaping is a finding, and so is a function that the reader
// accepted but whose own JSON it refuses or reads differently, or counts the reader promised to refuse
// (thread_inst above 32 x inst, pred_on above thread_inst).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "divbench/attribute/counts.hpp"
#include "divbench/core/errors.hpp"

namespace {
using divbench::json;
namespace at = divbench::attribute;

json parse_or_null(const std::string& text) {
  try {
    return json::parse(text);  // read_json_file's parse: its errors are UsageError there
  } catch (const json::exception&) {
    return json();
  }
}

bool same(const at::FunctionCounts& a, const at::FunctionCounts& b) {
  if (a.crc != b.crc || a.name != b.name || a.pcs.size() != b.pcs.size()) return false;
  for (const auto& [pc, c] : a.pcs) {
    const at::PcCounts* d = b.at(pc);
    if (!d || d->inst != c.inst || d->thread_inst != c.thread_inst || d->pred_on != c.pred_on ||
        d->divergent != c.divergent || d->uniform != c.uniform)
      return false;
  }
  return true;
}

void check_accepted(const at::RunCounts& r) {
  for (const auto& f : r.functions) {
    for (const auto& [pc, c] : f.pcs)
      if (!(c.thread_inst / 32 < c.inst || (c.thread_inst / 32 == c.inst && c.thread_inst % 32 == 0)) ||
          c.pred_on > c.thread_inst)
        std::abort();  // counts the reader promised to refuse
    try {
      if (!same(f, at::function_counts_from_json(at::to_json(f), "roundtrip"))) std::abort();
    } catch (const divbench::UsageError&) {
      std::abort();  // the reader refuses what it wrote of an accepted function
    }
    try {
      at::check_pcs_inside(f, [](std::uint64_t pc) { return pc % 16 == 0 && pc < 4096; }, 4096);
    } catch (const divbench::UsageError&) {
    }
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = in.find('\0');
  std::vector<json> docs{parse_or_null(in.substr(0, nul))};
  if (nul != std::string::npos) docs.push_back(parse_or_null(in.substr(nul + 1)));
  at::RunCounts merged;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    try {
      const at::RunCounts r = at::counts_from_json(docs[i], "/recording/k" + std::to_string(i) + "/counts-1.json");
      check_accepted(r);
      at::merge_counts(merged, r);
      check_accepted(merged);
    } catch (const divbench::UsageError&) {
    }
  }
  return 0;
}
