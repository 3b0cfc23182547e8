// routelab/engines/irregular/updown.h — UpDown (up*/down*) link directions and legal next hops.
//
// Lysne et al. 2006 §4.1 (after Autonet, Schroeder et al. 1990): choose a root, then make
// the up-end of every link the end closer to the root, ties broken towards the lower id.
// Equivalently every switch gets a rank — (BFS distance from the root, switch index) — and
// a channel goes up iff it leads to a lower rank; the up channels form a DAG whose only sink
// is the root. The depth-first variant (Sancho, Robles, Duato, TPDS 2004, cited in Lysne
// §1 and §8) ranks switches in the order of a depth-first spanning tree instead; our
// reading of its heuristic: from the switch being expanded, visit next the unvisited
// neighbour with the most links to already visited switches (ties: lowest id), backtracking
// when a switch has no unvisited neighbour. A channel goes up iff it leads to a switch
// visited earlier.
//
// Legal routes go up zero or more times, then down zero or more times. Destination-based
// tables (InfiniBand) cannot see the input port, so the table must be consistent: the
// route from every switch, read from the table, must itself be legal. nextHops() computes,
// per destination switch, the shortest legal routes subject to that consistency:
//   * D(x): length of the shortest down-only route x -> d;
//   * a switch is in down mode (route continues down only) or up mode (first hop up);
//     cost(x) = D(x) in down mode, 1 + min cost(y) over up channels x -> y in up mode;
//     each switch takes the mode of lower cost (ties: down);
//   * a switch in down mode may only hand packets to switches in down mode; when none of
//     its shortest down hops is in down mode, one of them is forced into down mode and the
//     costs are recomputed (the forced set only grows, so this ends after at most S rounds;
//     in practice zero or one).
// Every switch connected to the root gets a route (the root reaches everything down-only),
// so no pair is left unrouted — unlike OpenSM's updn, which leaves root-to-root switch
// LIDs unrouted. Routes are shortest legal routes except where consistency forces a switch
// into down mode.
#pragma once

#include <cstdint>
#include <vector>

#include "engines/irregular/switch_view.h"

namespace routelab::irregular {

enum class SpanningTree { BreadthFirst, DepthFirst };

class UpDown {
 public:
  /// Directions for `root` (a switch carrying traffic). O(S + C) (DFS: O(S · C) for the
  /// neighbour heuristic in the worst case).
  UpDown(const SwitchView& view, std::uint32_t root, SpanningTree tree);

  std::uint32_t root() const { return root_; }
  /// Rank of a switch (0 = root); lower rank = closer to the root.
  std::uint32_t rank(std::uint32_t s) const { return rank_[s]; }
  /// Does channel `c` (between switches) go up?
  bool isUp(ChannelId c) const;

  /// Legal next hops towards destination switch `d` (see above). O(rounds · (S + C)).
  void nextHops(std::uint32_t d, HopSets& out) const;

 private:
  const SwitchView* view_;
  std::uint32_t root_;
  std::vector<std::uint32_t> rank_;
};

}  // namespace routelab::irregular
