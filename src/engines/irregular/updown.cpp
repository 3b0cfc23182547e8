#include "engines/irregular/updown.h"

#include <algorithm>

namespace routelab::irregular {

namespace {
constexpr std::uint32_t kInfinite = UINT32_MAX;

/// D(x): hops of the shortest down-only route x -> d (reverse BFS over down channels
/// x -> y, i.e. rank(y) > rank(x)); kInfinite where there is none.
std::vector<std::uint32_t> downOnlyDistances(const SwitchView& view, const std::vector<std::uint32_t>& rank,
                                             std::uint32_t d) {
  std::vector<std::uint32_t> down(view.switchCount(), kInfinite);
  std::vector<std::uint32_t> queue{d};
  down[d] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t y = queue[head];
    for (ChannelId c : view.links(y)) {
      const std::uint32_t x = view.targetSwitch(c);  // channel x -> y is reverse(c)
      if (rank[y] > rank[x] && down[x] == kInfinite) {
        down[x] = down[y] + 1;
        queue.push_back(x);
      }
    }
  }
  return down;
}
}  // namespace

UpDown::UpDown(const SwitchView& view, std::uint32_t root, SpanningTree tree) : view_(&view), root_(root) {
  const std::size_t switches = view.switchCount();
  rank_.assign(switches, kInfinite);
  if (root >= switches) return;
  if (tree == SpanningTree::BreadthFirst) {
    // Rank = (distance from the root, switch index): the up-end of a link is the end closer
    // to the root, ties towards the lower id (Lysne §4.1).
    std::vector<std::uint32_t> order;
    for (std::uint32_t s = 0; s < switches; ++s) {
      if (view.distance(root, s) != kFar) order.push_back(s);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return view.distance(root, a) < view.distance(root, b); });
    for (std::size_t i = 0; i < order.size(); ++i) rank_[order[i]] = static_cast<std::uint32_t>(i);
    return;
  }
  // Depth-first spanning tree (Sancho et al. 2004): rank = visiting order.
  std::vector<std::uint8_t> visited(switches, 0);
  std::vector<std::uint32_t> visitedNeighbours(switches, 0);  // links to visited switches
  std::vector<std::uint32_t> stack{root};
  std::uint32_t next = 0;
  auto visit = [&](std::uint32_t s) {
    visited[s] = 1;
    rank_[s] = next++;
    for (ChannelId c : view.links(s)) ++visitedNeighbours[view.targetSwitch(c)];
  };
  visit(root);
  while (!stack.empty()) {
    const std::uint32_t current = stack.back();
    std::uint32_t best = kInfinite;
    for (ChannelId c : view.links(current)) {
      const std::uint32_t candidate = view.targetSwitch(c);
      if (visited[candidate]) continue;
      if (best == kInfinite || visitedNeighbours[candidate] > visitedNeighbours[best] ||
          (visitedNeighbours[candidate] == visitedNeighbours[best] && candidate < best)) {
        best = candidate;
      }
    }
    if (best == kInfinite) {
      stack.pop_back();
      continue;
    }
    visit(best);
    stack.push_back(best);
  }
}

bool UpDown::isUp(ChannelId c) const { return rank_[view_->targetSwitch(c)] < rank_[view_->sourceSwitch(c)]; }

void UpDown::nextHops(std::uint32_t d, HopSets& out) const {
  const SwitchView& view = *view_;
  const std::size_t switches = view.switchCount();
  out.start.assign(switches + 1, 0);
  out.channels.clear();
  if (d >= switches || rank_[d] == kInfinite) {
    return;
  }
  const std::vector<std::uint32_t> down = downOnlyDistances(view, rank_, d);
  std::vector<std::uint8_t> forced(switches, 0);
  std::vector<std::uint32_t> cost(switches);
  std::vector<std::uint8_t> downMode(switches);
  std::vector<std::vector<std::uint32_t>> buckets(2 * switches + 2);
  for (;;) {
    // cost(x) = min(D(x), 1 + min cost(y) over up channels x -> y); forced switches keep D.
    for (auto& bucket : buckets) bucket.clear();
    for (std::uint32_t x = 0; x < switches; ++x) {
      cost[x] = down[x];
      downMode[x] = down[x] != kInfinite;
      if (down[x] != kInfinite) buckets[down[x]].push_back(x);
    }
    for (std::size_t level = 0; level < buckets.size(); ++level) {
      for (std::size_t i = 0; i < buckets[level].size(); ++i) {
        const std::uint32_t y = buckets[level][i];
        if (cost[y] != level) continue;
        for (ChannelId c : view.links(y)) {
          const std::uint32_t x = view.targetSwitch(c);  // x -> y goes up iff rank(y) < rank(x)
          if (rank_[y] < rank_[x] && !forced[x] && level + 1 < cost[x]) {
            cost[x] = static_cast<std::uint32_t>(level + 1);
            downMode[x] = 0;
            buckets[level + 1].push_back(x);
          }
        }
      }
    }
    // Consistency: a switch in down mode needs a shortest down hop into a down-mode switch.
    bool changed = false;
    for (std::uint32_t x = 0; x < switches; ++x) {
      if (x == d || !downMode[x]) continue;
      std::uint32_t fallback = kInfinite;
      bool ok = false;
      for (ChannelId c : view.links(x)) {
        const std::uint32_t y = view.targetSwitch(c);
        if (rank_[y] > rank_[x] && down[y] + 1 == down[x]) {
          if (downMode[y]) {
            ok = true;
            break;
          }
          if (fallback == kInfinite) fallback = y;
        }
      }
      if (!ok) {
        forced[fallback] = 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (std::uint32_t x = 0; x < switches; ++x) {
    if (x != d && cost[x] != kInfinite) {
      for (ChannelId c : view.links(x)) {
        const std::uint32_t y = view.targetSwitch(c);
        const bool up = rank_[y] < rank_[x];
        if (downMode[x]) {
          if (!up && downMode[y] && down[y] + 1 == down[x]) out.channels.push_back(c);
        } else if (up && cost[y] + 1 == cost[x]) {
          out.channels.push_back(c);
        }
      }
    }
    out.start[x + 1] = static_cast<std::uint32_t>(out.channels.size());
  }
}

}  // namespace routelab::irregular
