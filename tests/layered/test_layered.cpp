// Unit tests of the engines for any topology (Lysne et al. 2006): UpDown legality and
// tie-breaks, MROOTS root choice, LASH layer counts on trees / complete graphs / fat-trees,
// the §8.4 UpDown fallback layer, address modes, errors.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>

#include "../engines/fabrics.h"
#include "../engines/routing_check.h"
#include "core/errors.h"
#include "core/random.h"
#include "engines/irregular/layering.h"
#include "engines/irregular/switch_view.h"
#include "engines/irregular/updown.h"
#include "engines/registry.h"
#include "graph/algorithms.h"
#include "graph/builder.h"
#include "test_stats.h"
#include "test_support.h"
#include "topology/xgft.h"

using namespace routelab;
using namespace routelab::irregular;

namespace {

/// Switches sw0..sw{n-1}, one terminal each, cables between the given switch pairs.
Network graphFabric(std::uint32_t switches, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& cables) {
  NetworkBuilder builder;
  std::vector<NodeId> sw;
  std::vector<PortNumber> next(switches, 2);
  for (std::uint32_t s = 0; s < switches; ++s) sw.push_back(builder.addSwitch("sw" + std::to_string(s), 16));
  for (std::uint32_t s = 0; s < switches; ++s)
    builder.connect(builder.addTerminal("h" + std::to_string(s)), 1, sw[s], 1);
  for (auto [a, b] : cables) builder.connect(sw[a], next[a]++, sw[b], next[b]++);
  return builder.build();
}

Network ring(std::uint32_t n) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cables;
  for (std::uint32_t i = 0; i < n; ++i) cables.emplace_back(i, (i + 1) % n);
  return graphFabric(n, cables);
}

std::string stat(const RoutingResult& result, const std::string& key) { return test::statOf(result.stats, key); }

/// The switch-to-switch channels of every ordered pair of switches (one terminal each)
/// and the layer the routing gives it, read back from the tables; and per layer the
/// channel dependencies (consecutive switch channels) of the pairs it holds.
struct SwitchPairRoutes {
  struct Route {
    std::uint32_t source = 0, destination = 0;  // terminal indices
    std::size_t layer = 0;
    std::vector<ChannelId> channels;  // switch to switch only
  };
  std::vector<Route> routes;
  std::vector<std::set<std::pair<std::uint32_t, std::uint32_t>>> dependencies;  // per layer
};

SwitchPairRoutes switchPairRoutes(const Network& net, const RoutingResult& result) {
  SwitchPairRoutes out;
  out.dependencies.resize(result.layerCount());
  const auto terminals = net.terminals();
  for (std::uint32_t s = 0; s < terminals.size(); ++s) {
    for (std::uint32_t d = 0; d < terminals.size(); ++d) {
      if (s == d) continue;
      const Address a = result.addressFor(terminals[s], terminals[d]);
      const LayerId layer = result.layer(result.addresses.sourceIndex(terminals[s]), a);
      const Path path = result.path(net, terminals[s], a, layer);
      EXPECT_EQ(path.status, PathStatus::Delivered);
      SwitchPairRoutes::Route route{s, d, layer.index(), {path.channels.begin() + 1, path.channels.end() - 1}};
      for (std::size_t i = 1; i < route.channels.size(); ++i) {
        out.dependencies[route.layer].emplace(route.channels[i - 1].index(), route.channels[i].index());
      }
      out.routes.push_back(std::move(route));
    }
  }
  return out;
}

/// Does `dependencies` plus `extra` hold a cycle? (Kahn's algorithm.)
bool hasCycle(const std::set<std::pair<std::uint32_t, std::uint32_t>>& dependencies,
              const std::vector<std::pair<std::uint32_t, std::uint32_t>>& extra) {
  std::map<std::uint32_t, std::vector<std::uint32_t>> next;
  std::map<std::uint32_t, int> into;
  auto add = [&](std::pair<std::uint32_t, std::uint32_t> e) {
    next[e.first].push_back(e.second);
    into[e.first] += 0;
    ++into[e.second];
  };
  for (const auto& e : dependencies) add(e);
  for (const auto& e : extra) add(e);
  std::vector<std::uint32_t> ready;
  for (const auto& [c, n] : into) {
    if (n == 0) ready.push_back(c);
  }
  std::size_t removed = 0;
  while (!ready.empty()) {
    const std::uint32_t c = ready.back();
    ready.pop_back();
    ++removed;
    for (std::uint32_t t : next[c]) {
      if (--into[t] == 0) ready.push_back(t);
    }
  }
  return removed < into.size();
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> dependenciesOf(const std::vector<ChannelId>& channels) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  for (std::size_t i = 1; i < channels.size(); ++i) out.emplace_back(channels[i - 1].index(), channels[i].index());
  return out;
}

}  // namespace

