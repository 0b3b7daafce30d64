// The reader of libdivbench_pcsample.so's documents (attribute/pcsamples.hpp) on hand-made ones:
// a well-formed document, merging two processes, and the malformed cases it must refuse by name.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "divbench/attribute/pcsamples.hpp"
#include "divbench/core/errors.hpp"
#include "divbench/core/process.hpp"

namespace {

using namespace divbench;
using attribute::PcSamples;

const char* const kGood = R"({
  "schema": "divbench.attribute_pcsamples/1", "pid": 4242, "device": {"name": "NVIDIA H200", "sms": 132},
  "period_exponent": 14, "period_cycles": 16384,
  "total_samples": 17, "dropped_samples": 2, "hardware_buffer_full": false,
  "cupti_total_samples": 21, "non_user_samples": 2,
  "record_samples_all_reasons": 17, "record_samples_without_not_issued": 17, "sample_rule": "all_reasons",
  "stall_reasons": ["smsp__pcsamp_warps_issue_stalled_selected", "smsp__pcsamp_warps_issue_stalled_long_scoreboard"],
  "functions": [
    {"crc": 4294967295, "name": "_Z6kernelPf", "pcs": [[0, 3, {"0": 3}], [16, 10, {"0": 2, "1": 8}]]},
    {"crc": 7, "name": "_Z5otherv", "pcs": [[32, 4]]}
  ],
  "errors": ["cuptiPCSamplingGetData (exit): CUPTI_ERROR_OUT_OF_MEMORY"]
})";

class PcSamplesTest : public ::testing::Test {
 protected:
  TempDir dir;
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir.path() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // The good document with `from` replaced by `to` (once).
  std::string variant(const std::string& from, const std::string& to) {
    std::string text = kGood;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return write("variant.json", text);
  }
  // read_pcsamples must refuse the file with a UsageError that names it and says `why`.
  void expect_refused(const std::string& path, const std::string& why) {
    try {
      attribute::read_pcsamples(path);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(why), std::string::npos) << what;
    }
  }
};

TEST_F(PcSamplesTest, ReadsADocument) {
  const PcSamples p = attribute::read_pcsamples(write("good.json", kGood));
  EXPECT_EQ(p.period_cycles, 16384u);
  EXPECT_EQ(p.total, 17u);
  EXPECT_EQ(p.dropped, 2u);
  EXPECT_FALSE(p.hardware_buffer_full);
  EXPECT_EQ(p.processes, 1);
  ASSERT_EQ(p.reasons.size(), 2u);
  EXPECT_EQ(p.reasons[1], "smsp__pcsamp_warps_issue_stalled_long_scoreboard");
  const auto* k = p.function(4294967295u, "_Z6kernelPf");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->at(0), 3u);
  EXPECT_EQ(k->at(16), 10u);
  EXPECT_EQ(p.stalls.at({4294967295u, "_Z6kernelPf"}).at(16).at(1), 8u);
  const auto* o = p.function(7, "_Z5otherv");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->at(32), 4u);
  EXPECT_EQ(p.stalls.count({7, "_Z5otherv"}), 0u);  // a row without reasons
  EXPECT_EQ(p.function(7, "_Z6kernelPf"), nullptr);
  ASSERT_EQ(p.errors.size(), 1u);
}

TEST_F(PcSamplesTest, MergesByPcAndReasonName) {
  PcSamples all;
  attribute::merge_pcsamples(all, attribute::read_pcsamples(write("a.json", kGood)));
  // A second process whose CUPTI listed the reasons in another order, plus one more.
  const std::string second = R"({"schema": "divbench.attribute_pcsamples/1", "period_cycles": 16384,
    "total_samples": 6, "dropped_samples": 1, "hardware_buffer_full": true,
    "stall_reasons": ["smsp__pcsamp_warps_issue_stalled_long_scoreboard", "smsp__pcsamp_warps_issue_stalled_barrier",
                      "smsp__pcsamp_warps_issue_stalled_selected"],
    "functions": [{"crc": 4294967295, "name": "_Z6kernelPf", "pcs": [[16, 5, {"0": 4, "2": 1}], [48, 1, {"1": 1}]]}]})";
  attribute::merge_pcsamples(all, attribute::read_pcsamples(write("b.json", second)));
  EXPECT_EQ(all.processes, 2);
  EXPECT_EQ(all.total, 23u);
  EXPECT_EQ(all.dropped, 3u);
  EXPECT_TRUE(all.hardware_buffer_full);
  ASSERT_EQ(all.reasons.size(), 3u);
  EXPECT_EQ(all.reasons[2], "smsp__pcsamp_warps_issue_stalled_barrier");
  const PcSamples::Key k{4294967295u, "_Z6kernelPf"};
  EXPECT_EQ(all.samples.at(k).at(16), 15u);
  EXPECT_EQ(all.samples.at(k).at(48), 1u);
  EXPECT_EQ(all.stalls.at(k).at(16).at(0), 3u);  // selected: 2 + 1
  EXPECT_EQ(all.stalls.at(k).at(16).at(1), 12u);  // long scoreboard: 8 + 4
  EXPECT_EQ(all.stalls.at(k).at(48).at(2), 1u);   // barrier, new
  EXPECT_EQ(all.samples.at({7, "_Z5otherv"}).at(32), 4u);

  PcSamples other = attribute::read_pcsamples(write("c.json", kGood));
  other.period_cycles = 1024;
  EXPECT_THROW(attribute::merge_pcsamples(all, other), UsageError);
}

