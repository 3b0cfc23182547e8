// Verifier (verify/verify.h) and the dependency graph of a routing (cdg/from_routing.h):
// hand-made routings with known defects, exhaustive agreement with per-pair walks, the
// Duato check of escape routings, SL tables.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

#include "cdg/from_routing.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "io/sl_table.h"
#include "verify/verify.h"

using namespace routelab;

namespace {

/// Ring of n switches s0..s(n-1): port 1 -> next switch's port 2; terminal t_i on s_i port 3.
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

/// Clockwise ring routing: terminal addresses 0..n-1 (terminal i), then switch addresses.
RoutingResult clockwise(const Network& net, bool switchAddresses) {
  RoutingResult r;
  r.engine = "clockwise";
  r.addresses = AddressMap::build(net, 1, switchAddresses);
  const std::size_t n = net.switchCount();
  r.tables.emplace_back(n, r.addresses.count());
  for (std::uint32_t s = 0; s < n; ++s) {
    for (Address a = 0; a < r.addresses.count(); ++a) {
      const NodeId owner = r.addresses.owner(a);
      const std::uint32_t target = net.isSwitch(owner) ? net.switchIndex(owner) : net.terminalIndex(owner);
      if (net.isSwitch(owner) && owner == net.switchNode(s))
        r.tables[0].set(s, a, kSelfPort);
      else
        r.tables[0].set(s, a, target == s && net.isTerminal(owner) ? 3 : 1);
    }
  }
  return r;
}

/// Shortest-path routing of ring(4): one hop either way, two-hop pairs clockwise.
RoutingResult ringShortest(const Network& net) {
  RoutingResult r;
  r.engine = "ring-shortest";
  r.addresses = AddressMap::build(net, 1, false);
  r.tables.emplace_back(4, r.addresses.count());
  for (std::uint32_t s = 0; s < 4; ++s) {
    for (Address a = 0; a < r.addresses.count(); ++a) {
      const std::uint32_t steps = (net.terminalIndex(r.addresses.owner(a)) + 4 - s) % 4;
      r.tables[0].set(s, a, steps == 0 ? 3 : steps == 3 ? 2 : 1);  // 1 clockwise, 2 back
    }
  }
  r.minimal = true;
  return r;
}

using DependencySet = std::set<std::pair<std::uint32_t, std::uint32_t>>;

/// Brute force: the dependencies of every in-scope pair's walk, per layer, and the number of
/// routes walked and delivered. A source walks to the addresses it uses for each of its paths to a
/// destination (RoutingResult::addressFor, the one documented way from a pair to addresses):
/// with source classes (S-mod-k) only its class's offsets, otherwise every address of the block.
struct WalkedDependencies {
  std::vector<DependencySet> layers;
  std::uint64_t routes = 0, delivered = 0;
};

WalkedDependencies walkDependencies(const Network& net, const RoutingResult& r, bool switchTraffic) {
  WalkedDependencies walked;
  walked.layers.resize(r.layerCount());
  std::vector<ChannelId> path;
  for (NodeId source : r.addresses.owners()) {
    if (net.isSwitch(source) && !switchTraffic) continue;
    const std::uint32_t si = r.addresses.sourceIndex(source);
    for (NodeId destination : r.addresses.owners()) {
      if (destination == source || (net.isSwitch(destination) && !switchTraffic)) continue;
      std::set<Address> used;
      for (std::uint32_t p = 0; p < r.pathCount(destination); ++p) used.insert(r.addressFor(source, destination, p));
      for (Address a : used) {
        if (!r.sends(si, a)) continue;
        ++walked.routes;
        const LayerId layer = r.layer(si, a);
        if (r.walk(net, source, a, layer, path) != PathStatus::Delivered) continue;
        ++walked.delivered;
        for (std::size_t k = 0; k + 1 < path.size(); ++k) {
          walked.layers[layer.index()].emplace(path[k].value, path[k + 1].value);
        }
      }
    }
  }
  return walked;
}

DependencySet held(const ChannelDependencyGraph& graph, std::size_t layer) {
  DependencySet result;
  for (auto [from, to] : graph.dependencies(LayerId::fromIndex(layer))) result.emplace(from.value, to.value);
  return result;
}

}  // namespace