TEST(UpDown, BreadthFirstRanksFollowSection41TieBreaks) {
  // Ring of 6 rooted at sw0: distances 0,1,2,3,2,1 -> ranks by (distance, id).
  const Network net = ring(6);
  const SwitchView view(net, false);
  const UpDown updown(view, 0, SpanningTree::BreadthFirst);
  EXPECT_EQ(updown.rank(0), 0u);
  EXPECT_EQ(updown.rank(1), 1u);  // distance 1, lower id than sw5
  EXPECT_EQ(updown.rank(5), 2u);
  EXPECT_EQ(updown.rank(2), 3u);
  EXPECT_EQ(updown.rank(4), 4u);
  EXPECT_EQ(updown.rank(3), 5u);
  // The link sw2 - sw3 goes up towards sw2 (closer to the root).
  const ChannelId c = net.channelAt(*net.findNode("sw3"), 2);  // sw3's first switch port leads to sw2
  ASSERT_EQ(net.name(net.target(c)), "sw2");
  EXPECT_TRUE(updown.isUp(c));
}

// updown.h's depth-first heuristic, recomputed: from the switch on top of the stack, the
// unvisited neighbour with the most links to visited switches, ties to the lowest id;
// backtrack when none is left. On a ring of 6 from sw0 both neighbours tie (one visited
// neighbour each): sw1 first, then around the ring.
TEST(UpDown, DepthFirstRanksFollowTheNeighbourHeuristicAndItsTieBreak) {
  {
    const Network net = ring(6);
    const SwitchView view(net, false);
    const UpDown updown(view, 0, SpanningTree::DepthFirst);
    for (std::uint32_t s = 0; s < 6; ++s) EXPECT_EQ(updown.rank(s), s);
  }
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const Network net = test::randomFabric(20, 40, seed);
    const SwitchView view(net, true);
    const std::uint32_t switches = view.switchCount();
    const std::uint32_t root = view.lowestSwitch();
    const UpDown updown(view, root, SpanningTree::DepthFirst);
    // Links between two switches, counted with their multiplicity.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> links;
    for (std::uint32_t s = 0; s < switches; ++s) {
      for (ChannelId c : view.links(s)) ++links[{s, view.targetSwitch(c)}];
    }
    std::vector<std::uint32_t> order{root};
    std::vector<std::uint32_t> stack{root};
    std::set<std::uint32_t> visited{root};
    while (!stack.empty()) {
      std::optional<std::pair<std::uint32_t, std::int64_t>> best;  // (visited links, -id)
      for (std::uint32_t candidate = 0; candidate < switches; ++candidate) {
        if (visited.contains(candidate) || !links.contains({stack.back(), candidate})) continue;
        std::uint32_t toVisited = 0;
        for (std::uint32_t v : visited) toVisited += links.contains({v, candidate}) ? links.at({v, candidate}) : 0;
        const std::pair<std::uint32_t, std::int64_t> key{toVisited, -std::int64_t{candidate}};
        if (!best || key > *best) best = key;
      }
      if (!best) {
        stack.pop_back();
        continue;
      }
      const auto next = static_cast<std::uint32_t>(-best->second);
      order.push_back(next);
      stack.push_back(next);
      visited.insert(next);
    }
    for (std::uint32_t i = 0; i < order.size(); ++i) EXPECT_EQ(updown.rank(order[i]), i) << "seed " << seed;
  }
}

TEST(UpDown, EveryTableRouteIsLegalFromEverySwitch) {
  for (auto tree : {SpanningTree::BreadthFirst, SpanningTree::DepthFirst}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const Network net = test::randomFabric(20, 40, seed);
      const SwitchView view(net, true);
      const UpDown updown(view, view.lowestSwitch(), tree);
      HopSets hops;
      for (std::uint32_t d = 0; d < view.switchCount(); ++d) {
        updown.nextHops(d, hops);
        // Follow every choice from every switch: never up after down, always reaches d.
        for (std::uint32_t s = 0; s < view.switchCount(); ++s) {
          std::vector<std::pair<std::uint32_t, bool>> stack{{s, false}};  // (switch, went down)
          std::size_t steps = 0;
          while (!stack.empty()) {
            auto [x, wentDown] = stack.back();
            stack.pop_back();
            ASSERT_LT(++steps, 100000u);
            if (x == d) continue;
            ASSERT_FALSE(hops.at(x).empty()) << "no route " << x << " -> " << d;
            for (ChannelId c : hops.at(x)) {
              const bool up = updown.isUp(c);
              ASSERT_FALSE(up && wentDown) << "up after down towards " << d;
              stack.emplace_back(view.targetSwitch(c), wentDown || !up);
            }
          }
        }
      }
    }
  }
}

