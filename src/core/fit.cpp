#include "divbench/core/fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace divbench {
namespace {

// Student's t through the regularized incomplete beta function, written here rather than taken from
// Boost.Math: that is a ~150 MB package for one function in a build that has none of Boost; its values
// are tested against scipy's (tests/cpu/test_fit.cpp StudentTAgreesWithScipy). The 3x3 inverse below
// (Gauss-Jordan with pivoting) likewise: Eigen for one small solve would be a new dependency.
// Continued fraction for the regularized incomplete beta function (Numerical Recipes' betacf).
double betacf(double a, double b, double x) {
  const int max_it = 300;
  const double eps = 1e-15, fpmin = 1e-300;
  double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < fpmin) d = fpmin;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= max_it; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < fpmin) d = fpmin;
    c = 1 + aa / c;
    if (std::fabs(c) < fpmin) c = fpmin;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < fpmin) d = fpmin;
    c = 1 + aa / c;
    if (std::fabs(c) < fpmin) c = fpmin;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < eps) break;
  }
  return h;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double lbt = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                     b * std::log1p(-x);
  const double bt = std::exp(lbt);
  if (x < (a + 1) / (a + b + 2)) return bt * betacf(a, b, x) / a;
  return 1 - bt * betacf(b, a, 1 - x) / b;
}

// Solve the 3x3 normal equations of y = a + b x + q x^2; returns false when singular.
bool solve3(double m[3][4]) {
  for (int col = 0; col < 3; ++col) {
    int piv = col;
    for (int r = col + 1; r < 3; ++r)
      if (std::fabs(m[r][col]) > std::fabs(m[piv][col])) piv = r;
    if (std::fabs(m[piv][col]) < 1e-300) return false;
    for (int k = 0; k < 4; ++k) std::swap(m[col][k], m[piv][k]);
    for (int r = 0; r < 3; ++r) {
      if (r == col) continue;
      const double f = m[r][col] / m[col][col];
      for (int k = col; k < 4; ++k) m[r][k] -= f * m[col][k];
    }
  }
  return true;
}

// Invert a small symmetric positive definite matrix in place (Gauss-Jordan, partial pivoting);
// false when singular.
bool invert(std::vector<std::vector<double>>& a) {
  const std::size_t p = a.size();
  std::vector<std::vector<double>> inv(p, std::vector<double>(p, 0.0));
  for (std::size_t i = 0; i < p; ++i) inv[i][i] = 1;
  for (std::size_t col = 0; col < p; ++col) {
    std::size_t piv = col;
    for (std::size_t r = col + 1; r < p; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[piv][col])) piv = r;
    if (std::fabs(a[piv][col]) < 1e-12) return false;
    std::swap(a[col], a[piv]);
    std::swap(inv[col], inv[piv]);
    const double d = a[col][col];
    for (std::size_t k = 0; k < p; ++k) {
      a[col][k] /= d;
      inv[col][k] /= d;
    }
    for (std::size_t r = 0; r < p; ++r) {
      if (r == col) continue;
      const double f = a[r][col];
      for (std::size_t k = 0; k < p; ++k) {
        a[r][k] -= f * a[col][k];
        inv[r][k] -= f * inv[col][k];
      }
    }
  }
  a = inv;
  return true;
}

}  // namespace

MultiFit fit_least_squares(const std::vector<std::vector<double>>& columns, const std::vector<double>& y) {
  const std::size_t p = columns.size(), n = y.size();
  if (p == 0) throw std::invalid_argument("fit: no columns");
  for (const auto& c : columns)
    if (c.size() != n) throw std::invalid_argument("fit: a column and y differ in length");
  if (n < p) throw std::invalid_argument("fit: fewer rows than columns");
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(y[i])) throw std::invalid_argument("fit: non-finite value");
    for (const auto& c : columns)
      if (!std::isfinite(c[i])) throw std::invalid_argument("fit: non-finite value");
  }
  // Scale each column to unit maximum for conditioning; coefficients are scaled back.
  std::vector<double> scale(p, 1.0);
  for (std::size_t j = 0; j < p; ++j) {
    double m = 0;
    for (double v : columns[j]) m = std::max(m, std::fabs(v));
    if (m == 0) throw std::invalid_argument("fit: a column is all zero");
    scale[j] = m;
  }
  std::vector<std::vector<double>> xtx(p, std::vector<double>(p, 0.0));
  std::vector<double> xty(p, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < p; ++a) {
      const double xa = columns[a][i] / scale[a];
      xty[a] += xa * y[i];
      for (std::size_t b = 0; b < p; ++b) xtx[a][b] += xa * columns[b][i] / scale[b];
    }
  if (!invert(xtx)) throw std::invalid_argument("fit: the columns are linearly dependent");
  MultiFit f;
  f.n = n;
  f.beta.assign(p, 0.0);
  for (std::size_t a = 0; a < p; ++a)
    for (std::size_t b = 0; b < p; ++b) f.beta[a] += xtx[a][b] * xty[b];
  double my = 0;
  for (double v : y) my += v;
  my /= static_cast<double>(n);
  double sse = 0, syy = 0;
  f.residuals.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double pred = 0;
    for (std::size_t j = 0; j < p; ++j) pred += f.beta[j] * columns[j][i] / scale[j];
    const double r = y[i] - pred;
    f.residuals[i] = r;
    sse += r * r;
    syy += (y[i] - my) * (y[i] - my);
    if (y[i] != 0) f.max_rel_residual = std::max(f.max_rel_residual, std::fabs(r / y[i]));
  }
  f.r2 = syy > 0 ? 1 - sse / syy : 1;
  const double sigma2 = n > p ? sse / static_cast<double>(n - p) : 0.0;
  f.std_error.assign(p, 0.0);
  for (std::size_t j = 0; j < p; ++j) {
    f.std_error[j] = std::sqrt(std::max(sigma2 * xtx[j][j], 0.0)) / scale[j];
    f.beta[j] /= scale[j];
  }
  return f;
}

