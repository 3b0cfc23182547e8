// Deadlock detection (sim/watchdog.h): the watchdog fires exactly when packets are in flight
// and none has moved for its cycles, and the wait-for graph's first cycle is a cycle, found
// exactly when one exists (against a brute-force reachability check on random graphs).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "core/random.h"
#include "sim/watchdog.h"

namespace routelab {
namespace {

using sim::WaitForGraph;
using sim::Watchdog;

TEST(Watchdog, FiresWhenPacketsInFlightHaveNotMovedForItsCycles) {
  const Watchdog watchdog(Cycles(100));
  EXPECT_FALSE(watchdog.fires(Cycle(1099), true, Cycle(1000)));
  EXPECT_TRUE(watchdog.fires(Cycle(1100), true, Cycle(1000)));
  EXPECT_TRUE(watchdog.fires(Cycle(5000), true, Cycle(1000)));
  EXPECT_FALSE(watchdog.fires(Cycle(5000), false, Cycle(1000)))
      << "nothing in flight: an idle network is not deadlocked";
  EXPECT_EQ(watchdog.deadline(true, Cycle(1000)), Cycle(1100));
  EXPECT_EQ(watchdog.deadline(false, Cycle(1000)), Cycle::never());
  // The deadline is the first cycle it fires at.
  for (std::uint64_t last : {0ULL, 7ULL, 123456ULL}) {
    const Cycle deadline = watchdog.deadline(true, Cycle(last));
    EXPECT_TRUE(watchdog.fires(deadline, true, Cycle(last)));
    EXPECT_FALSE(watchdog.fires(Cycle(deadline.value - 1), true, Cycle(last)));
  }
}

TEST(Watchdog, PacketsAreInFlightUntilInjectedOnesAreDeliveredAndGeneratedOnesReleased) {
  EXPECT_FALSE(Watchdog::inFlight(10, 10, 10, 10));
  EXPECT_TRUE(Watchdog::inFlight(10, 10, 9, 9)) << "one in the network";
  EXPECT_TRUE(Watchdog::inFlight(10, 9, 9, 9)) << "one waiting at its source";
  EXPECT_TRUE(Watchdog::inFlight(10, 10, 10, 9)) << "one held by a reorder buffer";
}

// Each consecutive pair of `cycle` (and its last and first) is an edge of `edges`.
void expectCycle(const std::vector<std::uint32_t>& cycle,
                 const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
  ASSERT_FALSE(cycle.empty());
  const std::set<std::pair<std::uint32_t, std::uint32_t>> set(edges.begin(), edges.end());
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    EXPECT_TRUE(set.count({cycle[i], cycle[(i + 1) % cycle.size()]}))
        << cycle[i] << " -> " << cycle[(i + 1) % cycle.size()] << " is not an edge";
  }
  EXPECT_EQ(std::set<std::uint32_t>(cycle.begin(), cycle.end()).size(), cycle.size()) << "a simple cycle";
}

TEST(WaitForGraph, FindsTheCycleReachedFirst) {
  //  0 -> 1 -> 2 -> 3 -> 1   (the cycle 1 2 3, entered from 0)     4 -> 4
  WaitForGraph graph(5);
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> edges{{0, 1}, {1, 2}, {2, 3}, {3, 1}, {4, 4}};
  for (auto [a, b] : edges) graph.addWait(a, b);
  EXPECT_EQ(graph.firstCycle(), (std::vector<std::uint32_t>{1, 2, 3}));
  WaitForGraph self(5);
  self.addWait(4, 4);
  EXPECT_EQ(self.firstCycle(), (std::vector<std::uint32_t>{4}));
}

TEST(WaitForGraph, AnAcyclicGraphHasNoCycle) {
  //  0 -> 1 -> 3,  0 -> 2 -> 3,  3 -> 4: a diamond reached twice is not a cycle.
  WaitForGraph graph(5);
  for (auto [a, b] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}}) {
    graph.addWait(a, b);
  }
  EXPECT_TRUE(graph.firstCycle().empty());
  EXPECT_TRUE(WaitForGraph(0).firstCycle().empty());
}

TEST(WaitForGraph, FindsACycleExactlyWhenOneExists) {
  Rng rng(37);
  int cyclic = 0, acyclic = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const auto n = static_cast<std::uint32_t>(1 + rng.below(9));
    const auto m = static_cast<std::uint32_t>(rng.below(2 * n));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    WaitForGraph graph(n);
    for (std::uint32_t e = 0; e < m; ++e) {
      const auto a = static_cast<std::uint32_t>(rng.below(n)), b = static_cast<std::uint32_t>(rng.below(n));
      edges.emplace_back(a, b);
      graph.addWait(a, b);
    }
    // Brute force: a cycle exists iff some node reaches itself (transitive closure).
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
    for (auto [a, b] : edges) reach[a][b] = true;
    for (std::uint32_t k = 0; k < n; ++k) {
      for (std::uint32_t i = 0; i < n; ++i) {
        for (std::uint32_t j = 0; j < n; ++j) reach[i][j] = reach[i][j] || (reach[i][k] && reach[k][j]);
      }
    }
    bool exists = false;
    for (std::uint32_t i = 0; i < n; ++i) exists = exists || reach[i][i];
    const std::vector<std::uint32_t> cycle = graph.firstCycle();
    ASSERT_EQ(!cycle.empty(), exists) << "trial " << trial;
    if (exists) {
      expectCycle(cycle, edges);
      ++cyclic;
    } else {
      ++acyclic;
    }
  }
  EXPECT_GT(cyclic, 50);
  EXPECT_GT(acyclic, 50);
}

}  // namespace
}  // namespace routelab