// Each switch takes the mode of lower cost, ties down (updown.h): on a fabric where no switch
// has to be forced into down mode, every table route is a shortest legal up*/down* route,
// counted here by a breadth-first search over (switch, gone down yet) states. Root sw0 above
// sw1..sw4 (all at distance 1), chained sw1 - sw2 - sw3 - sw4 in rising rank: sw1 -> sw4 goes
// up through the root (2 hops), not down the chain (3); sw2 -> sw4 ties at 2 and goes down.
TEST(UpDown, RoutesAreTheShortestLegalOnesAndTiesGoDown) {
  const Network net = graphFabric(5, {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {2, 3}, {3, 4}});
  const SwitchView view(net, true);
  const UpDown updown(view, 0, SpanningTree::BreadthFirst);
  const std::uint32_t switches = view.switchCount();
  HopSets hops;
  for (std::uint32_t d = 0; d < switches; ++d) {
    updown.nextHops(d, hops);
    for (std::uint32_t x = 0; x < switches; ++x) {
      // Shortest legal route x -> d: up moves only before the first down move.
      std::vector<std::uint32_t> distance(2 * switches, UINT32_MAX);
      std::vector<std::uint32_t> queue{2 * x};
      distance[2 * x] = 0;
      std::uint32_t shortest = UINT32_MAX;
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t state = queue[head], at = state / 2;
        if (at == d) {
          shortest = std::min(shortest, distance[state]);
          continue;
        }
        for (ChannelId c : view.links(at)) {
          const bool up = updown.isUp(c);
          if (up && state % 2 == 1) continue;
          const std::uint32_t next = 2 * view.targetSwitch(c) + (up ? state % 2 : 1);
          if (distance[next] != UINT32_MAX) continue;
          distance[next] = distance[state] + 1;
          queue.push_back(next);
        }
      }
      // Every route the table offers from x, followed choice by choice, has that length.
      std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{x, 0}};  // (switch, hops so far)
      while (!stack.empty()) {
        const auto [at, length] = stack.back();
        stack.pop_back();
        if (at == d) {
          EXPECT_EQ(length, shortest) << "sw" << x << " -> sw" << d;
          continue;
        }
        ASSERT_LT(length, switches) << "sw" << x << " -> sw" << d;
        for (ChannelId c : hops.at(at)) stack.emplace_back(view.targetSwitch(c), length + 1);
      }
    }
  }
  const auto firstHops = [&](std::uint32_t x, std::uint32_t d) {
    updown.nextHops(d, hops);
    std::vector<std::uint32_t> targets;
    for (ChannelId c : hops.at(x)) targets.push_back(view.targetSwitch(c));
    return targets;
  };
  EXPECT_EQ(firstHops(1, 4), std::vector<std::uint32_t>{0});  // up: 2 hops beat the chain's 3
  EXPECT_EQ(firstHops(2, 4), std::vector<std::uint32_t>{3});  // 2 either way: down
}

TEST(Mroots, RootsMaximiseTheDistanceToEarlierRoots) {
  // A path sw0 - sw1 - sw2 - sw3 - sw4: roots sw0, then sw4 (distance 4), then sw2.
  const Network net = graphFabric(5, {{0, 1}, {1, 2}, {2, 3}, {3, 4}});
  const RoutingResult result = runEngine("d-mroots:layers=3", net);
  EXPECT_EQ(stat(result, "roots"), "sw0.sw4.sw2");
  EXPECT_EQ(result.layerCount(), 3u);
  EXPECT_EQ(result.tables.size(), 3u);
  // Even spread: every layer gets a third of the pairs, within one.
  std::map<int, int> perLayer;
  for (std::uint32_t source = 0; source < 5; ++source) {
    for (Address a = 0; a < 5; ++a) ++perLayer[result.layer(source, a).index()];
  }
  for (const auto& [layer, count] : perLayer) EXPECT_NEAR(count, 25.0 / 3.0, 1.0);
  const RoutingResult adaptive = runEngine("mroots:layers=3", net);
  ASSERT_FALSE(adaptive.allowedLayers.empty());
  EXPECT_EQ(adaptive.allowedLayers[0], 0b111);
  // Ties go to the lowest id: on a ring of 6 after sw0 and sw3 (distance 3) four switches lie
  // 1 from a root (sw1 is chosen), then sw2, sw4 and sw5 lie 1 from the roots (sw2).
  for (const std::string engine : {"mroots", "d-mroots"}) {
    EXPECT_EQ(stat(runEngine(engine + ":layers=4", ring(6)), "roots"), "sw0.sw3.sw1.sw2") << engine;
  }
}

// D-MROOTS's layer of a (source, address) pair is the documented spread (switch_view.h
// spreadLayers, Lysne §8.1): (source index + destination's source index + address offset)
// mod layers — with several addresses per terminal (LMC) too, whose offsets move a
// destination's second address to the next layer.
TEST(Mroots, DMrootsGivesEveryPairTheDocumentedLayer) {
  const Network net = ring(7);
  for (const std::uint32_t layers : {2U, 3U, 4U}) {
    for (const std::uint32_t perTerminal : {1U, 2U, 4U}) {
      RoutingContext context;
      context.addressesPerTerminal = perTerminal;
      const RoutingResult result = runEngine("d-mroots:layers=" + std::to_string(layers), net, context);
      const AddressMap& addresses = result.addresses;
      ASSERT_EQ(addresses.count(), 7U * perTerminal);
      for (std::uint32_t source = 0; source < 7; ++source) {
        for (Address a = 0; a < addresses.count(); ++a) {
          const std::uint32_t destination = addresses.sourceIndex(addresses.owner(a));
          const std::uint32_t offset = a - addresses.base(addresses.owner(a));
          EXPECT_EQ(result.layer(source, a).index(), (source + destination + offset) % layers)
              << layers << " layers, " << perTerminal << " addresses per terminal, source " << source << ", address "
              << a;
        }
      }
    }
  }
}