TEST(Verify, ClockwiseRingIsConnectedButDeadlockProne) {
  const Network net = ring(4);
  const RoutingResult r = clockwise(net, false);
  const VerifyResult v = verifyRouting(net, r);
  EXPECT_TRUE(v.connected);
  EXPECT_TRUE(v.loopFree);
  EXPECT_FALSE(v.deadlockFree);
  EXPECT_EQ(v.routes, 12u);  // 4 x 3 terminal pairs
  EXPECT_EQ(v.delivered, 12u);
  ASSERT_TRUE(v.cycleLayer.has_value());
  // Dally-Seitz: the witness is the ring itself, the 4 clockwise channels.
  ASSERT_EQ(v.cycle.size(), 4u);
  for (ChannelId c : v.cycle) EXPECT_EQ(net.sourcePort(c), 1);
  EXPECT_EQ(v.cycleChannels.size(), 4u);
  EXPECT_NE(v.cycleText.find(" => "), std::string::npos);
  EXPECT_FALSE(v.passed());
}

TEST(Verify, CuttingTheRingRemovesTheCycleButDisconnects) {
  // Drop every route through s3 -> s0 (s3's entries for t0, t1, t2): the remaining
  // dependencies form a chain, so the routing is deadlock-free but not connected.
  const Network net = ring(4);
  RoutingResult r = clockwise(net, false);
  for (Address a = 0; a < 3; ++a) r.tables[0].set(3, a, kNoRoute);
  const VerifyResult v = verifyRouting(net, r);
  EXPECT_FALSE(v.connected);
  EXPECT_TRUE(v.loopFree);
  EXPECT_TRUE(v.deadlockFree);  // the remaining dependencies form a chain
  // Sources s1, s2, s3 to t0, s2, s3 to t1, s3 to t2 traverse s3 and have no route: 6.
  EXPECT_EQ(v.noRoute, 6u);
  EXPECT_EQ(v.delivered, 6u);
  ASSERT_FALSE(v.failures.empty());
  EXPECT_EQ(v.failures.front().status, "no route");
  EXPECT_EQ(v.failures.front().where, "s3");
}

TEST(Verify, OneUndeliveredRouteMakesTheFabricNotConnected) {
  // s0's entry for t3 (one hop counter-clockwise) is used by t0 -> t3 alone: clearing it
  // breaks exactly one of the 12 routes.
  const Network net = ring(4);
  RoutingResult r = ringShortest(net);
  const VerifyResult before = verifyRouting(net, r);
  ASSERT_TRUE(before.connected);
  EXPECT_EQ(before.routes, 12u);
  r.tables[0].set(0, r.addresses.base(net.terminalNode(3)), kNoRoute);
  const VerifyResult after = verifyRouting(net, r);
  EXPECT_EQ(after.routes, 12u);
  EXPECT_EQ(after.delivered, 11u);
  EXPECT_EQ(after.noRoute, 1u);
  EXPECT_FALSE(after.connected);
  EXPECT_FALSE(after.passed());
}

TEST(Verify, LoopsAndDeadPortsAreCaught) {
  const Network net = ring(3);
  RoutingResult r = clockwise(net, false);
  // Address 0 (t0): s0 sends it on to s1 instead of delivering: s0->s1->s2->s0 loops.
  r.tables[0].set(0, 0, 1);
  // Address 1 (t1): s0 names port 7, beyond its 3 ports: a dead port.
  r.tables[0].set(0, 1, 7);
  const VerifyResult v = verifyRouting(net, r);
  EXPECT_FALSE(v.loopFree);
  EXPECT_FALSE(v.connected);
  EXPECT_EQ(v.loops, 2u);      // t1 and t2 to t0
  EXPECT_EQ(v.deadPorts, 2u);  // t0 (s0) and t2 (via s0) to t1
  bool sawLoop = false;
  for (const auto& f : v.failures) sawLoop |= f.status == "loop";
  EXPECT_TRUE(sawLoop);
  // Every failure in full: who, to whom, the LIDs (terminal i has LID i + 1), and where the walk
  // of the preferred ports stopped: at the dead port's switch, or for a loop at a switch on the
  // cycle (RoutingResult::path; here every switch is on it), saying so.
  std::set<std::string> failures;
  for (const auto& f : v.failures) {
    std::string where = f.where;
    if (f.status == "loop") {
      const std::string suffix = " (preferred ports cycle)";
      ASSERT_TRUE(where.ends_with(suffix)) << where;
      where = where.substr(0, where.size() - suffix.size());
      EXPECT_TRUE(where == "s0" || where == "s1" || where == "s2") << where;
      where = "the cycle";
    }
    failures.insert(fmt::format("{} ({}) -> {} ({}) layer {}: {} at {}", f.source, f.sourceLid, f.destination,
                                f.destinationLid, f.layer, f.status, where));
  }
  EXPECT_EQ(failures, (std::set<std::string>{
                          "t1 (2) -> t0 (1) layer 0: loop at the cycle",
                          "t2 (3) -> t0 (1) layer 0: loop at the cycle",
                          "t0 (1) -> t1 (2) layer 0: dead port at s0",
                          "t2 (3) -> t1 (2) layer 0: dead port at s0",
                      }));
}

