#include "analysis/matching.h"

#include <algorithm>
#include <limits>

namespace routelab {

namespace {
constexpr std::uint32_t kInfinite = std::numeric_limits<std::uint32_t>::max();
}

// Breadth-first layering from the free left vertices (Hopcroft & Karp's phase); true if a
// free right vertex is reachable along alternating paths.
bool HopcroftKarp::layer(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> targets) {
  const std::size_t left = matchLeft_.size();
  queue_.clear();
  for (std::uint32_t u = 0; u < left; ++u) {
    if (matchLeft_[u] == kUnmatched) {
      distance_[u] = 0;
      queue_.push_back(u);
    } else {
      distance_[u] = kInfinite;
    }
  }
  bool found = false;
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    const std::uint32_t u = queue_[head];
    for (std::uint32_t e = offsets[u]; e < offsets[u + 1]; ++e) {
      const std::int32_t w = matchRight_[targets[e]];
      if (w == kUnmatched) {
        found = true;
      } else if (distance_[static_cast<std::uint32_t>(w)] == kInfinite) {
        distance_[static_cast<std::uint32_t>(w)] = distance_[u] + 1;
        queue_.push_back(static_cast<std::uint32_t>(w));
      }
    }
  }
  return found;
}

// Iterative depth-first search for an augmenting path from `root` along the layers; on
// success flips the path. Vertices that lead nowhere get distance infinity (dead ends are
// never searched twice in a phase).
bool HopcroftKarp::augmentFrom(std::uint32_t root, std::span<const std::uint32_t> offsets,
                               std::span<const std::uint32_t> targets) {
  stack_.clear();
  stack_.push_back(root);
  while (!stack_.empty()) {
    const std::uint32_t u = stack_.back();
    if (edgeCursor_[u] == offsets[u + 1]) {
      distance_[u] = kInfinite;
      stack_.pop_back();
      if (!stack_.empty()) ++edgeCursor_[stack_.back()];
      continue;
    }
    const std::uint32_t v = targets[edgeCursor_[u]];
    const std::int32_t w = matchRight_[v];
    if (w == kUnmatched) {
      for (const std::uint32_t x : stack_) {
        const std::uint32_t y = targets[edgeCursor_[x]];
        matchLeft_[x] = static_cast<std::int32_t>(y);
        matchRight_[y] = static_cast<std::int32_t>(x);
      }
      return true;
    }
    const auto next = static_cast<std::uint32_t>(w);
    if (distance_[next] != kInfinite && distance_[next] == distance_[u] + 1) {
      stack_.push_back(next);
    } else {
      ++edgeCursor_[u];
    }
  }
  return false;
}

std::size_t HopcroftKarp::solve(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> targets,
                                std::size_t rightCount) {
  const std::size_t left = offsets.empty() ? 0 : offsets.size() - 1;
  matchLeft_.assign(left, kUnmatched);
  matchRight_.assign(rightCount, kUnmatched);
  distance_.assign(left, kInfinite);
  edgeCursor_.assign(left, 0);
  std::size_t size = 0;
  // Greedy start: most of the matching is found here on channel graphs.
  for (std::uint32_t u = 0; u < left; ++u) {
    for (std::uint32_t e = offsets[u]; e < offsets[u + 1]; ++e) {
      if (matchRight_[targets[e]] == kUnmatched) {
        matchLeft_[u] = static_cast<std::int32_t>(targets[e]);
        matchRight_[targets[e]] = static_cast<std::int32_t>(u);
        ++size;
        break;
      }
    }
  }
  while (size < left && layer(offsets, targets)) {
    for (std::uint32_t u = 0; u < left; ++u) edgeCursor_[u] = offsets[u];
    for (std::uint32_t u = 0; u < left; ++u) {
      if (matchLeft_[u] == kUnmatched && distance_[u] == 0 && augmentFrom(u, offsets, targets)) ++size;
    }
  }
  return size;
}

double maxWeightMatching(std::span<const double> weights, std::size_t rows, std::size_t columns,
                         std::vector<int>& columnOfRow) {
  // Hungarian algorithm (potentials, O(n^3)) minimising cost = maxWeight - weight on the
  // square completion; padding has weight 0, so unmatched rows cost nothing extra.
  const std::size_t n = std::max(rows, columns);
  columnOfRow.assign(rows, -1);
  if (n == 0) return 0;
  double maxWeight = 0;
  for (const double w : weights) maxWeight = std::max(maxWeight, w);
  auto cost = [&](std::size_t i, std::size_t j) {  // 1-based
    const double w = (i <= rows && j <= columns) ? weights[(i - 1) * columns + (j - 1)] : 0.0;
    return maxWeight - w;
  };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> potentialRow(n + 1, 0), potentialColumn(n + 1, 0), minimum(n + 1);
  std::vector<std::size_t> rowOfColumn(n + 1, 0), way(n + 1, 0);
  std::vector<char> used(n + 1);
  for (std::size_t i = 1; i <= n; ++i) {
    rowOfColumn[0] = i;
    std::size_t column = 0;
    std::fill(minimum.begin(), minimum.end(), inf);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[column] = 1;
      const std::size_t row = rowOfColumn[column];
      double delta = inf;
      std::size_t next = 0;
      for (std::size_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double reduced = cost(row, j) - potentialRow[row] - potentialColumn[j];
        if (reduced < minimum[j]) {
          minimum[j] = reduced;
          way[j] = column;
        }
        if (minimum[j] < delta) {
          delta = minimum[j];
          next = j;
        }
      }
      for (std::size_t j = 0; j <= n; ++j) {
        if (used[j]) {
          potentialRow[rowOfColumn[j]] += delta;
          potentialColumn[j] -= delta;
        } else {
          minimum[j] -= delta;
        }
      }
      column = next;
    } while (rowOfColumn[column] != 0);
    do {
      const std::size_t previous = way[column];
      rowOfColumn[column] = rowOfColumn[previous];
      column = previous;
    } while (column != 0);
  }
  double total = 0;
  for (std::size_t j = 1; j <= columns; ++j) {
    const std::size_t i = rowOfColumn[j];
    if (i == 0 || i > rows) continue;
    const double w = weights[(i - 1) * columns + (j - 1)];
    if (w > 0) {
      total += w;
      columnOfRow[i - 1] = static_cast<int>(j - 1);
    }
  }
  return total;
}

}  // namespace routelab