TEST(Lash, TreesAndCompleteGraphsNeedOneLayer) {
  // §5.2: minimal connectivity (a tree) and maximal connectivity need one layer.
  const Network tree = test::randomFabric(24, 23, 3);
  EXPECT_EQ(stat(runEngine("lash", tree), "layers_needed"), "1");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> all;
  for (std::uint32_t a = 0; a < 8; ++a) {
    for (std::uint32_t b = a + 1; b < 8; ++b) all.emplace_back(a, b);
  }
  const Network complete = graphFabric(8, all);
  for (const char* spec : {"lash", "lash:addressing=pair", "mp-lash", "a-lash"}) {
    EXPECT_EQ(stat(runEngine(spec, complete), "layers_needed"), "1") << spec;
  }
}

TEST(Lash, RingNeedsTwoLayersAndIsThenDeadlockFree) {
  const Network net = ring(8);
  const RoutingResult minhop = runEngine("minhop", net);
  EXPECT_FALSE(test::checkRouting(net, minhop).deadlockFree);  // the ring's cycle
  const RoutingResult lash = runEngine("lash", net);
  EXPECT_EQ(stat(lash, "layers_needed"), "2");
  const auto check = test::checkRouting(net, lash);
  EXPECT_TRUE(check.deadlockFree && check.connected && check.minimal) << check.problem;
}

TEST(Lash, FatTreeNeedsNoMoreLayersThanOpenSm) {
  // OpenSM 3.3.23 LASH: 3 layers on the 4-ary 3-tree, 8 on the 4-ary 4-tree (peers.md).
  const RoutingResult k4n3 = runEngine("lash", makeKaryNtree(4, 3));
  EXPECT_LE(std::stoi(stat(k4n3, "layers_needed")), 3);
  const RoutingResult k4n4 = runEngine("lash", makeKaryNtree(4, 4));
  EXPECT_LE(std::stoi(stat(k4n4, "layers_needed")), 8);
}

TEST(LashFamily, MaxLayersRoutesTheRestThroughAnUpDownLayer) {
  // §8.4 for LASH, MP-LASH and A-LASH: with too few layers, the routes that do not fit go
  // to one last layer routed by UpDown; every pair is still delivered, deadlock-free.
  const Network net = test::randomFabric(32, 64, 5);
  for (const char* engine : {"lash", "mp-lash", "a-lash"}) {
    const int needed = std::stoi(stat(runEngine(std::string(engine) + ":max-layers=0", net), "layers_needed"));
    ASSERT_GE(needed, 3) << engine;
  }
  const std::vector<std::pair<std::string, std::string>> cases = {{"lash:max-layers=2", "switch_pairs"},
                                                                  {"lash:max-layers=2,addressing=pair", "switch_pairs"},
                                                                  {"lash:max-layers=2,fit=suffix", "switch_pairs"},
                                                                  {"lash:max-layers=2,balance=true", "switch_pairs"},
                                                                  {"lash:max-layers=1", "switch_pairs"},
                                                                  {"mp-lash:max-layers=2", "paths"},
                                                                  {"mp-lash:max-layers=2,balance=true", "paths"},
                                                                  {"mp-lash:max-layers=1", "paths"},
                                                                  {"a-lash:max-layers=2", "groups"},
                                                                  {"a-lash:max-layers=2,balance=true", "groups"},
                                                                  {"a-lash:max-layers=1", "groups"}};
  for (const auto& [spec, unit] : cases) {
    SCOPED_TRACE(spec);
    const RoutingResult limited = runEngine(spec, net);
    const std::size_t maxLayers = spec.find("max-layers=1") != std::string::npos ? 1 : 2;
    EXPECT_EQ(limited.layerCount(), maxLayers);
    EXPECT_EQ(stat(limited, "updown_layer"), std::to_string(maxLayers - 1));
    EXPECT_GT(std::stoi(stat(limited, "updown_" + unit)), 0);
    // The budget cut first-fit short: layers_needed is only known to exceed it; the same
    // run with max-layers=0 (no budget) counts it.
    EXPECT_EQ(stat(limited, "layers_needed"), ">" + std::to_string(maxLayers));
    const std::string unbounded = spec.substr(0, spec.find("max-layers=")) + "max-layers=0" +
                                  spec.substr(spec.find("max-layers=") + std::string("max-layers=1").size());
    EXPECT_GT(std::stoul(stat(runEngine(unbounded, net), "layers_needed")), maxLayers);
    EXPECT_EQ(limited.tableOfLayer.back(), 1);
    EXPECT_EQ(limited.tables.size(), 2u);
    EXPECT_FALSE(limited.minimal);
    // Every allowed-layer set of a pair moved to UpDown is that layer alone (Theorem 3
    // sets never mix UpDown with first-fit layers).
    for (std::size_t i = 0; i < limited.allowedLayers.size(); ++i) {
      if (limited.layerOf[i] == maxLayers - 1 && maxLayers > 1) {
        EXPECT_EQ(limited.allowedLayers[i], 1U << (maxLayers - 1));
      }
      if (limited.layerOf[i] != RoutingResult::kNoLayer && limited.layerOf[i] < maxLayers - 1) {
        EXPECT_EQ(limited.allowedLayers[i] & (1U << (maxLayers - 1)), 0U);
      }
    }
    const auto check = test::checkRouting(net, limited);
    EXPECT_TRUE(check.connected && check.loopFree && check.deadlockFree) << check.problem;
  }
}

