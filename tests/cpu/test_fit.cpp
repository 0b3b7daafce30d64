#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>

#include "divbench/core/fit.hpp"

using divbench::fit_linear;

namespace {
std::vector<double> ks(int n) {
  std::vector<double> x;
  for (int k = 1; k <= n; ++k) x.push_back(k);
  return x;
}
}  // namespace

TEST(Fit, ExactLineIsRecovered) {
  const auto x = ks(32);
  std::vector<double> y;
  for (double k : x) y.push_back(290095.0 * k + 251.0);
  const auto f = fit_linear(x, y);
  EXPECT_NEAR(f.s, 290095.0, 1e-6);
  EXPECT_NEAR(f.c, 251.0, 1e-4);
  EXPECT_NEAR(f.r2, 1.0, 1e-15);
  EXPECT_LT(f.max_rel_residual, 1e-12);
  EXPECT_EQ(f.residuals.size(), 32u);
  EXPECT_FALSE(f.quadratic.superlinear);
}

TEST(Fit, NoisyLineWithinNoise) {
  std::mt19937 rng(42);
  std::normal_distribution<double> noise(0.0, 1.0);
  const auto x = ks(32);
  std::vector<double> y;
  const double s = 58100, c = 2000;
  for (double k : x) y.push_back(s * k + c + 0.001 * s * k * noise(rng));  // 0.1% relative noise
  const auto f = fit_linear(x, y);
  EXPECT_NEAR(f.s, s, 0.01 * s);
  EXPECT_NEAR(f.c, c, 0.5 * s);  // intercept is the hard part with relative noise
  EXPECT_GT(f.r2, 0.9999);
  EXPECT_LT(f.max_rel_residual, 0.01);
  EXPECT_FALSE(f.quadratic.superlinear);
}

TEST(Fit, SuperLinearCurveIsFlagged) {
  const auto x = ks(32);
  std::vector<double> y;
  // 5% extra cost at k = 32 from a k^2 term.
  for (double k : x) y.push_back(50000 * k + 1000 + 0.05 * 50000 * 32 / (32.0 * 32.0) * k * k);
  const auto f = fit_linear(x, y);
  EXPECT_GT(f.quadratic.q, 0);
  EXPECT_LT(f.quadratic.p_value, 1e-6);
  EXPECT_GT(f.quadratic.rel_effect, 0.01);
  EXPECT_TRUE(f.quadratic.superlinear);
}

TEST(Fit, TinyCurvatureIsSignificantButNotPractical) {
  // A k^2 term of 0.01% of T(32): measurable with exact data, below the 1% practical bar.
  const auto x = ks(32);
  std::vector<double> y;
  for (double k : x) y.push_back(50000 * k + 1000 + 0.0001 * 50000 / 32.0 * k * k);
  const auto f = fit_linear(x, y);
  EXPECT_GT(f.quadratic.q, 0);
  EXPECT_FALSE(f.quadratic.superlinear);
}

TEST(Fit, SubLinearCurveIsNotSuperLinear) {
  const auto x = ks(32);
  std::vector<double> y;
  for (double k : x) y.push_back(50000 * k - 100 * k * k);
  const auto f = fit_linear(x, y);
  EXPECT_LT(f.quadratic.q, 0);
  EXPECT_FALSE(f.quadratic.superlinear);
}

TEST(Fit, StudentTPValues) {
  // Known two-sided values: t=2.0, dof=10 -> 0.0734; t=0 -> 1; large t -> ~0.
  EXPECT_NEAR(divbench::student_t_two_sided_p(2.0, 10), 0.07339, 1e-4);
  EXPECT_NEAR(divbench::student_t_two_sided_p(0.0, 5), 1.0, 1e-12);
  EXPECT_NEAR(divbench::student_t_two_sided_p(2.042, 30), 0.05, 1e-3);
  EXPECT_LT(divbench::student_t_two_sided_p(50, 29), 1e-20);
}

TEST(Fit, StudentTAgreesWithScipy) {
  // tests/data/student_t_scipy.json: scipy.stats.t's two-sided p on a grid of t and degrees of freedom
  // (python3 -m divbench.student_t_reference; the gate's t test is scipy's, the fit's is fit.cpp's).
  std::ifstream in(std::string(DIVBENCH_SOURCE_DIR) + "/tests/data/student_t_scipy.json");
  ASSERT_TRUE(in.good());
  const nlohmann::json ref = nlohmann::json::parse(in);
  ASSERT_GE(ref["rows"].size(), 100u);
  for (const auto& r : ref["rows"]) {
    const double p = r["p"].get<double>();
    const double ours = divbench::student_t_two_sided_p(r["t"].get<double>(), r["dof"].get<double>());
    EXPECT_NEAR(ours, p, 1e-9 + 1e-7 * p) << "t " << r["t"] << " dof " << r["dof"];
  }
}

TEST(Fit, RejectsBadInput) {
  EXPECT_THROW(fit_linear({1}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_linear({1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_linear({3, 3, 3}, {1, 2, 3}), std::invalid_argument);
  EXPECT_THROW(fit_linear({1, 2}, {1, NAN}), std::invalid_argument);
}

TEST(Fit, TwoPointsGiveTheLineThroughThem) {
  const auto f = fit_linear({1, 32}, {300, 9300});
  EXPECT_NEAR(f.s, 9000.0 / 31.0, 1e-9);
  EXPECT_EQ(f.quadratic.p_value, 1);  // not enough points to test
}
