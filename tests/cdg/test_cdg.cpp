// ChannelDependencyGraph (cdg/cdg.h): Lysne et al. 2006 Defs. 4, 11-12; Pearce-Kelly
// incremental insertion checked against a from-scratch cycle search.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "cdg/cdg.h"
#include "cdg/from_routing.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/random.h"
#include "graph/builder.h"
#include "support/test_support.h"
#include "topology/random_irregular.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

/// A ring of `n` switches s0..s(n-1); port 1 goes to the next switch (arrives on its
/// port 2), one terminal per switch on port 3.
Network ring(std::uint32_t n) {
  NetworkBuilder builder;
  std::vector<NodeId> switches;
  for (std::uint32_t i = 0; i < n; ++i) switches.push_back(builder.addSwitch("s" + std::to_string(i), 3));
  for (std::uint32_t i = 0; i < n; ++i) builder.connect(switches[i], 1, switches[(i + 1) % n], 2);
  for (std::uint32_t i = 0; i < n; ++i) {
    const NodeId t = builder.addTerminal("t" + std::to_string(i));
    builder.connect(t, 1, switches[i], 3);
  }
  return builder.build();
}

ChannelId channel(const Network& net, const std::string& node, PortNumber port) {
  return net.channelAt(net.findNode(node).value(), port);
}

/// Clockwise path from terminal i over `hops` ring channels to terminal (i+hops)%n.
std::vector<ChannelId> clockwise(const Network& net, std::uint32_t n, std::uint32_t from, std::uint32_t hops) {
  std::vector<ChannelId> path{channel(net, "t" + std::to_string(from), 1)};
  for (std::uint32_t h = 0; h < hops; ++h) path.push_back(channel(net, "s" + std::to_string((from + h) % n), 1));
  path.push_back(channel(net, "s" + std::to_string((from + hops) % n), 3));
  return path;
}

/// Brute force: is the directed graph `edges` cyclic? (recursive colouring DFS)
bool bruteCyclic(const std::set<std::pair<std::uint32_t, std::uint32_t>>& edges) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> adjacency;
  for (auto [a, b] : edges) adjacency[a].push_back(b);
  std::map<std::uint32_t, int> colour;
  std::function<bool(std::uint32_t)> visit = [&](std::uint32_t n) {
    colour[n] = 1;
    for (std::uint32_t w : adjacency[n]) {
      if (colour[w] == 1) return true;
      if (colour[w] == 0 && visit(w)) return true;
    }
    colour[n] = 2;
    return false;
  };
  for (auto& [n, outs] : adjacency) {
    if (colour[n] == 0 && visit(n)) return true;
  }
  return false;
}

/// The length of a shortest cycle through `start` (breadth-first from it), 0 if none.
std::size_t bruteShortestCycleThrough(const std::set<std::pair<std::uint32_t, std::uint32_t>>& edges,
                                      std::uint32_t start) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> adjacency;
  for (auto [a, b] : edges) adjacency[a].push_back(b);
  std::map<std::uint32_t, std::size_t> distance{{start, 0}};
  std::vector<std::uint32_t> frontier{start};
  for (std::size_t d = 1; !frontier.empty(); ++d) {
    std::vector<std::uint32_t> next;
    for (const std::uint32_t n : frontier) {
      for (const std::uint32_t w : adjacency[n]) {
        if (w == start) return d;
        if (distance.emplace(w, d).second) next.push_back(w);
      }
    }
    frontier = std::move(next);
  }
  return 0;
}

/// The random irregular fabric of the insertion tests: 12 switches, 20 links (seed 3).
Network twelveRandomSwitches() {
  RandomIrregularParams params;
  params.switches = 12;
  params.links = 20;
  params.seed = 3;
  return makeRandomIrregular(params);
}

/// A random walk of 2..maxLength consecutive channels (U-turns allowed), starting anywhere.
std::vector<ChannelId> randomWalk(const Network& net, Rng& rng, std::size_t maxLength) {
  std::vector<ChannelId> path;
  ChannelId c = ChannelId::fromIndex(rng.below(net.channelCount()));
  path.push_back(c);
  const std::size_t length = 2 + rng.below(maxLength - 1);
  while (path.size() < length) {
    const auto outs = net.outChannels(net.target(c));
    if (outs.empty()) break;
    c = outs[rng.below(outs.size())];
    path.push_back(c);
  }
  return path;
}

