// The order probe's divbench.result/1 document as the harness writes it, over synthetic points: its real
// parse/to_json, finalize (the rule fit) and envelope; tests/python/test_schemas.py runs the SchemaDocuments
// tests with DIVBENCH_SCHEMA_DOCS set and validates order.json against experiments/order/schema.json.
#include <gtest/gtest.h>

#include "divbench/core/lane_group.hpp"
#include "divbench/core/side_order.hpp"
#include "tests/cpu/experiments/schema_documents.hpp"

using namespace divbench;
using namespace divbench::schema_docs;

TEST(SchemaDocuments, OrderProbeWithItsRule) {
  ResultRecord r;
  for (int g : {1, 16})
    for (bool in_then : {true, false})
      for (const char* kernel : {"bssy", "warpsync", "bssy_backward", "bssy_loop", "warpsync_loop"}) {
        const std::string k = kernel;
        const bool backward = k == "bssy_backward" || k == "bssy_loop" || k == "warpsync_loop";
        const char* form = k == "warpsync" || k == "warpsync_loop" ? "warpsync" : "bssy";
        const std::string side = in_then != backward ? "fallthrough" : "taken";
        // made up: fewer lanes first, ties to the fall-through side
        const char* first = g == 1 || side == "fallthrough" ? "group" : "rest";
        const json runs = json::array({order_run(first), order_run(first)});
        json p = side_order_fields(group_mask(g, GroupPosition::low), side, std::string(form), combine_launches(runs));
        p.update(json{{"group_size", g}, {"group_arm", in_then ? "then" : "else"}, {"intended_group_side", side},
                      {"intended_form", form}, {"order_form", kernel}, {"intended_taken_below", backward},
                      {"layout", {{"source", "synthetic"}, {"function", "order_kernel"}, {"branch", 256},
                                  {"fallthrough_arm", backward ? "else" : "then"}, {"bssy_guarded", std::string(form) == "bssy"},
                                  {"fallthrough_at", 272}, {"taken_at", backward ? 128 : 320},
                                  {"taken_below_fallthrough", backward}}},
                      {"layout_verified", true}, {"layout_matches_intent", true}, {"form_matches_intent", true},
                      {"taken_below_matches_intent", true}, {"launches", 2}, {"cap_reached", false}, {"completed", true},
                      {"runs", runs}});
        p["axes"] = json{{"form", kernel}, {"group_size", g}, {"group_position", "low"}, {"group_arm", in_then ? "then" : "else"}};
        r.points_extra.push_back(p);
      }
  const json doc = document("probe", "order", CommandLine{}, std::move(r));
  EXPECT_EQ(doc["summary"]["rule_id"], "minority_first_tie_fallthrough");
  EXPECT_EQ(doc["summary"]["ties"]["verdict"], "fallthrough");
  EXPECT_EQ(doc["points"].size(), 20u);
  EXPECT_EQ(doc["summary"]["ties"]["sites_taken_below"], 3);
}