TEST(LashFamily, DefaultMaxLayersIsEightAsInfiniBandOffers) {
  // A-LASH needs more than 8 layers on random 128-switch fabrics at 2 links per switch
  // (docs/LAYERED.md); by default it then uses 7 first-fit layers and the UpDown layer.
  const Network net = test::randomFabric(128, 256, 1);
  const RoutingResult result = runEngine("a-lash", net);
  EXPECT_NE(result.engine.find("max-layers=8"), std::string::npos) << result.engine;
  ASSERT_GT(std::stoi(stat(runEngine("a-lash:max-layers=0", net), "layers_needed")), 8);
  EXPECT_EQ(stat(result, "layers_needed"), ">8");
  EXPECT_EQ(result.layerCount(), 8u);
  EXPECT_EQ(stat(result, "updown_layer"), "7");
  const auto check = test::checkRouting(net, result);
  EXPECT_TRUE(check.connected && check.loopFree && check.deadlockFree) << check.problem;
  for (const char* engine : {"lash", "mp-lash"}) {
    EXPECT_NE(runEngine(engine, net).engine.find("max-layers=8"), std::string::npos) << engine;
  }
  // One limit, kMaxLayers = 16, for every engine (tests/engines/test_layer_limit.cpp).
  EXPECT_THROW(runEngine("a-lash:max-layers=17", net), SpecError);
  EXPECT_THROW(runEngine("mp-lash:max-layers=17,balance=true", net), SpecError);
  EXPECT_THROW(runEngine("mp-lash:max-layers=17", net), SpecError);
  EXPECT_THROW(runEngine("lash:max-layers=17", net), SpecError);
  EXPECT_NO_THROW(runEngine("lash:max-layers=16", test::randomFabric(8, 12, 1)));
}

// minimalHops(d): at every switch s != d, exactly the switch-to-switch channels that bring a
// packet one hop closer to d, in port order; none at d. Recomputed from the network's own
// channels and a breadth-first search from d.
TEST(SwitchView, MinimalHopsAreEveryChannelOneHopCloser) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Network net = test::randomFabric(12, 24, seed);
    const SwitchView view(net, false);
    HopSets hops;
    for (std::uint32_t d = 0; d < view.switchCount(); ++d) {
      minimalHops(view, d, hops);
      const std::vector<std::uint32_t> distance = hopDistances(net, net.switchNode(d));
      ASSERT_EQ(hops.start.size(), view.switchCount() + 1);
      EXPECT_EQ(hops.start.front(), 0u);
      EXPECT_EQ(hops.start.back(), hops.channels.size());
      for (std::uint32_t s = 0; s < view.switchCount(); ++s) {
        std::vector<ChannelId> expected;
        if (s != d) {
          for (ChannelId c : net.outChannels(net.switchNode(s))) {
            const NodeId next = net.target(c);
            if (net.isSwitch(next) && distance[next.index()] + 1 == distance[net.switchNode(s).index()]) {
              expected.push_back(c);
            }
          }
        }
        const auto at = hops.at(s);
        EXPECT_EQ(std::vector<ChannelId>(at.begin(), at.end()), expected)
            << "seed " << seed << ", " << s << " -> " << d;
      }
    }
  }
}

namespace {

/// One route per ordered switch pair, destination by destination: the path through each
/// switch's first minimal hop (a pool for first-fit layering).
RoutePool firstMinimalPaths(const Network& net) {
  const SwitchView view(net, false);
  RoutePool pool;
  HopSets hops;
  for (std::uint32_t d = 0; d < view.switchCount(); ++d) {
    minimalHops(view, d, hops);
    for (std::uint32_t s = 0; s < view.switchCount(); ++s) {
      if (s == d) continue;
      std::vector<ChannelId> path;
      for (std::uint32_t x = s; x != d; x = view.targetSwitch(path.back())) path.push_back(hops.at(x)[0]);
      pool.addPath(path);
    }
  }
  return pool;
}

}  // namespace

TEST(RoutePool, EachAddReturnsTheIndexItsRouteIsReadBackBy) {
  // layering.h: addPath and addGroup return the route's index; channels(route) gives the
  // path's channels, or a group's dependencies as (from, to) channel pairs; isGroup tells which.
  RoutePool pool;
  const std::vector<ChannelId> first{ChannelId(4), ChannelId(9)};
  const std::vector<std::pair<ChannelId, ChannelId>> group{{ChannelId(1), ChannelId(2)}, {ChannelId(3), ChannelId(7)}};
  const std::vector<ChannelId> groupChannels{ChannelId(1), ChannelId(2), ChannelId(3), ChannelId(7)};
  const std::vector<ChannelId> last{ChannelId(5)};
  const std::vector<std::pair<ChannelId, ChannelId>> emptyGroup;
  EXPECT_EQ(pool.addPath(first), 0u);
  EXPECT_EQ(pool.addGroup(group), 1u);
  EXPECT_EQ(pool.addGroup(emptyGroup), 2u);
  EXPECT_EQ(pool.addPath(last), 3u);
  ASSERT_EQ(pool.size(), 4u);
  auto channelsOf = [&](std::uint32_t route) {
    const auto span = pool.channels(route);
    return std::vector<ChannelId>(span.begin(), span.end());
  };
  EXPECT_EQ(channelsOf(0), first);
  EXPECT_EQ(channelsOf(1), groupChannels);
  EXPECT_TRUE(channelsOf(2).empty());
  EXPECT_EQ(channelsOf(3), last);
  EXPECT_EQ(std::vector<bool>({pool.isGroup(0), pool.isGroup(1), pool.isGroup(2), pool.isGroup(3)}),
            std::vector<bool>({false, true, true, false}));
}