void expectIsCycle(const ChannelDependencyGraph& cdg, LayerId layer, const std::vector<ChannelId>& cycle) {
  ASSERT_FALSE(cycle.empty());
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    EXPECT_TRUE(cdg.hasDependency(layer, cycle[i], cycle[(i + 1) % cycle.size()]))
        << cdg.describeCycle(cycle) << " at " << i;
  }
}

}  // namespace

TEST(Cdg, RingPathsCloseACycleOnlyWhenTheyWrapAround) {
  const Network net = ring(4);
  ChannelDependencyGraph cdg(net);
  // Three 2-hop paths (t0->t2, t1->t3, t2->t0) use ring dependencies 0->1, 1->2, 2->3, 3->0
  // partially; the fourth closes the ring of channel dependencies (Dally-Seitz).
  EXPECT_TRUE(cdg.tryAddPath(LayerId(0), clockwise(net, 4, 0, 2)));
  EXPECT_TRUE(cdg.tryAddPath(LayerId(0), clockwise(net, 4, 1, 2)));
  EXPECT_TRUE(cdg.tryAddPath(LayerId(0), clockwise(net, 4, 2, 2)));
  EXPECT_TRUE(cdg.isAcyclic(LayerId(0)));
  EXPECT_FALSE(cdg.findCycle(LayerId(0)).has_value());
  const auto closing = clockwise(net, 4, 3, 2);
  const std::size_t before = cdg.dependencyCount(LayerId(0));
  EXPECT_TRUE(cdg.wouldCloseCycle(LayerId(0), closing));
  EXPECT_FALSE(cdg.tryAddPath(LayerId(0), closing));
  EXPECT_EQ(cdg.dependencyCount(LayerId(0)), before);  // unchanged
  // Each path: injection->ring, ring->ring, ring->delivery = 3 dependencies; 9 distinct.
  EXPECT_EQ(before, 9u);
  // In a second layer the same path fits (Def. 11: dependencies are per layer).
  const LayerId second = cdg.addLayer();
  EXPECT_EQ(second, LayerId(1));
  EXPECT_TRUE(cdg.tryAddPath(second, closing));
  // Forced in: the cycle is found, and it is the 4 ring channels.
  cdg.addPath(LayerId(0), closing);
  EXPECT_FALSE(cdg.isAcyclic(LayerId(0)));
  const auto cycle = cdg.findCycle(LayerId(0));
  ASSERT_TRUE(cycle.has_value());
  EXPECT_EQ(cycle->size(), 4u);
  expectIsCycle(cdg, LayerId(0), *cycle);
  for (ChannelId c : *cycle) EXPECT_EQ(net.sourcePort(c), 1);
  const std::string text = cdg.describeCycle(*cycle);
  EXPECT_NE(text.find("s0[1] -> s1[2]"), std::string::npos) << text;
  EXPECT_NE(text.find(" => "), std::string::npos) << text;
  // Closing channel repeated at the end.
  EXPECT_EQ(text.substr(text.rfind(" => ") + 4), net.describeChannel(cycle->front()));
  // Removing the closing path makes the layer acyclic again, and incremental use resumes.
  cdg.removePath(LayerId(0), closing);
  EXPECT_TRUE(cdg.isAcyclic(LayerId(0)));
  EXPECT_FALSE(cdg.tryAddPath(LayerId(0), closing));
  cdg.removePath(LayerId(0), clockwise(net, 4, 0, 2));
  EXPECT_TRUE(cdg.tryAddPath(LayerId(0), closing));
}

