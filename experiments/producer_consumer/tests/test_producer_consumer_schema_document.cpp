// The producer/consumer probe's divbench.result/1 document as the harness writes it, over synthetic
// points with the order fields (the side-order vocabulary the probes share): its real finalize and
// envelope; tests/python/test_schemas.py runs the SchemaDocuments tests with DIVBENCH_SCHEMA_DOCS set and
// validates producer_consumer.json against experiments/producer_consumer/schema.json.
#include <gtest/gtest.h>

#include "tests/cpu/experiments/schema_documents.hpp"

using namespace divbench;
using namespace divbench::schema_docs;

TEST(SchemaDocuments, ProducerConsumerWithTheOrderFields) {
  ResultRecord r;
  for (const auto& [variant, producers] : {std::pair<const char*, std::uint32_t>{"producer_minority", 0x1u},
                                           std::pair<const char*, std::uint32_t>{"producer_majority", 0x7fffffffu}}) {
    json run = order_run("group");
    run.update(json{{"completed", true}, {"max_consumer_spins", 0}, {"producer_entered_first", true}});
    const json runs = json::array({run});
    json p{{"variant", variant}, {"producer_in_then", true}, {"producer_first", true},
           {"layout", {{"source", "synthetic"}, {"fallthrough_arm", "then"}, {"bssy_guarded", false}}},
           {"work", 1000}, {"launches", 1}, {"completed", true}, {"cap_reached", false}, {"max_consumer_spins", 0},
           {"producer_entered_first", true}};
    p.update(side_order_fields(producers, std::string("fallthrough"), std::string("warpsync"), combine_launches(runs)));
    p["runs"] = runs;
    p["axes"] = json{{"variant", variant}, {"producer_arm", "then"}, {"work", 1000}};
    r.points_extra.push_back(p);
  }
  const json doc = document("probe", "producer_consumer", CommandLine{}, std::move(r));
  EXPECT_EQ(doc["summary"]["conclusion"]["producer_side_first"], 2);
}
