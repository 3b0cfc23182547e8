// routelab/sim/latency_histogram.h — the measured packets' latencies as counts per value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace routelab::sim {

/// The measured packets' latencies (integer cycles) as counts per value, for exact
/// percentiles at any run length: dense counts below kDenseLatencies cycles, a map above (a
/// saturated run's source queueing).
class LatencyHistogram {
 public:
  static constexpr std::uint64_t kDenseLatencies = 1 << 16;
  void add(std::uint64_t latency) {
    ++count_;
    max_ = latency > max_ ? latency : max_;
    if (latency < kDenseLatencies) [[likely]] {
      if (latency >= dense_.size()) dense_.resize(std::max<std::size_t>(latency + 1, 2 * dense_.size()));
      ++dense_[latency];
    } else {
      ++sparse_[latency];
    }
  }
  /// Adds another histogram's counts.
  void merge(const LatencyHistogram& other);
  std::uint64_t count() const { return count_; }
  std::uint64_t max() const { return max_; }
  /// The value of rank ceil(fraction x count) - 1 in ascending order (the rank clamped to
  /// 0..count - 1); 0 when empty.
  std::uint64_t percentile(double fraction) const;

 private:
  std::vector<std::uint64_t> dense_;
  std::map<std::uint64_t, std::uint64_t> sparse_;
  std::uint64_t count_ = 0, max_ = 0;
};

}  // namespace routelab::sim
