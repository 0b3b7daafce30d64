// The one fit of the project: T(k) = s*k + c by ordinary least squares, plus a test for
// super-linearity (an added k^2 term that is both statistically and practically significant).
#pragma once
#include <vector>

namespace divbench {

struct QuadraticTerm {
  double q = 0;             // coefficient of k^2 in T = a + b*k + q*k^2
  double t_stat = 0;        // q / se(q)
  double p_value = 1;       // two-sided, Student t with n-3 degrees of freedom
  double rel_effect = 0;    // q*kmax^2 / (s*kmax + c): the k^2 term's share at the largest k
  bool superlinear = false; // q > 0, p < alpha and rel_effect > min_effect
};

struct LinearFit {
  double s = 0;                  // slope: cost per extra path
  double c = 0;                  // intercept
  double r2 = 0;                 // coefficient of determination
  std::vector<double> residuals; // y - (s*x + c), in input order
  double max_rel_residual = 0;   // max |residual| / y
  std::size_t n = 0;
  QuadraticTerm quadratic;       // valid when n >= 4
  double predict(double x) const { return s * x + c; }
};

struct FitOptions {
  double alpha = 0.01;       // significance level of the k^2 term
  double min_effect = 0.01;  // smallest share of T(kmax) the k^2 term must have to count
};

// Throws std::invalid_argument for fewer than 2 points, mismatched sizes, non-finite values,
// or x values that are all equal.
LinearFit fit_linear(const std::vector<double>& x, const std::vector<double>& y, FitOptions opt = {});

// Ordinary least squares y = sum_j beta_j * x_j over given columns (include a column of ones for an
// intercept), with standard errors from the residual variance (n - p degrees of freedom), R^2
// (about the mean of y) and residuals. The cost decomposition T(k,n) = k*(a*n + b) + c is this fit
// over the columns k*n, k and 1.
struct MultiFit {
  std::vector<double> beta;       // one per column
  std::vector<double> std_error;  // one per column; 0 when n == p
  double r2 = 0;
  std::vector<double> residuals;
  double max_rel_residual = 0;
  std::size_t n = 0;
};

// Throws std::invalid_argument for fewer rows than columns, mismatched sizes, non-finite values or
// linearly dependent columns.
MultiFit fit_least_squares(const std::vector<std::vector<double>>& columns, const std::vector<double>& y);

// Two-sided p-value of a Student t statistic with dof degrees of freedom.
double student_t_two_sided_p(double t, double dof);

}  // namespace divbench
