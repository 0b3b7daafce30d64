// One provenance (include/divbench/core/provenance.hpp): its JSON, the inverse, tool records, and the
// result writer keeping the five keys at the top level of divbench.result/1 (unchanged layout).
#include <gtest/gtest.h>

#include "divbench/core/provenance.hpp"
#include "divbench/core/result.hpp"

using namespace divbench;

TEST(Provenance, JsonRoundTripWithTools) {
  Provenance p = make_provenance("divbench sass x.cubin");
  p.tools["nvdisasm"] = {"/opt/nvdisasm", "release 13.5, V13.5.37"};
  const json j = to_json(p);
  const std::vector<std::string> keys = {"toolkit", "git", "created", "host", "command", "nvdisasm", "nvdisasm_version"};
  std::vector<std::string> got;
  for (auto it = j.begin(); it != j.end(); ++it) got.push_back(it.key());
  EXPECT_EQ(got, keys);
  EXPECT_EQ(j["command"], "divbench sass x.cubin");
  EXPECT_EQ(j["nvdisasm_version"], "release 13.5, V13.5.37");
  EXPECT_EQ(j["created"].get<std::string>().size(), 20u);  // 2026-11-30T12:00:00Z
  const Provenance q = provenance_from_json(j);
  EXPECT_EQ(to_json(q), j);
  EXPECT_TRUE(provenance_from_json(json::array()).tools.empty());
}

TEST(Provenance, ResultWriterKeepsTheKeysAtTheTopLevel) {
  ResultRecord r;
  r.experiment = "kway";
  r.provenance = make_provenance("divbench --sweep k");
  const json j = to_json(r);
  for (const char* k : {"toolkit", "git", "created", "host", "command"}) EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_FALSE(j.contains("provenance"));
  EXPECT_EQ(j["command"], "divbench --sweep k");
}