TEST(Verify, UnroutedSwitchPairsAreReportedApart) {
  const Network net = ring(3);
  RoutingResult r = clockwise(net, true);
  // Switch s1's address (3 + 1 = 4) is not routed from s0: a switch-to-switch gap (and the
  // terminal t0 behind s0 loses it too, which is a real failure).
  const Address s1 = r.addresses.base(net.switchNode(1));
  r.tables[0].set(0, s1, kNoRoute);
  VerifyOptions options;
  const VerifyResult terminalsOnly = verifyRouting(net, r, options);
  EXPECT_TRUE(terminalsOnly.connected);  // switch addresses are out of scope
  EXPECT_EQ(terminalsOnly.routes, 6u);
  options.switchTraffic = true;
  const VerifyResult all = verifyRouting(net, r, options);
  EXPECT_EQ(all.routes, 6u * 5u);          // 6 address owners, every ordered pair
  EXPECT_EQ(all.unroutedSwitchPairs, 2u);  // s0 -> s1 and s2 -> s1 (via s0)
  EXPECT_EQ(all.noRoute, 2u);              // t0 -> s1 and t2 -> s1 (via s0)
  EXPECT_EQ(all.delivered, 26u);
  EXPECT_FALSE(all.connected);
  ASSERT_EQ(all.unroutedSwitchExamples.size(), 2u);
  EXPECT_EQ(all.unroutedSwitchExamples[0].destination, "s1");
  EXPECT_EQ(all.unroutedSwitchExamples[0].status, "no route");
}

TEST(Verify, SwitchTrafficNeedsSwitchAddresses) {
  const Network net = ring(3);
  VerifyOptions options;
  options.switchTraffic = true;
  EXPECT_THROW(verifyRouting(net, clockwise(net, false), options), AnalysisError);
}

// The per-destination traversal yields exactly the dependencies, routes and deliveries of the
// per-pair walks: irregular engines, and on the fat tree destination-based and source-dependent
// (S-mod-k: each source uses only its class's addresses; C = w_2 ... w_h classes, four on the
// 2-ary 3-tree and two, the fewest that divide a block, on the 2-ary 2-tree) tables, with one
// address per terminal and with four (LMC 2).
TEST(Verify, DependenciesEqualThoseOfEveryPairWalk) {
  struct Case {
    const char* spec;
    std::vector<const char*> engines;
  };
  const Case cases[] = {
      {"random:switches=12,seed=2", {"minhop", "updown", "lash", "d-mroots:layers=3"}},
      {"random:switches=16,seed=1", {"minhop", "updown", "lash", "d-mroots:layers=3"}},
      {"kary-ntree:k=2,n=3", {"minhop", "updown", "lash", "d-mroots:layers=3", "dmodk", "smodk"}},
      {"kary-ntree:k=2,n=2", {"smodk"}},
  };
  for (const Case& c : cases) {
    const Fabric fabric = loadFabric(c.spec);
    for (const char* engine : c.engines) {
      for (bool switchTraffic : {false, true}) {
        for (std::uint32_t addresses : {1U, 4U}) {
          const std::string what =
              fmt::format("{} {} switch traffic {} addresses {}", c.spec, engine, switchTraffic, addresses);
          RoutingContext context;
          context.routeSwitches = switchTraffic;
          context.addressesPerTerminal = addresses;
          const RoutingResult r = runEngine(engine, fabric.network, context);
          TrafficScope scope;
          scope.switchTraffic = switchTraffic;
          const RoutingDependencies deps = buildRoutingDependencies(fabric.network, r, scope);
          const WalkedDependencies expected = walkDependencies(fabric.network, r, switchTraffic);
          ASSERT_EQ(deps.graph.layerCount(), expected.layers.size()) << what;
          for (std::size_t layer = 0; layer < expected.layers.size(); ++layer) {
            EXPECT_EQ(held(deps.graph, layer), expected.layers[layer]) << what << " layer " << layer;
          }
          EXPECT_EQ(deps.routes, expected.routes) << what;
          EXPECT_EQ(deps.delivered, expected.delivered) << what;
        }
      }
    }
  }
}

