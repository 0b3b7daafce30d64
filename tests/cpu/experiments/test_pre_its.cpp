// Pascal and earlier (cc < 7.0) have no independent thread scheduling: the probes whose lanes wait for
// each other are refused before any launch with one UsageError line (exit 2, never a capped spin that
// looks like a result); the order probe, which waits for nothing, is not refused. No GPU: plan() is
// handed a device record.
#include <gtest/gtest.h>

#include <string>

#include "divbench/core/errors.hpp"
#include "harness/experiment.hpp"
#include "tests/cpu/experiments/synthetic_points.hpp"
#include "harness/runner.hpp"

using namespace divbench;

namespace {
DeviceRecord device(int major, int minor) {
  DeviceRecord d;
  d.name = major < 7 ? "NVIDIA GeForce GTX 1080" : "Tesla V100";
  d.cc_major = major;
  d.cc_minor = minor;
  d.cc = std::to_string(major) + "." + std::to_string(minor);
  d.sm_count = 20;
  return d;
}
// The refusal message plan() throws for this device, "" when it throws none (or another error).
std::string refusal(const std::string& probe, const DeviceRecord& dev) {
  const PreparedExperiment p = synthetic::prepare("probe", probe);
  try {
    (void)p.plan(dev);
  } catch (const UsageError& err) {
    const std::string m = err.what();
    return m.find("independent thread scheduling") != std::string::npos ? m : "";
  } catch (const std::exception&) {
  }
  return "";
}
}  // namespace

TEST(PreIts, WaitingProbesAreRefusedOnPascal) {
  for (const std::string probe : {"lock", "peer-wait", "producer-consumer"}) {
    SCOPED_TRACE(probe);
    const std::string m = refusal(probe, device(6, 1));
    EXPECT_NE(m.find("--probe " + probe + " needs independent thread scheduling (cc 7.0 or later)"), std::string::npos) << m;
    EXPECT_NE(m.find("cc 6.1"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line";
  }
}

TEST(PreIts, VoltaAndTheOrderProbeAreNotRefused) {
  for (const std::string probe : {"lock", "peer-wait", "producer-consumer", "order"}) {
    SCOPED_TRACE(probe);
    EXPECT_EQ(refusal(probe, device(7, 0)), "");
  }
  EXPECT_EQ(refusal("order", device(6, 1)), "");
}
