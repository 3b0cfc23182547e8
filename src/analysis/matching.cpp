#include "analysis/matching.h"

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

}  // namespace routelab
