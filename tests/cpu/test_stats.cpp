#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "divbench/core/stats.hpp"

using divbench::summarize;

TEST(Stats, OddSample) {
  const auto s = summarize({5, 1, 3});
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stddev, 2);  // sample stddev of {1,3,5}
  EXPECT_DOUBLE_EQ(s.cv, 2.0 / 3.0);
}

TEST(Stats, EvenSampleMedianIsMeanOfMiddle) {
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(divbench::median({10, 20}), 15);
}

TEST(Stats, ConstantSampleHasZeroCv) {
  const auto s = summarize(std::vector<double>(201, 290332.0));
  EXPECT_EQ(s.n, 201u);
  EXPECT_EQ(s.cv, 0);
  EXPECT_EQ(s.min, s.max);
}

TEST(Stats, SingleValue) {
  const auto s = summarize({7});
  EXPECT_EQ(s.stddev, 0);
  EXPECT_EQ(s.median, 7);
}

TEST(Stats, OutlierMovesMeanNotMedian) {
  std::vector<double> v(201, 100.0);
  v[17] = 1e6;
  const auto s = summarize(v);
  EXPECT_EQ(s.median, 100);
  EXPECT_GT(s.mean, 100);
  EXPECT_EQ(s.max, 1e6);
}

TEST(Stats, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1, NAN}), std::invalid_argument);
  EXPECT_THROW(summarize({1, INFINITY}), std::invalid_argument);
  EXPECT_THROW(divbench::median({}), std::invalid_argument);
}