TEST(Verify, MinhopOnRandomFabricHasAWitnessMadeOfRealDependencies) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  const RoutingResult r = runEngine("minhop", fabric.network);
  const VerifyResult v = verifyRouting(fabric.network, r);
  EXPECT_TRUE(v.connected);
  EXPECT_FALSE(v.deadlockFree);
  ASSERT_FALSE(v.cycle.empty());
  const auto walked = walkDependencies(fabric.network, r, false).layers[0];
  for (std::size_t i = 0; i < v.cycle.size(); ++i) {
    const auto& next = v.cycle[(i + 1) % v.cycle.size()];
    EXPECT_TRUE(walked.count({v.cycle[i].value, next.value})) << v.cycleText;
  }
}

TEST(Verify, DeadlockFreeEnginesPass) {
  for (const char* spec : {"random:switches=16,seed=1", "random:switches=24,seed=5"}) {
    const Fabric fabric = loadFabric(spec);
    for (const char* engine : {"updown", "updown-dfs", "lash", "mroots:layers=3", "escape", "a-lash", "mp-lash"}) {
      const VerifyResult v = verifyRouting(fabric.network, runEngine(engine, fabric.network));
      EXPECT_TRUE(v.passed()) << spec << " " << engine << ": " << v.cycleText;
    }
  }
}

// Duato (Lysne Theorem 4): an escape layer whose extended dependency graph is cyclic fails.
TEST(Verify, EscapeLayerWithCyclicRoutingFailsDuato) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  RoutingResult r = runEngine("escape", fabric.network);
  ASSERT_GE(r.escapeLayer, 0);
  const VerifyResult good = verifyRouting(fabric.network, r);
  EXPECT_TRUE(good.deadlockFree);
  EXPECT_NE(good.method.find("Duato"), std::string::npos);
  // Replace the escape table by minhop's: connected, but its dependencies are cyclic.
  const RoutingResult minhop = runEngine("minhop", fabric.network);
  ASSERT_EQ(minhop.addresses.count(), r.addresses.count());
  r.tables.push_back(minhop.tables[0]);
  r.tableOfLayer[static_cast<std::size_t>(r.escapeLayer)] = static_cast<std::uint16_t>(r.tables.size() - 1);
  const VerifyResult bad = verifyRouting(fabric.network, r);
  EXPECT_TRUE(bad.connected);
  EXPECT_FALSE(bad.deadlockFree);
  ASSERT_TRUE(bad.cycleLayer.has_value());
  EXPECT_EQ(*bad.cycleLayer, static_cast<std::size_t>(r.escapeLayer));
}

// The escape layer may be any layer, the first included (RoutingResult::escapeLayer: "or
// -1"): the escape engine's routing with its two layers swapped (escape layer 0, the adaptive
// layer 1) is the same routing and passes by Duato's method on layer 0; without an escape
// layer the adaptive layer's cycle fails it (Lysne Theorem 2 checks every layer).
TEST(Verify, AnEscapeLayerAtIndexZeroIsTheEscapeLayer) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  RoutingResult r = runEngine("escape", fabric.network);  // layers 0 adaptive, 1 escape
  ASSERT_EQ(r.escapeLayer, 1);
  ASSERT_EQ(r.layerCount(), 2u);
  const VerifyResult original = verifyRouting(fabric.network, r);
  ASSERT_TRUE(original.passed());
  std::swap(r.tableOfLayer[0], r.tableOfLayer[1]);
  for (std::uint8_t& layer : r.layerOf) layer = layer == 0 ? 1 : layer == 1 ? 0 : layer;
  for (std::uint16_t& mask : r.allowedLayers)
    mask = static_cast<std::uint16_t>((mask & ~3U) | (mask & 1U) << 1 | (mask & 2U) >> 1);
  r.escapeLayer = 0;
  const VerifyResult swapped = verifyRouting(fabric.network, r);
  EXPECT_TRUE(swapped.passed()) << swapped.cycleText;
  EXPECT_NE(swapped.method.find("Duato: extended dependency graph of escape layer 0"), std::string::npos)
      << swapped.method;
  ASSERT_EQ(swapped.dependencies.size(), 2u);
  EXPECT_EQ(swapped.dependencies[0], original.dependencies[1]);
  EXPECT_EQ(swapped.dependencies[1], original.dependencies[0]);
  r.escapeLayer = -1;
  const VerifyResult noEscape = verifyRouting(fabric.network, r);
  EXPECT_FALSE(noEscape.deadlockFree);
  EXPECT_EQ(noEscape.cyclicLayers, (std::vector<std::size_t>{1}));
}

