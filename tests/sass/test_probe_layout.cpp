// The probes' two-arm branches in the built divbench, from the kernel facts the build writes next
// to it (kernel_facts.json, "divbench.kernels/1", `divbench kernels facts`): on every architecture
// it carries, each probe's arms are two call sites on the two sides of one divergent branch (so the
// run can say which side a lane group is on), and the order probe's kernels have the intended
// reconvergence and layout: the bssy kernel's branch is BSSY-guarded everywhere; the warpsync
// kernel's is not from sm_90 on, while on sm_75..sm_89 nvcc 13.0 keeps the BSSY (its __syncwarp there
// is a call after the BSYNC), which the order results then report as a form mismatch. In bssy and
// warpsync the taken side lies after the fall-through side; in bssy_backward (ptxas -O0, inline-PTX
// labels) the `then` arm is the TAKEN side and lies BELOW the fall-through side (a backward branch),
// BSSY-guarded; in bssy_loop and warpsync_loop (ptxas's default level: the branch is a loop's latch)
// likewise, with the BSSY form as in bssy and warpsync (warpsync_loop on sm_70 and sm_75: rotated, the
// taken side above). That layout is checked on every architecture the build carries, the legacy build's
// sm_61/sm_70 included (ctest preset legacy-ci), and a failure names the architecture and both
// addresses: there the run could not tell "ties go to the fall-through side" from "ties go to the
// lower address", and its points say so (taken_below_mismatches).
//
// Skips when the facts are absent (no nvdisasm/cuobjdump, or a divbench without the `kernels`
// command); fails then only when DIVBENCH_REQUIRE_NVDISASM=1 and divbench has that command.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "divbench/core/json_io.hpp"
#include "divbench/model/arm_side.hpp"
#include "kernel_checks.hpp"

using namespace divbench;
using namespace divbench::sass;
using namespace divbench::model;

namespace {

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// divbench --help lists its subcommands, one per line ("  kernels   Facts about ...").
bool has_kernels_command() {
  const std::string cmd = std::string("\"") + DIVBENCH_EXECUTABLE + "\" --help 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return false;
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  pclose(pipe);
  return out.find("\n  kernels ") != std::string::npos;
}

}  // namespace

TEST(ProbeLayout, ArmsAreSeparableAndFormsAsIntended) {
  const auto path = std::filesystem::path(DIVBENCH_EXECUTABLE).parent_path() / "kernel_facts.json";
  if (!std::filesystem::exists(path)) {
    const char* req = std::getenv("DIVBENCH_REQUIRE_NVDISASM");
    if (req && std::string(req) == "1" && has_kernels_command()) FAIL() << path << " missing";
    GTEST_SKIP() << path << " not built (needs nvdisasm/cuobjdump and `divbench kernels facts`)";
  }
  const json facts = read_json_file(path.string());
  ASSERT_EQ(facts.value("schema", ""), "divbench.kernels/1");
  std::set<int> sms;
  for (const auto& c : facts["cubins"]) sms.insert(c["sm"].get<int>());
  ASSERT_FALSE(sms.empty());
  for (int sm : sms)
    for (const auto& p : test::probe_branches()) {
      SCOPED_TRACE(std::string(p.name) + " sm_" + std::to_string(sm));
      const ArmSideResult r = arm_side(facts, sm, p.branch);
      ASSERT_TRUE(r.side) << r.error;
      const auto below = r.side->taken_below_fallthrough();
      std::printf("sm_%d %-21s branch 0x%llx, fall-through arm %s at %s, taken at %s%s, %s\n", sm, p.name,
                  static_cast<unsigned long long>(r.side->branch), r.side->fallthrough_arm.c_str(),
                  r.side->fallthrough_at ? hex(*r.side->fallthrough_at).c_str() : "?",
                  r.side->taken_at ? hex(*r.side->taken_at).c_str() : "?",
                  below ? (*below ? " (taken side BELOW)" : " (taken side above)") : " (sides' addresses unknown)",
                  r.side->bssy_guarded ? "BSSY-guarded" : "no BSSY");
      ASSERT_TRUE(below) << "the facts give no fall-through and taken addresses for the branch";
      const std::string name = p.name;
      if (name == "order (bssy)") {
        EXPECT_TRUE(r.side->bssy_guarded);
      }
      if (name == "order (warpsync)") {
        EXPECT_EQ(r.side->bssy_guarded, sm < 90);
      }
      if (name == "order (bssy)" || name == "order (warpsync)") {
        EXPECT_FALSE(*below) << "sm_" << sm << ": " << name << " has its taken side below the fall-through side";
      }
      if (name == "order (bssy_backward)") {
        EXPECT_TRUE(*below) << "sm_" << sm << ": the bssy_backward layout cannot be had here: taken side at "
                            << hex(r.side->taken_at.value_or(0)) << ", fall-through at "
                            << hex(r.side->fallthrough_at.value_or(0)) << " (branch " << hex(r.side->branch) << ")";
        EXPECT_EQ(r.side->fallthrough_arm, "else") << "sm_" << sm;
        EXPECT_TRUE(r.side->bssy_guarded) << "sm_" << sm;
      }
      // The loop kernels (ptxas's default level): the latch is the branch, its taken side the loop's
      // body (the then arm) above it; bssy_loop BSSY-guarded everywhere, warpsync_loop as warpsync.
      // Measured exception: with the waiting arms, nvcc 13.0 for sm_75 and nvcc 11.8 for sm_70 rotate the
      // loop so that the exit test is the divergent branch (the taken side, the else arm, above the
      // fall-through); the order results then label those points by the SASS (taken_below_mismatches).
      if (name == "order (bssy_loop)" || name == "order (warpsync_loop)") {
        const bool rotated = name == "order (warpsync_loop)" && (sm == 70 || sm == 75);
        EXPECT_EQ(*below, !rotated) << "sm_" << sm << ": " << name << " has its taken side at "
                                    << hex(r.side->taken_at.value_or(0)) << ", the fall-through side at "
                                    << hex(r.side->fallthrough_at.value_or(0));
        EXPECT_EQ(r.side->fallthrough_arm, rotated ? "then" : "else") << "sm_" << sm;
        if (name == "order (bssy_loop)") {
          EXPECT_TRUE(r.side->bssy_guarded) << "sm_" << sm;
        } else {
          EXPECT_EQ(r.side->bssy_guarded, sm < 90) << "sm_" << sm;
        }
      }
    }
}