double student_t_two_sided_p(double t, double dof) {
  if (!(dof > 0)) return 1;
  if (!std::isfinite(t)) return 0;
  const double x = dof / (dof + t * t);
  return incomplete_beta(0.5 * dof, 0.5, x);
}

LinearFit fit_linear(const std::vector<double>& x, const std::vector<double>& y, FitOptions opt) {
  if (x.size() != y.size()) throw std::invalid_argument("fit: x and y differ in length");
  if (x.size() < 2) throw std::invalid_argument("fit: need at least 2 points");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) throw std::invalid_argument("fit: non-finite value");
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) { mx += x[i]; my += y[i]; }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) throw std::invalid_argument("fit: all x values are equal");

  LinearFit f;
  f.n = x.size();
  f.s = sxy / sxx;
  f.c = my - f.s * mx;
  double sse = 0;
  f.residuals.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - f.predict(x[i]);
    f.residuals[i] = r;
    sse += r * r;
    if (y[i] != 0) f.max_rel_residual = std::max(f.max_rel_residual, std::fabs(r / y[i]));
  }
  f.r2 = syy > 0 ? 1 - sse / syy : 1;

  // Super-linearity: fit y = a + b x + q x^2 and test q.
  if (x.size() >= 4) {
    // Centre and scale x for conditioning; q is transformed back afterwards.
    double xs = 0;
    for (double v : x) xs = std::max(xs, std::fabs(v - mx));
    if (xs == 0) xs = 1;
    double S[5] = {0, 0, 0, 0, 0}, T[3] = {0, 0, 0};
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double u = (x[i] - mx) / xs;
      double p = 1;
      for (int k = 0; k < 5; ++k) { S[k] += p; if (k < 3) T[k] += p * y[i]; p *= u; }
    }
    double m[3][4] = {{S[0], S[1], S[2], T[0]}, {S[1], S[2], S[3], T[1]}, {S[2], S[3], S[4], T[2]}};
    // Keep a copy to compute the inverse's (2,2) element for se(q).
    double inv_src[3][4] = {{S[0], S[1], S[2], 0}, {S[1], S[2], S[3], 0}, {S[2], S[3], S[4], 1}};
    if (solve3(m) && solve3(inv_src)) {
      const double a = m[0][3] / m[0][0], b = m[1][3] / m[1][1], qu = m[2][3] / m[2][2];
      const double inv22 = inv_src[2][3] / inv_src[2][2];
      double sse2 = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double u = (x[i] - mx) / xs;
        const double r = y[i] - (a + b * u + qu * u * u);
        sse2 += r * r;
      }
      const double dof = n - 3;
      QuadraticTerm& qt = f.quadratic;
      qt.q = qu / (xs * xs);
      if (dof > 0) {
        const double sigma2 = sse2 / dof;
        const double se = std::sqrt(std::max(sigma2 * inv22, 0.0));
        if (se > 0) {
          qt.t_stat = qu / se;
          qt.p_value = student_t_two_sided_p(qt.t_stat, dof);
        } else {
          // A perfect quadratic fit: any non-zero q is exact.
          qt.t_stat = qu == 0 ? 0 : std::copysign(INFINITY, qu);
          qt.p_value = qu == 0 ? 1 : 0;
        }
      }
      const double xmax = *std::max_element(x.begin(), x.end());
      const double lin_at_max = f.predict(xmax);
      qt.rel_effect = lin_at_max != 0 ? qt.q * xmax * xmax / lin_at_max : 0;
      qt.superlinear = qt.q > 0 && qt.p_value < opt.alpha && qt.rel_effect > opt.min_effect;
    }
  }
  return f;
}

}  // namespace divbench