// Duato (Lysne Theorem 4) has two conditions: the escape layer's extended dependency graph is
// acyclic AND the escape layer delivers from every switch a packet can reach. Break only the
// second: the escape layer's entry for one destination is cleared at one switch that the
// adaptive channels reach. Every layer stays acyclic; the verdict must still be "not proven".
TEST(Verify, EscapeLayerThatCannotDeliverFromAReachableSwitchFailsDuato) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  const Network& net = fabric.network;
  RoutingResult r = runEngine("escape", net);
  ASSERT_GE(r.escapeLayer, 0);
  const std::size_t escape = static_cast<std::size_t>(r.escapeLayer);
  // A private copy of the escape table (the other layers keep theirs).
  r.tables.push_back(r.tables[r.tableOfLayer[escape]]);
  r.tableOfLayer[escape] = static_cast<std::uint16_t>(r.tables.size() - 1);
  const NodeId destination = net.terminalNode(0);
  const Address a = r.addresses.base(destination);
  const NodeId destinationSwitch = net.target(net.injectionChannel(destination));
  // The switch of another terminal: every packet from that terminal starts there.
  NodeId cleared;
  for (std::uint32_t t = 1; t < net.terminalCount() && !cleared.valid(); ++t) {
    const NodeId leaf = net.target(net.injectionChannel(net.terminalNode(t)));
    if (leaf != destinationSwitch) cleared = leaf;
  }
  ASSERT_TRUE(cleared.valid());
  r.tables.back().set(net.switchIndex(cleared), a, kNoRoute);
  const VerifyResult v = verifyRouting(net, r);
  // Counted by brute force: the switches a packet to `a` can reach from any other terminal's
  // switch over every layer's candidates, and of them those whose escape-table walk does not
  // end at the destination. Only `a` lost an entry, so no other address fails.
  std::vector<bool> reached(net.nodeCount(), false);
  std::vector<NodeId> queue;
  for (std::uint32_t t = 0; t < net.terminalCount(); ++t) {
    const NodeId leaf = net.target(net.injectionChannel(net.terminalNode(t)));
    if (net.terminalNode(t) == destination || reached[leaf.index()]) continue;
    reached[leaf.index()] = true;
    queue.push_back(leaf);
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    for (const ForwardingTable& table : r.tables) {
      for (PortNumber port : table.candidates(net.switchIndex(queue[head]), a)) {
        const ChannelId c = port == 0 ? ChannelId() : net.channelAt(queue[head], port);
        if (!c.valid() || !net.isSwitch(net.target(c)) || reached[net.target(c).index()]) continue;
        reached[net.target(c).index()] = true;
        queue.push_back(net.target(c));
      }
    }
  }
  std::uint64_t undelivered = 0;
  for (const NodeId start : queue) {
    NodeId at = start;
    std::vector<bool> seen(net.nodeCount(), false);
    while (net.isSwitch(at) && !seen[at.index()]) {
      seen[at.index()] = true;
      const PortNumber port = r.tables.back().port(net.switchIndex(at), a);
      const ChannelId c = port == kNoRoute || port == 0 ? ChannelId() : net.channelAt(at, port);
      if (!c.valid()) break;
      at = net.target(c);
    }
    if (at != destination) ++undelivered;
  }
  EXPECT_TRUE(reached[cleared.index()]);
  EXPECT_GT(undelivered, 0u);
  EXPECT_EQ(v.escapeFailures, undelivered);
  EXPECT_TRUE(v.cyclicLayers.empty()) << "only the delivery condition is broken";
  EXPECT_FALSE(v.deadlockFree);
  EXPECT_FALSE(v.passed());
}

