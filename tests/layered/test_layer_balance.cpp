// LASH step 4, balancing (Lysne et al. 2006 §5.1; engines/irregular/layering.h balanceLayers):
// checked against its documented end state on a pool where first-fit leaves the layers
// uneven — no route of a layer can move to a layer with at least two routes fewer without
// closing a cycle, every layer stays acyclic, and the moves made are counted.
#include <gtest/gtest.h>

#include <algorithm>

#include "cdg/cdg.h"
#include "engines/irregular/layering.h"
#include "graph/builder.h"

using namespace routelab;
using namespace routelab::irregular;

namespace {

/// Switches sw0..sw{n-1} in a ring (sw i port 2 -> sw i+1 port 3), one host each on port 1.
Network switchRing(std::uint32_t n) {
  NetworkBuilder builder;
  std::vector<NodeId> sw;
  for (std::uint32_t s = 0; s < n; ++s) sw.push_back(builder.addSwitch("sw" + std::to_string(s), 4));
  for (std::uint32_t s = 0; s < n; ++s) builder.connect(builder.addTerminal("h" + std::to_string(s)), 1, sw[s], 1);
  for (std::uint32_t s = 0; s < n; ++s) builder.connect(sw[s], 2, sw[(s + 1) % n], 3);
  return builder.build();
}

/// The channel from ring switch `from` to its neighbour `to`.
ChannelId ringChannel(const Network& net, std::uint32_t from, std::uint32_t to) {
  const NodeId a = net.switchNode(from);
  const NodeId b = net.switchNode(to);
  for (PortNumber port = 2; port <= 3; ++port) {
    const ChannelId c = net.channelAt(a, port);
    if (net.target(c) == b) return c;
  }
  ADD_FAILURE() << "no channel sw" << from << " -> sw" << to;
  return net.channelAt(a, 2);
}

/// Every ordered switch pair at distance `minHops`.. of the ring, routed the short way
/// (clockwise on ties): switch-to-switch channels only, so every route has dependencies.
RoutePool ringRoutes(const Network& net, std::uint32_t n, std::uint32_t minHops) {
  RoutePool pool;
  for (std::uint32_t a = 0; a < n; ++a) {
    for (std::uint32_t b = 0; b < n; ++b) {
      const std::uint32_t clockwise = (b + n - a) % n;
      const std::uint32_t hops = std::min(clockwise, n - clockwise);
      if (a == b || hops < minHops) continue;
      const bool forward = clockwise <= n - clockwise;
      std::vector<ChannelId> path;
      for (std::uint32_t at = a, k = 0; k < hops; ++k) {
        const std::uint32_t next = forward ? (at + 1) % n : (at + n - 1) % n;
        path.push_back(ringChannel(net, at, next));
        at = next;
      }
      pool.addPath(path);
    }
  }
  return pool;
}

std::vector<std::size_t> layerSizes(const LayerAssignment& assignment) {
  std::vector<std::size_t> count(assignment.layers, 0);
  for (std::uint8_t layer : assignment.layerOf) ++count.at(layer);
  return count;
}

/// Routes that could move to a layer with at least two routes fewer without closing a cycle
/// there (the cdg is left as it was).
std::size_t possibleMoves(ChannelDependencyGraph& cdg, const RoutePool& pool, const LayerAssignment& assignment) {
  const std::vector<std::size_t> count = layerSizes(assignment);
  std::size_t moves = 0;
  for (std::uint32_t route = 0; route < pool.size(); ++route) {
    const std::size_t from = assignment.layerOf[route];
    for (std::size_t to = 0; to < assignment.layers; ++to) {
      if (count[to] + 2 > count[from]) continue;
      if (tryAddRoute(cdg, pool, route, LayerId::fromIndex(to))) {
        removeRoute(cdg, pool, route, LayerId::fromIndex(to));
        ++moves;
        break;
      }
    }
  }
  return moves;
}

}  // namespace

TEST(LayerBalance, NoRouteCanMoveToALayerTwoRoutesEmptierAfterBalancing) {
  for (const std::uint32_t n : {5u, 6u, 7u, 8u}) {
    SCOPED_TRACE("ring of " + std::to_string(n));
    const Network net = switchRing(n);
    const RoutePool pool = ringRoutes(net, n, 2);
    ChannelDependencyGraph cdg(net, 1);
    LayerAssignment assignment = assignLayers(cdg, pool, 8);
    ASSERT_EQ(assignment.unplaced, 0u);
    ASSERT_GE(assignment.layers, 2u);  // the ring closes a cycle in one layer
    const std::vector<std::size_t> before = layerSizes(assignment);
    // First-fit fills layer 0 first: a move exists, so balancing has work to do.
    ASSERT_GT(possibleMoves(cdg, pool, assignment), 0u);

    const std::size_t moves = balanceLayers(cdg, pool, assignment);
    const std::vector<std::size_t> after = layerSizes(assignment);
    EXPECT_EQ(possibleMoves(cdg, pool, assignment), 0u);
    EXPECT_GT(moves, 0u);
    EXPECT_EQ(after.size(), before.size());
    std::size_t total = 0, beforeSquares = 0, afterSquares = 0;
    for (std::size_t l = 0; l < after.size(); ++l) {
      total += after[l];
      beforeSquares += before[l] * before[l];
      afterSquares += after[l] * after[l];
      EXPECT_TRUE(cdg.isAcyclic(LayerId::fromIndex(l))) << "layer " << l;
    }
    EXPECT_EQ(total, pool.size());
    // Each move lowers the sum of squared layer sizes by at least 2 (sizes j > k + 1:
    // j² + k² - (j-1)² - (k+1)² = 2(j - k - 1)).
    EXPECT_LE(afterSquares + 2 * moves, beforeSquares);
    // The dependencies held by the cdg are exactly those of the routes in their layers: a
    // fresh cdg built from the final assignment accepts every route.
    ChannelDependencyGraph fresh(net, assignment.layers);
    for (std::uint32_t route = 0; route < pool.size(); ++route) {
      EXPECT_TRUE(tryAddRoute(fresh, pool, route, LayerId::fromIndex(assignment.layerOf[route]))) << route;
    }
  }
}
