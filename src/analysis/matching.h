// routelab/analysis/matching.h — bipartite matchings: maximum cardinality (Hopcroft & Karp
// 1973) and maximum weight (the Hungarian algorithm, Kuhn 1955 / Munkres 1957).
//
// Used by WORST: the SD pairs crossing a channel form a bipartite graph sources x
// destinations, and a permutation can contain at most a matching of it — of maximum size
// for first-path WORST (analysis/worst.h), of maximum weight (the pairs' even-split shares)
// for even-split WORST (analysis/split.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace routelab {

inline constexpr std::int32_t kUnmatched = -1;

/// Reusable Hopcroft–Karp solver: the work arrays persist between calls, so solving many
/// small graphs does not allocate. Not thread-safe; use one per thread.
class HopcroftKarp {
 public:
  /// Maximum matching of the bipartite graph with left vertices 0..offsets.size()-2, right
  /// vertices 0..rightCount-1 and edges targets[offsets[u] .. offsets[u+1]) of left vertex u.
  /// Returns its size; matchOfLeft() then gives each left vertex's partner (or kUnmatched).
  /// O(E sqrt(V)) time, O(V) extra memory. Deterministic: the result depends only on the
  /// input (vertex and edge order), never on timing.
  std::size_t solve(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> targets,
                    std::size_t rightCount);

  std::span<const std::int32_t> matchOfLeft() const { return matchLeft_; }

 private:
  bool layer(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> targets);
  bool augmentFrom(std::uint32_t root, std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> targets);

  std::vector<std::int32_t> matchLeft_, matchRight_;
  std::vector<std::uint32_t> distance_, edgeCursor_, queue_, stack_;
};

/// Maximum-weight matching (not necessarily perfect) of a dense rows x columns matrix of
/// non-negative weights (row-major); returns the weight and the column matched to each row
/// (-1 if none or weight 0). Hungarian algorithm, O(n^3), n = max(rows, columns).
double maxWeightMatching(std::span<const double> weights, std::size_t rows, std::size_t columns,
                         std::vector<int>& columnOfRow);

}  // namespace routelab