TEST(Cdg, ALayerFoundCyclicIsAcyclicAgainAfterTheClosingPathIsRemoved) {
  // LASH step 4 (Lysne §5.1) moves paths between layers: a layer that incremental use has
  // found cyclic must accept paths again once the path that closed the cycle is removed.
  const Network net = ring(4);
  ChannelDependencyGraph cdg(net);
  const LayerId layer(0);
  for (std::uint32_t start = 0; start < 3; ++start) ASSERT_TRUE(cdg.tryAddPath(layer, clockwise(net, 4, start, 2)));
  const auto closing = clockwise(net, 4, 3, 2);
  cdg.addPath(layer, closing);  // forced in: the layer is cyclic
  // Incremental use re-sorts the layer, finds the cycle and refuses every path ...
  EXPECT_FALSE(cdg.tryAddPath(layer, clockwise(net, 4, 0, 1)));
  EXPECT_FALSE(cdg.isAcyclic(layer));
  // ... until the closing path is removed: acyclic again, and additions resume.
  cdg.removePath(layer, closing);
  EXPECT_TRUE(cdg.isAcyclic(layer));
  EXPECT_FALSE(cdg.findCycle(layer).has_value());
  EXPECT_TRUE(cdg.tryAddPath(layer, clockwise(net, 4, 0, 1)));
  EXPECT_FALSE(cdg.tryAddPath(layer, closing));  // and still refuses what closes the ring
  // The same with channel 0 (s0 -> s1) at the head of the paths, no terminal channel before
  // it: the re-sort starts from channel 0, and every dependency after it must be counted.
  ChannelDependencyGraph fromZero(net);
  const ChannelId s0s1 = channel(net, "s0", 1), s1s2 = channel(net, "s1", 1), s2s3 = channel(net, "s2", 1),
                  s3s0 = channel(net, "s3", 1);
  ASSERT_EQ(s0s1.index(), 0U);
  for (const std::vector<ChannelId>& path :
       {std::vector{s0s1, s1s2}, std::vector{s1s2, s2s3}, std::vector{s2s3, s3s0}}) {
    ASSERT_TRUE(fromZero.tryAddPath(layer, path));
  }
  const std::vector<ChannelId> closingAtZero{s3s0, s0s1};
  fromZero.addPath(layer, closingAtZero);
  EXPECT_FALSE(fromZero.tryAddPath(layer, clockwise(net, 4, 0, 1)));
  fromZero.removePath(layer, closingAtZero);
  EXPECT_TRUE(fromZero.tryAddPath(layer, clockwise(net, 4, 0, 1)));
  EXPECT_TRUE(fromZero.isAcyclic(layer));
  EXPECT_FALSE(fromZero.tryAddPath(layer, closingAtZero));
}

TEST(Cdg, ReferenceCountsKeepSharedDependencies) {
  const Network net = ring(5);
  ChannelDependencyGraph cdg(net);
  const auto a = clockwise(net, 5, 0, 3);  // s0->s1->s2->s3
  const auto b = clockwise(net, 5, 1, 1);  // s1->s2
  cdg.addPath(LayerId(0), a);
  cdg.addPath(LayerId(0), a);
  const ChannelId s0s1 = channel(net, "s0", 1), s1s2 = channel(net, "s1", 1);
  EXPECT_EQ(cdg.dependencyReferences(LayerId(0), s0s1, s1s2), 2u);
  cdg.removePath(LayerId(0), a);
  EXPECT_TRUE(cdg.hasDependency(LayerId(0), s0s1, s1s2));
  cdg.removePath(LayerId(0), a);
  EXPECT_FALSE(cdg.hasDependency(LayerId(0), s0s1, s1s2));
  EXPECT_EQ(cdg.dependencyCount(LayerId(0)), 0u);
  // Removing what is absent throws, naming the first absent dependency (a's first two channels:
  // only the one-channel path b was added since), and leaves the graph unchanged.
  cdg.addPath(LayerId(0), b);
  const auto before = cdg.dependencies(LayerId(0));
  EXPECT_EQ(test::thrownMessage<RoutingError>([&] { cdg.removePath(LayerId(0), a); }, "no error"),
            fmt::format("channel dependency graph: removing absent dependency {} => {}", net.describeChannel(a[0]),
                        net.describeChannel(a[1])));
  EXPECT_EQ(cdg.dependencies(LayerId(0)), before);
}

