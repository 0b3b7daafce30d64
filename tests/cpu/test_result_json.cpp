// The result document: every key the schema promises, a round trip through the atomic writer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "divbench/core/errors.hpp"
#include "divbench/core/json_io.hpp"
#include "divbench/core/result.hpp"

using namespace divbench;
namespace fs = std::filesystem;

namespace {
ResultRecord sample_record() {
  ResultRecord r;
  r.experiment = "kway";
  r.device.name = "Test GPU";
  r.device.cc = "9.0";
  r.device.sm_count = 132;
  r.device.sm_clock_khz = 1980000;
  r.device.driver = "13.0";
  r.device.runtime = "13.0";
  r.provenance = make_provenance("divbench --sweep k");
  r.config = json{{"iters", 10000}, {"reps", 201}};
  for (int k = 1; k <= 3; ++k) {
    TimedPoint p;
    p.k = k;
    p.cycles = summarize({1000.0 * k, 1000.0 * k + 1, 1000.0 * k - 1});
    p.launches = 3;
    r.points.push_back(p);
  }
  r.fit = fit_linear({1, 2, 3}, {1000, 2000, 3000});
  r.has_fit = true;
  r.summary = json{{"ratio_3_over_1", 3.0}};
  return r;
}

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("divbench_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}
}  // namespace

TEST(ResultJson, HasEveryPromisedKey) {
  const json j = to_json(sample_record());
  for (const char* k : {"schema", "experiment", "device", "toolkit", "git", "created", "config", "points", "fit",
                        "summary"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["schema"], "divbench.result/1");
  for (const char* k : {"name", "cc", "sm_count", "sm_clock_khz", "driver", "runtime"})
    EXPECT_TRUE(j["device"].contains(k)) << k;
  ASSERT_EQ(j["points"].size(), 3u);
  for (const char* k : {"k", "median_cycles", "min_cycles", "max_cycles", "cv", "launches", "throttled"})
    EXPECT_TRUE(j["points"][0].contains(k)) << k;
  for (const char* k : {"s", "c", "r2", "max_rel_residual"}) EXPECT_TRUE(j["fit"].contains(k)) << k;
  EXPECT_EQ(j["summary"]["ratio_3_over_1"], 3.0);
  EXPECT_FALSE(j["git"].get<std::string>().empty());
  EXPECT_EQ(j["created"].get<std::string>().size(), 20u);  // 2026-11-29T20:15:03Z
}

TEST(ResultJson, RoundTripThroughAtomicWriter) {
  const fs::path dir = temp_dir();
  const std::string path = (dir / "kway.json").string();
  const json doc = to_json(sample_record());
  write_json_atomic(path, doc);
  const json back = read_json_file(path);
  EXPECT_EQ(back, doc);
  EXPECT_EQ(device_from_json(back["device"]).sm_count, 132);
  EXPECT_EQ(device_from_json(back["device"]).cc_major, 9);
  // No temp files left behind.
  int files = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(ResultJson, AtomicWriteReplacesWholeFile) {
  const fs::path dir = temp_dir();
  const std::string path = (dir / "r.json").string();
  write_json_atomic(path, json{{"a", std::string(10000, 'x')}});
  write_json_atomic(path, json{{"b", 1}});
  EXPECT_EQ(read_json_file(path), (json{{"b", 1}}));
  fs::remove_all(dir);
}

TEST(ResultJson, UnwritableTargetsAreUsageErrors) {
  EXPECT_THROW(write_json_atomic("/nonexistent-dir-divbench/x.json", json{}), UsageError);
  const fs::path dir = temp_dir();
  EXPECT_THROW(write_json_atomic(dir.string(), json{}), UsageError);  // a directory
  fs::remove_all(dir);
}

TEST(ResultJson, ReadErrorsNameTheFile) {
  const fs::path dir = temp_dir();
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{ not json";
  try {
    read_json_file(bad);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
  }
  EXPECT_THROW(read_json_file((dir / "missing.json").string()), UsageError);
  fs::remove_all(dir);
}

TEST(ResultJson, TextFormKeepsScalarArraysOnOneLine) {
  const json doc{{"a", 1},
                 {"samples", {{"cycles", {280861, 280861, 280862}}, {"smid", {0, 2, 4}}}},
                 {"points", json::array({json{{"k", 1}}, json{{"k", 2}}})},
                 {"empty", json::object()},
                 {"none", json::array()},
                 {"s", "x\"y"}};
  const std::string text = json_text(doc);
  EXPECT_EQ(json::parse(text), doc);  // same document
  EXPECT_NE(text.find("\"cycles\": [280861, 280861, 280862]"), std::string::npos);
  EXPECT_NE(text.find("\n  \"points\": [\n    {\n      \"k\": 1\n    },"), std::string::npos);
  EXPECT_NE(text.find("\"empty\": {}"), std::string::npos);
  EXPECT_NE(text.find("\"none\": []"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
}