// Lysne Theorem 2 (Defs. 11-12): deadlock-free when every layer's dependency graph is
// acyclic, each pair's dependencies counted in every layer it may be injected in. On a ring
// of four switches with shortest-path routing (two-hop pairs clockwise), the four two-hop
// paths close the ring's cycle in one layer; split by the parity of their source switch, no
// layer holds more than two of them; allowing two of them in both layers closes it again.
TEST(Verify, LayersBreakTheRingCycleAndAnAllowedLayerClosesItAgain) {
  const Network net = ring(4);
  RoutingResult r = ringShortest(net);
  const VerifyResult one = verifyRouting(net, r);
  EXPECT_TRUE(one.connected);
  EXPECT_FALSE(one.deadlockFree);
  EXPECT_EQ(one.cyclicLayers, std::vector<std::size_t>{0});

  // Two layers: a two-hop pair from an odd switch goes to layer 1.
  r.tableOfLayer = {0, 0};
  const std::size_t addresses = r.addresses.count();
  r.layerOf.assign(r.addresses.owners().size() * addresses, 0);
  auto pairIndex = [&](std::uint32_t source, std::uint32_t destination) {
    const std::uint32_t si = r.addresses.sourceIndex(net.terminalNode(source));
    return static_cast<std::size_t>(si) * addresses + r.addresses.base(net.terminalNode(destination));
  };
  for (std::uint32_t i = 0; i < 4; ++i) r.layerOf[pairIndex(i, (i + 2) % 4)] = static_cast<std::uint8_t>(i % 2);
  const VerifyResult two = verifyRouting(net, r);
  EXPECT_TRUE(two.passed()) << two.cycleText;
  EXPECT_EQ(two.layersUsed, 2u);

  // A-LASH-style allowed sets: t0 -> t2 and t2 -> t0 may also use layer 1, where the two
  // odd paths already are: layer 1 holds all four, the cycle is back.
  r.allowedLayers.assign(r.layerOf.size(), 0);
  for (std::size_t k = 0; k < r.layerOf.size(); ++k)
    r.allowedLayers[k] = static_cast<std::uint16_t>(1U << r.layerOf[k]);
  r.allowedLayers[pairIndex(0, 2)] = 0b11;
  r.allowedLayers[pairIndex(2, 0)] = 0b11;
  const VerifyResult allowed = verifyRouting(net, r);
  EXPECT_TRUE(allowed.connected);
  EXPECT_FALSE(allowed.deadlockFree);
  EXPECT_EQ(allowed.cyclicLayers, std::vector<std::size_t>{1});
  // One of them alone does not close it.
  r.allowedLayers[pairIndex(2, 0)] = 0b01;
  EXPECT_TRUE(verifyRouting(net, r).deadlockFree);
}

