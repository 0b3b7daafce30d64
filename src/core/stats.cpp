#include "divbench/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace divbench {

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of an empty sample");
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) {
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    m = 0.5 * (m + lower);
  }
  return m;
}

Summary summarize(const std::vector<double>& sample) {
  if (sample.empty()) throw std::invalid_argument("summary of an empty sample");
  for (double x : sample)
    if (!std::isfinite(x)) throw std::invalid_argument("sample holds a non-finite value");
  Summary s;
  s.n = sample.size();
  const auto [lo, hi] = std::minmax_element(sample.begin(), sample.end());
  s.min = *lo;
  s.max = *hi;
  // Two-pass mean and variance (numerically stable enough for cycle counts up to ~1e12).
  double sum = 0;
  for (double x : sample) sum += x;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n > 1) {
    double ss = 0;
    for (double x : sample) ss += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
  s.median = median(sample);
  return s;
}

Spread spread_of(const std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("spread of an empty sample");
  Spread s;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  s.median = median(values);
  s.rel = s.median != 0 ? (s.max - s.min) / std::fabs(s.median) : 0.0;
  return s;
}

}  // namespace divbench