TEST(Layering, BudgetWithoutHintEqualsFirstFitCappedOneLayerBelow) {
  // assignLayersWithin cuts first-fit capped at maxLayers down to maxLayers - 1 layers
  // instead of re-running it capped there (layering.h); the two must agree route by route.
  const Network net = test::randomFabric(64, 112, 2);
  const RoutePool pool = firstMinimalPaths(net);
  const BudgetedLayers unlimited = assignLayersWithin(net, pool, 0, "test");
  ASSERT_GE(unlimited.needed, 4u);
  EXPECT_FALSE(unlimited.updownLayer);
  for (std::size_t maxLayers = 1; maxLayers <= unlimited.needed; ++maxLayers) {
    SCOPED_TRACE(maxLayers);
    const BudgetedLayers budgeted = assignLayersWithin(net, pool, maxLayers, "test");
    EXPECT_EQ(budgeted.updownLayer, maxLayers < unlimited.needed);
    EXPECT_LE(budgeted.layers(), maxLayers);
    if (!budgeted.updownLayer) {
      EXPECT_TRUE(budgeted.neededExact);
      EXPECT_EQ(budgeted.needed, unlimited.needed);
      EXPECT_EQ(budgeted.assignment.layerOf, unlimited.assignment.layerOf);
      continue;
    }
    EXPECT_FALSE(budgeted.neededExact);
    EXPECT_EQ(budgeted.neededText(), ">" + std::to_string(maxLayers));
    std::vector<std::uint8_t> capped(pool.size(), RoutingResult::kNoLayer);
    ChannelDependencyGraph cdg(net, 1);
    if (maxLayers > 1) capped = assignLayers(cdg, pool, maxLayers - 1).layerOf;
    EXPECT_EQ(budgeted.assignment.layerOf, capped);
    for (std::size_t layer = 0; layer + 1 < maxLayers; ++layer) {
      EXPECT_EQ(budgeted.cdg.dependencies(LayerId::fromIndex(layer)), cdg.dependencies(LayerId::fromIndex(layer)));
    }
    for (std::size_t layer = maxLayers - 1; layer < budgeted.cdg.layerCount(); ++layer) {
      EXPECT_EQ(budgeted.cdg.dependencyCount(LayerId::fromIndex(layer)), 0u);
    }
  }
  // No budget and more than kMaxLayers needed: tests/engines/test_layer_limit.cpp.
}

TEST(Layering, BudgetWithAHintEqualsFirstFitRerunOneLayerBelow) {
  // With a hint a route may go to a later layer than the first that fits, so a cut of the
  // capped run could lose routes the first maxLayers - 1 layers hold: assignLayersWithin
  // re-runs first-fit, hint included, capped at maxLayers - 1 (layering.h). (LASH's suffix
  // hints never tell the two apart — a path holds its suffix's dependencies, so it fits no
  // layer its suffix did not — hence hints to arbitrary earlier routes here.)
  const Network net = test::randomFabric(64, 112, 2);
  const RoutePool pool = firstMinimalPaths(net);
  std::vector<std::uint32_t> hint(pool.size(), UINT32_MAX);
  Rng rng(7);
  for (std::uint32_t route = 1; route < pool.size(); ++route)
    hint[route] = static_cast<std::uint32_t>(rng.below(route));
  const BudgetedLayers unlimited = assignLayersWithin(net, pool, 0, "test", hint);
  ASSERT_GE(unlimited.needed, 4u);
  bool cutDiffers = false;  // a cut of the wider run differs from the re-run somewhere
  for (std::size_t maxLayers = 1; maxLayers <= unlimited.needed; ++maxLayers) {
    SCOPED_TRACE(maxLayers);
    const BudgetedLayers budgeted = assignLayersWithin(net, pool, maxLayers, "test", hint);
    EXPECT_EQ(budgeted.updownLayer, maxLayers < unlimited.needed);
    EXPECT_LE(budgeted.layers(), maxLayers);
    if (!budgeted.updownLayer) {
      EXPECT_EQ(budgeted.assignment.layerOf, unlimited.assignment.layerOf);
      continue;
    }
    std::vector<std::uint8_t> rerun(pool.size(), RoutingResult::kNoLayer);
    if (maxLayers > 1) {
      ChannelDependencyGraph cdg(net, 1);
      rerun = assignLayers(cdg, pool, maxLayers - 1, hint).layerOf;
      ChannelDependencyGraph wider(net, 1);
      const std::vector<std::uint8_t> capped = assignLayers(wider, pool, maxLayers, hint).layerOf;
      for (std::uint32_t route = 0; route < pool.size(); ++route) {
        const std::uint8_t cut = capped[route] < maxLayers - 1 ? capped[route] : RoutingResult::kNoLayer;
        cutDiffers = cutDiffers || (maxLayers == 2 && cut != rerun[route]);
      }
    }
    EXPECT_EQ(budgeted.assignment.layerOf, rerun);
  }
  EXPECT_TRUE(cutDiffers) << "at 2 layers the cut and the re-run agree: the fixture cannot tell them apart";
}