TEST(Cdg, MisuseThrowsPreciseErrors) {
  const Network net = ring(3);
  ChannelDependencyGraph cdg(net, 2);
  const ChannelId s0s1 = channel(net, "s0", 1), s2s0 = channel(net, "s2", 1);
  try {
    cdg.addDependency(LayerId(0), s0s1, s2s0);  // s1 != s2: not consecutive
    FAIL() << "no throw";
  } catch (const RoutingError& e) {
    EXPECT_NE(std::string(e.what()).find("s0[1] -> s1[2]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not consecutive"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cdg.addDependency(LayerId(2), s2s0, s0s1), RoutingError);
  EXPECT_THROW(cdg.addDependency(LayerId(0), ChannelId(), s0s1), RoutingError);
  const std::vector<ChannelId> bad{s0s1, s2s0};
  EXPECT_THROW(cdg.tryAddPath(LayerId(0), bad), RoutingError);
  EXPECT_EQ(cdg.dependencyCount(LayerId(0)), 0u);
  EXPECT_FALSE(cdg.hasDependency(LayerId(0), s0s1, s2s0));  // not consecutive: simply absent
}

// The contract above the path functions (cdg.h): an invalid or out-of-range channel id is a
// RoutingError whatever the path's length — a one-channel path has no dependency to check its
// channels through, so it is checked on its own; the last channel id and an empty path are
// accepted and add nothing.
TEST(Cdg, EveryPathFunctionChecksTheChannelsOfAOneChannelPath) {
  const Network net = ring(3);
  const auto last = ChannelId::fromIndex(net.channelCount() - 1);
  const auto onePast = ChannelId::fromIndex(net.channelCount());
  const std::string message = fmt::format("channel dependency graph: channel id {} out of range ({} channels)",
                                          net.channelCount(), net.channelCount());
  using PathCall = std::function<void(ChannelDependencyGraph&, std::span<const ChannelId>)>;
  const std::vector<std::pair<std::string, PathCall>> calls = {
      {"addPath", [](ChannelDependencyGraph& g, std::span<const ChannelId> p) { g.addPath(LayerId(0), p); }},
      {"tryAddPath",
       [](ChannelDependencyGraph& g, std::span<const ChannelId> p) { (void)g.tryAddPath(LayerId(0), p); }},
      {"wouldCloseCycle",
       [](ChannelDependencyGraph& g, std::span<const ChannelId> p) { (void)g.wouldCloseCycle(LayerId(0), p); }},
      {"removePath", [](ChannelDependencyGraph& g, std::span<const ChannelId> p) { g.removePath(LayerId(0), p); }},
  };
  for (const auto& [name, call] : calls) {
    ChannelDependencyGraph cdg(net, 1);
    const std::vector<ChannelId> outside{onePast}, invalid{ChannelId()}, atTheEnd{last}, empty{};
    try {
      call(cdg, outside);
      ADD_FAILURE() << name << ": channel " << net.channelCount() << " accepted";
    } catch (const RoutingError& e) {
      EXPECT_EQ(std::string(e.what()), message) << name;
    }
    EXPECT_THROW(call(cdg, invalid), RoutingError) << name;
    EXPECT_NO_THROW(call(cdg, atTheEnd)) << name;
    EXPECT_NO_THROW(call(cdg, empty)) << name;
    EXPECT_EQ(cdg.dependencyCount(LayerId(0)), 0u) << name;
  }
}

TEST(Cdg, CopiesAreIndependent) {
  const Network net = ring(3);
  ChannelDependencyGraph a(net);
  a.addPath(LayerId(0), clockwise(net, 3, 0, 1));
  ChannelDependencyGraph b = a;
  b.addPath(LayerId(0), clockwise(net, 3, 1, 1));
  // Each one-hop path induces 2 dependencies (injection -> ring, ring -> delivery).
  EXPECT_EQ(a.dependencyCount(LayerId(0)), 2u);
  EXPECT_EQ(b.dependencyCount(LayerId(0)), 4u);
}

// The core property: on thousands of random insertions and removals, tryAddPath accepts
// exactly the paths after which a from-scratch search finds no cycle, and findCycle
// agrees with the brute force at every step.
TEST(Cdg, IncrementalAgreesWithBruteForceOnRandomInsertions) {
  const Network net = twelveRandomSwitches();
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    Rng rng(seed);
    ChannelDependencyGraph cdg(net, 2);
    std::set<std::pair<std::uint32_t, std::uint32_t>> model;      // layer 0 distinct edges
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> refs;  // layer 0 counts
    std::vector<std::vector<ChannelId>> added;
    std::size_t accepted = 0, rejected = 0, witnesses = 0;
    for (int step = 0; step < 1500; ++step) {
      if (!added.empty() && rng.below(5) == 0) {
        const std::size_t i = rng.below(added.size());
        cdg.removePath(LayerId(0), added[i]);
        for (std::size_t k = 0; k + 1 < added[i].size(); ++k) {
          const std::pair edge(added[i][k].value, added[i][k + 1].value);
          if (--refs[edge] == 0) model.erase(edge);
        }
        added.erase(added.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      const auto path = randomWalk(net, rng, 7);
      auto candidate = model;
      for (std::size_t k = 0; k + 1 < path.size(); ++k) candidate.emplace(path[k].value, path[k + 1].value);
      const bool expectAccepted = !bruteCyclic(candidate);
      ASSERT_EQ(cdg.wouldCloseCycle(LayerId(0), path), !expectAccepted) << "seed " << seed << " step " << step;
      ASSERT_EQ(cdg.tryAddPath(LayerId(0), path), expectAccepted) << "seed " << seed << " step " << step;
      if (expectAccepted) {
        ++accepted;
        model = std::move(candidate);
        for (std::size_t k = 0; k + 1 < path.size(); ++k) ++refs[{path[k].value, path[k + 1].value}];
        added.push_back(path);
      } else {
        ++rejected;
      }
      ASSERT_EQ(cdg.dependencyCount(LayerId(0)), model.size());
      ASSERT_FALSE(cdg.findCycle(LayerId(0)).has_value());
      // Layer 1: unconditional additions, compared with the brute force every 50 steps.
      cdg.addPath(LayerId(1), path);
      if (step % 50 == 0) {
        std::set<std::pair<std::uint32_t, std::uint32_t>> all;
        for (auto [from, to] : cdg.dependencies(LayerId(1))) all.emplace(from.value, to.value);
        const auto cycle = cdg.findCycle(LayerId(1));
        ASSERT_EQ(cycle.has_value(), bruteCyclic(all));
        if (cycle) {
          expectIsCycle(cdg, LayerId(1), *cycle);
          // The witness is a shortest cycle through its first channel (cdg.h findCycle).
          EXPECT_EQ(cycle->size(), bruteShortestCycleThrough(all, cycle->front().value)) << "step " << step;
          ++witnesses;
        }
      }
    }
    // Both outcomes must have been exercised for the comparison to mean anything.
    EXPECT_GT(accepted, 100u) << seed;
    EXPECT_GT(witnesses, 10u) << seed;
    EXPECT_GT(rejected, 100u) << seed;
    // The distinct dependencies are exactly the model's.
    std::set<std::pair<std::uint32_t, std::uint32_t>> held;
    for (auto [from, to] : cdg.dependencies(LayerId(0))) held.emplace(from.value, to.value);
    EXPECT_EQ(held, model);
  }
}

// findCycle's witness (cdg.h) is a shortest cycle through its first channel, also where the
// depth-first search meets the cycle along a longer way round: walks without U-turns close
// cycles of three channels and more, added until the layer is cyclic, on 40 seeds.
TEST(Cdg, TheWitnessIsAShortestCycleThroughItsFirstChannel) {
  const Network net = twelveRandomSwitches();
  std::size_t witnesses = 0, longer = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Rng rng(seed);
    ChannelDependencyGraph cdg(net, 1);
    std::set<std::pair<std::uint32_t, std::uint32_t>> all;
    for (int step = 0; step < 400; ++step) {
      std::vector<ChannelId> path{ChannelId::fromIndex(rng.below(net.channelCount()))};
      const std::size_t length = 2 + rng.below(5);
      while (path.size() < length) {
        std::vector<ChannelId> onward;  // no U-turn
        for (const ChannelId next : net.outChannels(net.target(path.back()))) {
          if (net.target(next) != net.source(path.back())) onward.push_back(next);
        }
        if (onward.empty()) break;
        path.push_back(onward[rng.below(onward.size())]);
      }
      cdg.addPath(LayerId(0), path);
      for (std::size_t k = 0; k + 1 < path.size(); ++k) all.emplace(path[k].value, path[k + 1].value);
      const auto cycle = cdg.findCycle(LayerId(0));
      if (!cycle) continue;
      expectIsCycle(cdg, LayerId(0), *cycle);
      const std::size_t shortest = bruteShortestCycleThrough(all, cycle->front().value);
      EXPECT_EQ(cycle->size(), shortest) << "seed " << seed;
      ++witnesses;
      longer += shortest > 2;
      break;
    }
  }
  EXPECT_GE(witnesses, 30U);
  EXPECT_GE(longer, 20U);
}

// Mixing unconditional additions (stale order) with incremental ones (re-sort) must still
// agree with the brute force.
TEST(Cdg, StaleOrderIsRecomputedBeforeIncrementalUse) {
  const Network net = makeKaryNtree(2, 3);
  Rng rng(11);
  ChannelDependencyGraph cdg(net);
  std::set<std::pair<std::uint32_t, std::uint32_t>> model;
  for (int step = 0; step < 600; ++step) {
    const auto path = randomWalk(net, rng, 5);
    auto candidate = model;
    for (std::size_t k = 0; k + 1 < path.size(); ++k) candidate.emplace(path[k].value, path[k + 1].value);
    const bool acyclicAfter = !bruteCyclic(candidate);
    if (step % 3 == 0 && acyclicAfter) {
      cdg.addPath(LayerId(0), path);  // unconditional, but keeps the layer acyclic
      model = std::move(candidate);
    } else {
      ASSERT_EQ(cdg.tryAddPath(LayerId(0), path), acyclicAfter) << step;
      if (acyclicAfter) model = std::move(candidate);
    }
  }
  EXPECT_EQ(cdg.dependencyCount(LayerId(0)), model.size());
}

TEST(Cdg, GraphOfExplicitPathsKeepsLayersApart) {
  const Network net = ring(4);
  // All four 2-hop clockwise paths: cyclic in one layer (Dally-Seitz), acyclic when the
  // wrapping one goes to its own layer (Lysne Def. 11-12).
  std::vector<std::vector<ChannelId>> paths;
  for (std::uint32_t i = 0; i < 4; ++i) paths.push_back(clockwise(net, 4, i, 2));
  const std::vector<LayerId> oneLayer(4, LayerId(0));
  const ChannelDependencyGraph cyclic = dependencyGraphOfPaths(net, 1, paths, oneLayer);
  EXPECT_TRUE(cyclic.findCycle(LayerId(0)).has_value());
  const std::vector<LayerId> split{LayerId(0), LayerId(0), LayerId(0), LayerId(1)};
  const ChannelDependencyGraph layered = dependencyGraphOfPaths(net, 2, paths, split);
  EXPECT_FALSE(layered.findCycle(LayerId(0)).has_value());
  EXPECT_FALSE(layered.findCycle(LayerId(1)).has_value());
  EXPECT_EQ(layered.dependencyCount(LayerId(0)) + layered.dependencyCount(LayerId(1)), 12u);
  EXPECT_THROW(dependencyGraphOfPaths(net, 1, paths, split), RoutingError);  // layer 1 of 1
}

// Limits (docs/RELIABILITY.md): a graph beyond the 24 GiB budget is refused before its
// layers are allocated. The 20-ary 4-tree has 1,280,000 channels and 41,760,000 dependency
// slots: 172 MB per layer, so one layer is fine and 255 layers (41 GiB) are not.
TEST(Cdg, LayersBeyondTheMemoryBudgetAreRefusedBeforeAllocation) {
  const Network net = makeKaryNtree(20, 4);
  EXPECT_NO_THROW(ChannelDependencyGraph(net, 1));
  try {
    ChannelDependencyGraph graph(net, 255);
    FAIL() << "255 layers of the 20-ary 4-tree were allocated";
  } catch (const LimitError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("channel dependency graph of 1280000 channels x 255 layers"), std::string::npos) << message;
    EXPECT_NE(message.find("exceeds the 24.0 GiB memory budget"), std::string::npos) << message;
  }
}