TEST(Verify, ResultsDoNotDependOnTheThreadCount) {
#ifdef ROUTELAB_HAVE_OPENMP
  // Large enough to run in parallel (512 destinations x 640 sources and switches).
  const Fabric fabric = loadFabric("random:switches=128,terminals=4,seed=4");
  const RoutingResult r = runEngine("minhop", fabric.network);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const RoutingDependencies one = buildRoutingDependencies(fabric.network, r);
  omp_set_num_threads(4);
  const RoutingDependencies four = buildRoutingDependencies(fabric.network, r);
  omp_set_num_threads(threads);
  EXPECT_EQ(held(one.graph, 0), held(four.graph, 0));
  EXPECT_EQ(one.graph.findCycle(LayerId(0)), four.graph.findCycle(LayerId(0)));
  EXPECT_EQ(one.routes, four.routes);
  EXPECT_GT(held(one.graph, 0).size(), 1000u);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

TEST(SlTable, ParsesAndAssignsLayersPerPair) {
  const Network net = ring(3);
  const RoutingResult r = clockwise(net, false);
  // LIDs are address + 1: t0 = 1, t1 = 2, t2 = 3.
  const SlTable table = parseSlTable("# slid dlid sl\n1 2 0\n1 3 1\n2 1 0\n2 3 0\n3 1 2\n3 2 0\n", "test.txt");
  ASSERT_EQ(table.entries.size(), 6u);
  const RoutingResult layered = applySlTable(net, r, table, false);
  EXPECT_EQ(layered.layerCount(), 3u);
  EXPECT_EQ(layered.layer(0, 2), LayerId(1));
  EXPECT_EQ(layered.layer(2, 0), LayerId(2));
  // One layer: the clockwise 3-ring is cyclic (2-hop routes cover all 3 ring turns).
  EXPECT_FALSE(verifyRouting(net, r).deadlockFree);
  // Layer 0 keeps the 1-hop routes and t1 -> t0 (s1 s2 s0) and t2 -> t1 (s2 s0 s1): the
  // turns s1s2 -> s2s0 and s2s0 -> s0s1 only; the turn s0s1 -> s1s2 (of t0 -> t2) is in
  // layer 1 alone: acyclic per layer (Lysne Theorem 2).
  const VerifyResult v = verifyRouting(net, layered);
  EXPECT_TRUE(v.connected);
  EXPECT_EQ(v.layers, 3u);
  EXPECT_TRUE(v.deadlockFree) << v.cycleText;
}

TEST(SlTable, ValuesAtTheFormatsLimits) {
  // SL 15 (the 4-bit field's largest) gives 16 layers; LID 0xBFFF (the last unicast LID)
  // is read; one past each is refused naming the line.
  const SlTable table = parseSlTable("49151 1 15\n1 49151 0\n", "limits.txt");
  ASSERT_EQ(table.entries.size(), 2u);
  EXPECT_EQ(table.entries[0].slid, 49151u);
  EXPECT_EQ(table.entries[0].sl, 15);
  EXPECT_EQ(table.entries[1].dlid, 49151u);
  const Network net = ring(2);
  const RoutingResult r = clockwise(net, false);  // LIDs 1 and 2
  const RoutingResult layered = applySlTable(net, r, parseSlTable("1 2 15\n2 1 0\n", "sl15.txt"), false);
  EXPECT_EQ(layered.layerCount(), 16u);
  EXPECT_EQ(layered.layer(0, 1), LayerId(15));
  const VerifyResult v = verifyRouting(net, layered);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.highestLayer, 15);
  for (const char* beyond : {"1 2 16\n", "49152 1 0\n", "1 49152 0\n"}) {
    try {
      parseSlTable(std::string("1 2 0\n") + beyond, "beyond.txt");
      ADD_FAILURE() << beyond;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("beyond.txt:2"), std::string::npos) << e.what();
    }
  }
}

TEST(SlTable, ErrorsNameFileAndLine) {
  const Network net = ring(3);
  const RoutingResult r = clockwise(net, false);
  try {
    parseSlTable("1 2 0\n1 2\n", "f.txt");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_NE(std::string(e.what()).find("f.txt:2"), std::string::npos);
  }
  EXPECT_THROW(parseSlTable("1 2 16\n", "f.txt"), ParseError);
  EXPECT_THROW(parseSlTable("1 x 1\n", "f.txt"), ParseError);
  // Numbers beyond their type are named with their range, never printed as floating point.
  auto message = [](const std::string& text) {
    try {
      parseSlTable(text, "f.txt");
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("1 2 4294967297\n"), "f.txt:1: SL 4294967297 is out of range 0..15");
  EXPECT_EQ(message("1 2 16\n"), "f.txt:1: SL 16 is out of range 0..15");
  EXPECT_EQ(message("1 99999999999999999999 1\n"), "f.txt:1: dlid 99999999999999999999 is out of range 1..49151");
  EXPECT_EQ(message("49152 2 1\n"), "f.txt:1: slid 49152 is out of range 1..49151");
  EXPECT_EQ(message("1 2 -1\n"), "f.txt:1: SL '-1' is not a decimal number");
  EXPECT_EQ(message("1 2 1e3\n"), "f.txt:1: SL '1e3' is not a decimal number");
  EXPECT_EQ(message("0 2 1\n"), "f.txt:1: LID 0 is not a valid LID");
  // Unknown LID, pair listed twice with another SL, a missing pair.
  EXPECT_THROW(applySlTable(net, r, parseSlTable("1 9 0\n", "f.txt"), false), ParseError);
  EXPECT_THROW(applySlTable(net, r, parseSlTable("1 2 0\n1 2 1\n", "f.txt"), false), ParseError);
  try {
    applySlTable(net, r, parseSlTable("1 2 0\n", "f.txt"), false);
    FAIL();
  } catch (const AnalysisError& e) {
    EXPECT_NE(std::string(e.what()).find("no SL for pair slid 1 dlid 3"), std::string::npos) << e.what();
  }
}
