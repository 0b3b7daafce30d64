// The one statistics module: order statistics and dispersion of a sample.
#pragma once
#include <cstddef>
#include <vector>

namespace divbench {

struct Summary {
  std::size_t n = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n-1); 0 for n < 2
  double cv = 0;      // stddev / mean; 0 when mean == 0
};

// Summarize a sample. Throws std::invalid_argument on an empty sample or a non-finite value.
Summary summarize(const std::vector<double>& sample);

// Median of a sample (mean of the two middle values for even n). Throws on empty input.
double median(std::vector<double> sample);

// How far a quantity moves across conditions that should not matter (code placements, sampling
// modes): its median, extremes and (max - min) / |median|. Throws on empty input.
struct Spread {
  double median = 0, min = 0, max = 0;
  double rel = 0;  // (max - min) / |median|; 0 when the median is 0
};
Spread spread_of(const std::vector<double>& values);

}  // namespace divbench
