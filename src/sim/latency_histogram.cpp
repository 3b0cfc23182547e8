// The measured packets' latencies as counts per value (sim/latency_histogram.h).
#include "sim/latency_histogram.h"

#include <cmath>

namespace routelab::sim {

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.dense_.size() > dense_.size()) dense_.resize(other.dense_.size());
  for (std::size_t latency = 0; latency < other.dense_.size(); ++latency) dense_[latency] += other.dense_[latency];
  for (const auto& [latency, count] : other.sparse_) sparse_[latency] += count;
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
}

std::uint64_t LatencyHistogram::percentile(double fraction) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(fraction * double(count_));
  const std::uint64_t rank = std::min<std::uint64_t>(wanted >= 1 ? std::uint64_t(wanted) - 1 : 0, count_ - 1);
  std::uint64_t below = 0;  // values counted before the current one
  for (std::size_t latency = 0; latency < dense_.size(); ++latency) {
    below += dense_[latency];
    if (below > rank) return latency;
  }
  for (const auto& [latency, count] : sparse_) {
    below += count;
    if (below > rank) return latency;
  }
  return max_;  // (not reached: the counts add up to count_)
}

}  // namespace routelab::sim
