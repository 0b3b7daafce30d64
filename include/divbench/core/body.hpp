// The work bodies a timed path can run (kernels/bodies/): names, parsing, and which ones touch
// memory. Host-only, so configurations are parsed and tested without the CUDA runtime.
#pragma once
#include <string>
#include <vector>

namespace divbench {

enum class Body { fma_chain, fma_indep, int_alu, sfu, mem_divergent };

const std::vector<Body>& all_bodies();
const char* body_name(Body b);
// Throws UsageError naming the valid bodies.
Body parse_body(const std::string& name);
// True for bodies whose loop loads from memory (their per-warp time depends on what other warps
// do to the caches, so sampling several warps at once is not assumed to be neutral for them).
bool body_touches_memory(Body b);

}  // namespace divbench
