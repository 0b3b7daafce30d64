// The lock probe's divbench.result/1 document as the harness writes it, over synthetic points: its real
// parse/to_json, finalize and envelope; tests/python/test_schemas.py runs the SchemaDocuments tests with
// DIVBENCH_SCHEMA_DOCS set and validates lock.json against experiments/lock/schema.json.
#include <gtest/gtest.h>

#include "tests/cpu/experiments/schema_documents.hpp"

using namespace divbench;
using namespace divbench::schema_docs;

TEST(SchemaDocuments, LockProbeRecordsItsLaunchCap) {
  CommandLine o;
  o.set("--reps", "1000");  // more than the probe's cap: the cap and the request are recorded
  ResultRecord r;
  const json run{{"lanes_served", 32}, {"completed", true}, {"cap_reached", false}};
  for (const char* form : {"release_in_branch", "release_after_loop"})
    r.points_extra.push_back(json{{"form", form}, {"launches", 1}, {"completed", true}, {"lanes_served", 32},
                                  {"cap_reached", false}, {"runs", json::array({run})}, {"axes", {{"form", form}}}});
  const json doc = document("probe", "lock", o, std::move(r));
  EXPECT_EQ(doc["config"]["reps_requested"], 1000);
  EXPECT_LT(doc["config"]["launches_cap"].get<int>(), 1000);
  EXPECT_TRUE(doc["summary"]["completed"].get<bool>());
}
