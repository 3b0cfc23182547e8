// A small graph-isomorphism test for tiny fabrics (tests only).
//
// Nodes are coloured by kind (switch / terminal); cables are undirected edges with
// multiplicity (parallel cables count); ports are ignored. findIsomorphism() first runs
// colour refinement (1-dimensional Weisfeiler–Leman) on both graphs together, then a
// VF2-style depth-first search: nodes of A in BFS order, each tried against the
// unused nodes of B with the same refined colour, keeping a candidate only if its edge
// multiplicities to every already mapped node agree. Exact (it never reports a wrong
// answer); exponential in the worst case, so meant for graphs of at most a few hundred
// nodes. `maxSteps` bounds the search; exceeding it throws std::runtime_error rather
// than hang.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "graph/network.h"

namespace routelab::test {

struct SmallGraph {
  std::vector<int> color;                             ///< initial colour per node
  std::vector<std::vector<std::uint32_t>> adjacency;  ///< n x n edge multiplicities

  std::size_t size() const { return color.size(); }
};

inline SmallGraph smallGraphOf(const Network& network) {
  SmallGraph g;
  const std::size_t n = network.nodeCount();
  g.color.resize(n);
  g.adjacency.assign(n, std::vector<std::uint32_t>(n, 0));
  for (std::size_t i = 0; i < n; ++i) g.color[i] = network.isSwitch(NodeId::fromIndex(i)) ? 1 : 0;
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    const ChannelId ch = ChannelId::fromIndex(c);
    ++g.adjacency[network.source(ch).index()][network.target(ch).index()];
  }
  return g;
}

/// True iff `map` (node of A -> node of B) is a colour- and multiplicity-preserving
/// bijection.
inline bool isIsomorphism(const SmallGraph& a, const SmallGraph& b, const std::vector<std::uint32_t>& map) {
  const std::size_t n = a.size();
  if (b.size() != n || map.size() != n) return false;
  std::vector<char> used(n, 0);
  for (std::uint32_t target : map) {
    if (target >= n || used[target]) return false;
    used[target] = 1;
  }
  for (std::size_t u = 0; u < n; ++u) {
    if (a.color[u] != b.color[map[u]]) return false;
    for (std::size_t v = 0; v < n; ++v) {
      if (a.adjacency[u][v] != b.adjacency[map[u]][map[v]]) return false;
    }
  }
  return true;
}

namespace detail {

/// Colour refinement over the disjoint union of a and b; returns the stable colours.
inline std::pair<std::vector<int>, std::vector<int>> refineColors(const SmallGraph& a, const SmallGraph& b) {
  std::vector<int> ca = a.color;
  std::vector<int> cb = b.color;
  std::size_t classes = 0;
  while (true) {
    std::map<std::pair<int, std::vector<std::pair<int, std::uint32_t>>>, int> ids;
    const auto signature = [](const SmallGraph& g, const std::vector<int>& colors, std::size_t u) {
      std::vector<std::pair<int, std::uint32_t>> neighbours;
      for (std::size_t v = 0; v < g.size(); ++v) {
        if (g.adjacency[u][v] != 0) neighbours.emplace_back(colors[v], g.adjacency[u][v]);
      }
      std::sort(neighbours.begin(), neighbours.end());
      return std::make_pair(colors[u], neighbours);
    };
    std::vector<int> na(a.size()), nb(b.size());
    for (std::size_t u = 0; u < a.size(); ++u)
      na[u] = ids.emplace(signature(a, ca, u), static_cast<int>(ids.size())).first->second;
    for (std::size_t u = 0; u < b.size(); ++u)
      nb[u] = ids.emplace(signature(b, cb, u), static_cast<int>(ids.size())).first->second;
    ca = std::move(na);
    cb = std::move(nb);
    if (ids.size() == classes) return {ca, cb};
    classes = ids.size();
  }
}

}  // namespace detail

inline std::optional<std::vector<std::uint32_t>> findIsomorphism(const SmallGraph& a, const SmallGraph& b,
                                                                 std::size_t maxSteps = 10'000'000) {
  const std::size_t n = a.size();
  if (b.size() != n) return std::nullopt;
  const auto [ca, cb] = detail::refineColors(a, b);
  {
    std::vector<int> sa = ca, sb = cb;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    if (sa != sb) return std::nullopt;
  }
  // BFS order of A (every component), so each node after the first of its component has
  // a mapped neighbour that constrains it.
  std::vector<std::uint32_t> order;
  std::vector<char> queued(n, 0);
  for (std::size_t start = 0; start < n; ++start) {
    if (queued[start]) continue;
    queued[start] = 1;
    order.push_back(static_cast<std::uint32_t>(start));
    for (std::size_t head = order.size() - 1; head < order.size(); ++head) {
      for (std::size_t v = 0; v < n; ++v) {
        if (a.adjacency[order[head]][v] != 0 && !queued[v]) {
          queued[v] = 1;
          order.push_back(static_cast<std::uint32_t>(v));
        }
      }
    }
  }
  std::vector<std::uint32_t> map(n, UINT32_MAX);
  std::vector<char> used(n, 0);
  std::vector<std::uint32_t> next(n, 0);  // per depth: next candidate of B to try
  std::size_t steps = 0;
  std::size_t depth = 0;
  while (true) {
    if (depth == n) return map;
    const std::uint32_t u = order[depth];
    bool placed = false;
    for (std::uint32_t& candidate = next[depth]; candidate < n; ++candidate) {
      if (++steps > maxSteps) throw std::runtime_error("findIsomorphism: search limit exceeded");
      if (used[candidate] || cb[candidate] != ca[u]) continue;
      bool consistent = a.adjacency[u][u] == b.adjacency[candidate][candidate];
      for (std::size_t d = 0; consistent && d < depth; ++d) {
        consistent = a.adjacency[u][order[d]] == b.adjacency[candidate][map[order[d]]];
      }
      if (!consistent) continue;
      map[u] = candidate;
      used[candidate] = 1;
      ++candidate;
      placed = true;
      break;
    }
    if (placed) {
      ++depth;
      if (depth < n) next[depth] = 0;
      continue;
    }
    // Backtrack.
    if (depth == 0) return std::nullopt;
    --depth;
    used[map[order[depth]]] = 0;
    map[order[depth]] = UINT32_MAX;
  }
}

}  // namespace routelab::test