TEST_F(PcSamplesTest, RefusesMalformedDocuments) {
  expect_refused(write("text.json", "not json"), "text.json");
  expect_refused(write("array.json", "[1, 2]"), "not a JSON object");
  expect_refused(variant("attribute_pcsamples/1", "attribute_counts/1"), "not a divbench.attribute_pcsamples/1");
  expect_refused(variant(R"("period_cycles": 16384,)", ""), "period_cycles");
  expect_refused(variant(R"("period_cycles": 16384)", R"("period_cycles": 1000)"), "is not 2^k");
  expect_refused(variant(R"("period_cycles": 16384)", R"("period_cycles": 16)"), "is not 2^k");
  expect_refused(variant(R"("period_cycles": 16384)", R"("period_cycles": 4294967296)"), "is not 2^k");
  expect_refused(variant(R"("total_samples": 17)", R"("total_samples": -17)"), "total_samples is not an unsigned integer");
  expect_refused(variant(R"("total_samples": 17)", R"("total_samples": 17.5)"), "total_samples is not an unsigned integer");
  expect_refused(variant(R"("total_samples": 17)", R"("total_samples": 18)"), "is not the sum of the pcs' samples (17)");
  expect_refused(variant(R"("dropped_samples": 2)", R"("dropped_samples": "2")"), "dropped_samples is not an unsigned integer");
  expect_refused(variant(R"("hardware_buffer_full": false)", R"("hardware_buffer_full": 0)"), "hardware_buffer_full");
  expect_refused(variant(R"("crc": 4294967295)", R"("crc": 4294967296)"), "crc is out of range");
  expect_refused(variant(R"("crc": 7)", R"("crc": -7)"), "crc is not an unsigned integer");
  expect_refused(variant(R"("name": "_Z5otherv")", R"("name": 5)"), "name is not a string");
  expect_refused(variant(R"([[32, 4]])", R"([[32]])"), "is not [pc, samples");
  expect_refused(variant(R"([[32, 4]])", R"([[32, 4, {}, 1]])"), "is not [pc, samples");
  expect_refused(variant(R"([[32, 4]])", R"([[-32, 4]])"), "a pc of _Z5otherv is not an unsigned integer");
  expect_refused(variant(R"([[32, 4]])", R"([[32, 18446744073709551616]])"), "is not an unsigned integer");
  expect_refused(variant(R"([[32, 4]])", R"([[32, 4, [4]]])"), "are not an object");
  expect_refused(variant(R"({"0": 3})", R"({"2": 3})"), "stall reason index \"2\" at pc 0 of _Z6kernelPf");
  expect_refused(variant(R"({"0": 3})", R"({"x": 3})"), "stall reason index \"x\"");
  expect_refused(variant(R"({"0": 3})", R"({"-0": 3})"), "stall reason index \"-0\"");
  expect_refused(variant(R"({"0": 3})", R"({"0": -3})"), "is not an unsigned integer");
  expect_refused(variant(R"("stall_reasons": [)", R"("stall_reasons": [7, )"), "a stall reason is not a string");
  expect_refused(variant(R"("errors": [)", R"("errors": [1, )"), "an errors line is not a string");
  // The sum of the pcs' samples past 64 bits.
  expect_refused(variant(R"([[32, 4]])", R"([[32, 18446744073709551615]])"), "overflows 64 bits");
}

}  // namespace