TEST(Lash, LayersAreFirstFitInTheDocumentedPairOrder) {
  // §5.1 steps 2-3: each switch pair's path goes to the first layer whose dependency graph
  // stays acyclic, a new layer when none does; paths without dependencies go to layer 0.
  // Recomputed here from the paths read back from the tables, with a plain cycle check, in
  // the order each mode documents (docs/LAYERED.md): lash takes pairs source by source,
  // lash:fit=suffix destination by destination, nearest sources first (ties by switch),
  // so a path always follows its suffix pair (next switch -> destination).
  const Network net = test::randomFabric(32, 64, 8);
  std::map<std::uint32_t, std::uint32_t> terminalOfSwitch;
  for (std::uint32_t t = 0; t < net.terminals().size(); ++t) {
    terminalOfSwitch[net.target(net.injectionChannel(net.terminals()[t])).index()] = t;
  }
  for (const bool suffix : {false, true}) {
    const std::string spec = suffix ? "lash:fit=suffix,max-layers=0" : "lash:max-layers=0";
    SCOPED_TRACE(spec);
    const RoutingResult result = runEngine(spec, net);
    ASSERT_GE(result.layerCount(), 3u);
    const SwitchPairRoutes pairs = switchPairRoutes(net, result);
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> index;  // (source, destination) switch
    auto switchOf = [&](std::uint32_t terminal) {
      return net.target(net.injectionChannel(net.terminals()[terminal])).index();
    };
    for (std::size_t i = 0; i < pairs.routes.size(); ++i) {
      index[{switchOf(pairs.routes[i].source), switchOf(pairs.routes[i].destination)}] = i;
    }
    std::vector<std::size_t> order;
    for (const auto& [key, i] : index) order.push_back(i);  // source switch, then destination switch
    if (suffix) {
      std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        const auto& a = pairs.routes[x];
        const auto& b = pairs.routes[y];
        const auto da = switchOf(a.destination), db = switchOf(b.destination);
        return da != db ? da < db : a.channels.size() < b.channels.size();
      });
    }
    std::vector<std::set<std::pair<std::uint32_t, std::uint32_t>>> layers;
    std::size_t differing = 0;
    for (const std::size_t i : order) {
      const auto& route = pairs.routes[i];
      const auto own = dependenciesOf(route.channels);
      std::size_t layer = 0;
      while (!own.empty()) {
        if (layer == layers.size()) layers.emplace_back();
        if (!hasCycle(layers[layer], own)) break;
        ++layer;
      }
      if (!own.empty()) layers[layer].insert(own.begin(), own.end());
      if (route.layer != layer && ++differing <= 5) {
        ADD_FAILURE() << "terminal " << route.source << " -> " << route.destination << ": layer " << route.layer
                      << ", first fit " << layer;
      }
      if (suffix && route.channels.size() >= 2) {
        const auto next = terminalOfSwitch.at(net.target(route.channels[0]).index());
        const auto& suffixRoute = pairs.routes[index.at({switchOf(next), switchOf(route.destination)})];
        EXPECT_GE(route.layer, suffixRoute.layer) << "a layer that refused the suffix refuses the path";
      }
    }
    EXPECT_EQ(differing, 0u);
    EXPECT_EQ(layers.size(), result.layerCount());
  }
}

TEST(Lash, AddressModes) {
  const Network net = test::randomFabric(12, 24, 9, 2);
  const RoutingResult destination = runEngine("lash", net);
  EXPECT_EQ(destination.addresses.count(), net.terminalCount());
  const RoutingResult pair = runEngine("lash:addressing=pair", net);
  EXPECT_EQ(pair.addresses.count(), net.terminalCount() * 12);  // one per source switch
  // Per pair: a source sends only to its own switch's addresses.
  std::size_t sending = 0;
  for (std::uint32_t source = 0; source < pair.addresses.owners().size(); ++source) {
    for (Address a = 0; a < pair.addresses.count(); ++a) sending += pair.sends(source, a) ? 1 : 0;
  }
  EXPECT_EQ(sending, net.terminalCount() * net.terminalCount());
  RoutingContext lmc;
  lmc.addressesPerTerminal = 2;
  EXPECT_THROW(runEngine("lash:addressing=pair", net, lmc), SpecError);
  EXPECT_THROW(runEngine("lash:addressing=tree", net), SpecError);
  EXPECT_THROW(runEngine("escape:layers=1", net), SpecError);
}

TEST(Lash, BalancingEvensOutLayersAndIsDeterministic) {
  const Network net = test::randomFabric(32, 64, 8);
  const RoutingResult plain = runEngine("lash", net);
  const RoutingResult balanced = runEngine("lash:balance=true", net);
  EXPECT_EQ(plain.layerCount(), balanced.layerCount());
  auto spread = [&](const RoutingResult& r) {
    std::map<int, int> count;
    for (std::uint8_t l : r.layerOf) ++count[l];
    int low = INT32_MAX, high = 0;
    for (const auto& [l, c] : count) {
      low = std::min(low, c);
      high = std::max(high, c);
    }
    return high - low;
  };
  EXPECT_LE(spread(balanced), spread(plain));
  EXPECT_EQ(runEngine("lash:balance=true", net).layerOf, balanced.layerOf);
  EXPECT_TRUE(test::checkRouting(net, balanced).deadlockFree);
}

