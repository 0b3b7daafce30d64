#include "divbench/core/body.hpp"

#include "divbench/core/name_table.hpp"

namespace divbench {
namespace {

struct BodyEntry {
  Body value;
  const char* name;
  bool memory;
};
constexpr BodyEntry kBodies[] = {
    {Body::fma_chain, "fma_chain", false}, {Body::fma_indep, "fma_indep", false}, {Body::int_alu, "int_alu", false},
    {Body::sfu, "sfu", false},             {Body::mem_divergent, "mem_divergent", true},
};

}  // namespace

const std::vector<Body>& all_bodies() { return table_values<kBodies>(); }

const char* body_name(Body b) { return table_name(kBodies, b); }

Body parse_body(const std::string& name) { return parse_table_name(kBodies, name, "--body: unknown work body"); }

bool body_touches_memory(Body b) {
  const BodyEntry* e = table_entry(kBodies, b);
  return e && e->memory;
}

}  // namespace divbench
