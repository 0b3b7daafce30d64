#include "divbench/core/body.hpp"

#include "divbench/core/errors.hpp"

namespace divbench {
namespace {

struct BodyEntry {
  Body body;
  const char* name;
  bool memory;
};
constexpr BodyEntry kBodies[] = {
    {Body::fma_chain, "fma_chain", false}, {Body::fma_indep, "fma_indep", false}, {Body::int_alu, "int_alu", false},
    {Body::sfu, "sfu", false},             {Body::mem_divergent, "mem_divergent", true},
};

}  // namespace

const std::vector<Body>& all_bodies() {
  static const std::vector<Body> v = [] {
    std::vector<Body> b;
    for (const auto& e : kBodies) b.push_back(e.body);
    return b;
  }();
  return v;
}

const char* body_name(Body b) {
  for (const auto& e : kBodies)
    if (e.body == b) return e.name;
  return "?";
}

Body parse_body(const std::string& name) {
  std::string valid;
  for (const auto& e : kBodies) {
    if (name == e.name) return e.body;
    valid += (valid.empty() ? "" : "|") + std::string(e.name);
  }
  throw UsageError("--body: unknown work body '" + name + "' (valid: " + valid + ")");
}

bool body_touches_memory(Body b) {
  for (const auto& e : kBodies)
    if (e.body == b) return e.memory;
  return false;
}

}  // namespace divbench