TEST(ALash, AddressesPerFirstLinkAndTheorem3LayerSets) {
  const Network net = test::randomFabric(16, 32, 4);
  const RoutingResult result = runEngine("a-lash:balance=true", net);
  ASSERT_FALSE(result.allowedLayers.empty());
  EXPECT_FALSE(result.deterministic);
  for (std::size_t i = 0; i < result.layerOf.size(); ++i) {
    if (result.layerOf[i] == RoutingResult::kNoLayer) continue;
    EXPECT_TRUE(result.allowedLayers[i] & (1U << result.layerOf[i]));
  }
  const auto check = test::checkRouting(net, result);
  EXPECT_TRUE(check.connected && check.loopFree && check.deadlockFree) << check.problem;
}

// The refusal names the first switch of the first two components (in switch order) by a
// terminal on it, or by its own name when it carries none, and counts the ordered endpoint
// pairs (terminals; with switch traffic, switches too) in different components:
// sum over components of e * (total - e).
TEST(Engines, DisconnectedFabricsNameAnUnreachablePair) {
  const std::vector<const char*> engines = {"minhop", "updown", "lash", "mp-lash", "a-lash", "escape", "mroots"};
  auto refusal = [](const char* engine, const Network& net, bool routeSwitches) {
    RoutingContext context;
    context.routeSwitches = routeSwitches;
    return test::thrownMessage<RoutingError>([&] { runEngine(engine, net, context); }, "routed");
  };
  // Components {sw0, sw1, sw2} and {sw3}, a terminal on each switch: 3 x 1 + 1 x 3 = 6 terminal
  // pairs; with the switches as endpoints 6 x 2 + 2 x 6 = 24.
  const Network uneven = graphFabric(4, {{0, 1}, {1, 2}});
  // sw0 alone with h0; sw1 (no terminal) cabled to sw2 (h2). Terminal pairs 1 x 1 + 1 x 1 = 2;
  // with switches 2 x 3 + 3 x 2 = 12, and sw1 is the second component's first switch.
  NetworkBuilder builder;
  const NodeId s0 = builder.addSwitch("sw0", 4), s1 = builder.addSwitch("sw1", 4), s2 = builder.addSwitch("sw2", 4);
  builder.connect(builder.addTerminal("h0"), 1, s0, 1);
  builder.connect(builder.addTerminal("h2"), 1, s2, 1);
  builder.connect(s1, 2, s2, 2);
  const Network bare = builder.build();
  for (const char* engine : engines) {
    SCOPED_TRACE(engine);
    std::string message = refusal(engine, uneven, false);
    EXPECT_TRUE(message.ends_with("no path from terminal 'h0' to terminal 'h3' (6 ordered endpoint pairs unreachable)"))
        << message;
    message = refusal(engine, bare, false);
    EXPECT_TRUE(message.ends_with("no path from terminal 'h0' to terminal 'h2' (2 ordered endpoint pairs unreachable)"))
        << message;
    message = refusal(engine, uneven, true);
    EXPECT_TRUE(
        message.ends_with("no path from terminal 'h0' to terminal 'h3' (24 ordered endpoint pairs unreachable)"))
        << message;
    message = refusal(engine, bare, true);
    EXPECT_TRUE(message.ends_with("no path from terminal 'h0' to switch 'sw1' (12 ordered endpoint pairs unreachable)"))
        << message;
  }
}

// A switch cabled to nothing (a spare in the rack) is not part of the fabric: it cannot be
// UpDown's root, and MROOTS never picks it, though it is the "farthest" switch from any root.
TEST(Engines, ASwitchCabledToNothingIsNoRoot) {
  NetworkBuilder builder;
  const NodeId a = builder.addSwitch("sw0", 4), b = builder.addSwitch("sw1", 4);
  builder.addSwitch("spare", 4);
  builder.connect(a, 3, b, 3);
  builder.connect(builder.addTerminal("h0"), 1, a, 1);
  builder.connect(builder.addTerminal("h1"), 1, b, 1);
  const Network net = builder.build();
  try {
    runEngine("updown:root=spare", net);
    ADD_FAILURE() << "a switch cabled to nothing was taken as the root";
  } catch (const RoutingError& e) {
    EXPECT_EQ(std::string(e.what()), "option 'root': switch 'spare' is not connected to the terminals");
  }
  const RoutingResult mroots = runEngine("mroots:layers=3", net);
  const std::string roots = stat(mroots, "roots");
  EXPECT_FALSE(roots.empty());
  EXPECT_EQ(roots.find("spare"), std::string::npos) << roots;
  const auto check = test::checkRouting(net, mroots);
  EXPECT_TRUE(check.connected && check.deadlockFree) << check.problem;
}

TEST(Engines, UpDownRootOption) {
  const Network net = ring(6);
  const RoutingResult result = runEngine("updown:root=sw3", net);
  EXPECT_EQ(stat(result, "root"), "sw3");
  EXPECT_EQ(result.engine, "updown:root=sw3");
  EXPECT_THROW(runEngine("updown:root=nosuch", net), SpecError);
}
