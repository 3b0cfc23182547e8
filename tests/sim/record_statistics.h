// Order statistics and means over values taken from a run's packet records, written apart
// from the simulator's counters and histograms so that the tests recompute what a run reports
// by the definitions of docs/SIMULATION.md "Measurement".
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace routelab::test {

/// The nearest-rank order statistic: the value of rank ceil(fraction x n) (1-based) in
/// ascending order, 0 for no values.
inline double nearestRank(std::vector<std::uint64_t> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t rank = static_cast<std::size_t>(std::ceil(fraction * double(values.size())));
  rank = std::clamp<std::size_t>(rank, 1, values.size());
  return double(values[rank - 1]);
}

/// The arithmetic mean, 0 for no values (a window that delivers nothing reports 0).
inline double mean(const std::vector<std::uint64_t>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (std::uint64_t v : values) sum += double(v);
  return sum / double(values.size());
}

}  // namespace routelab::test
