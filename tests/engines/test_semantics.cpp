// The semantics test (issue 8 item 1): for every registered engine (the registry's rows, so a
// new engine is covered without editing this file; an engine may skip a fabric only with
// UnsupportedTopology) on a small k-ary n-tree, a T(n+m, r), a random irregular fabric, the
// same with two failed links, and an imported OpenSM dump, the hop-by-hop choices of the
// routing-semantics core (routing/semantics.h) produce exactly
//   * the paths: the first-choice enumeration of every (terminal, terminal, LMC path) equals
//     RoutingResult::path, and route's checks (checkRouting) count the same pairs walked and
//     delivered, the same longest path and the same paths per channel (fat-tree stages);
//   * the channel dependencies, per layer: the exhaustive enumeration of every choice sequence
//     of every traffic pair (tests/engines/routing_check.h) builds the same dependency set as
//     the verifier's traversal (buildRoutingDependencies) and reaches the same verdict.
// The loads the analysis reports are compared in tests/analysis/test_semantics_loads.cpp.
// Also: validate() names the broken invariant, and the hop rules of escape and allowed-layer
// routings on hand-made results.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "fabrics.h"
#include "hop_walk.h"
#include "routing/checks.h"
#include "routing/semantics.h"
#include "routing_check.h"
#include "test_support.h"
#include "topology/xgft.h"

using namespace routelab;
using routelab::test::twoSwitches;

namespace {

struct Case {
  std::string name;
  Network network;
  std::vector<std::string> engines;  ///< empty: every registered engine but `file`
};

std::vector<Case> cases() {
  std::vector<Case> all;
  all.push_back({"kary-ntree:k=2,n=3", makeKaryNtree(2, 3), {}});
  all.push_back({"gft2:n=3,m=2,r=4", makeGft2(3, 2, 4), {}});
  all.push_back({"random:10x20", test::randomFabric(10, 20, 31), {}});
  all.push_back({"random:10x20+2 failed links", test::withoutLinks(test::randomFabric(10, 20, 31), 2, 5), {}});
  const std::string dir = test::sourceDir() + "/tests/data/opensm/k4n2/";
  all.push_back(
      {"opensm k4n2",
       loadFabric("file:" + dir + "ibnetdiscover.txt").network,
       {"file:" + dir + "lfts.minhop.dump", "file:" + dir + "lfts.updn.dump", "file:" + dir + "lfts.ftree.dump"}});
  return all;
}

/// Paths: hop-by-hop first choices == RoutingResult::path, and checkRouting's counts.
void comparePaths(const Network& network, const RoutingResult& routing) {
  const RoutingSemantics semantics(network, routing);
  std::vector<ChannelId> channels;
  std::uint64_t pairs = 0, delivered = 0;
  std::uint32_t maxHops = 0;
  std::vector<std::uint64_t> perChannel(network.channelCount(), 0);
  for (NodeId source : network.terminals()) {
    for (NodeId destination : network.terminals()) {
      if (source == destination) continue;
      for (std::uint32_t path = 0; path < routing.pathCount(destination); ++path) {
        const Address a = routing.addressFor(source, destination, path);
        const PathStatus status = test::hopByHop(semantics, source, a, channels);
        const Path expected = routing.path(network, source, a, semantics.injectionLayer(source, a));
        ASSERT_EQ(status, expected.status) << network.name(source) << " -> " << network.name(destination);
        ASSERT_EQ(channels, expected.channels) << network.name(source) << " -> " << network.name(destination);
        ++pairs;
        if (status != PathStatus::Delivered) continue;
        ++delivered;
        maxHops = std::max(maxHops, static_cast<std::uint32_t>(channels.size()));
        if (path == 0) {
          for (ChannelId c : channels) ++perChannel[c.index()];
        }
      }
    }
  }
  RoutingCheckOptions options;
  options.terminalToSwitch = false;
  const RoutingCheckReport report = checkRouting(network, routing, options);
  EXPECT_EQ(report.terminalPairs, pairs);
  EXPECT_EQ(report.terminalPairsDelivered, delivered);
  EXPECT_EQ(report.maxHops, maxHops);
  if (network.xgft() != nullptr && delivered == pairs) {
    EXPECT_EQ(terminalPathsPerChannel(network, routing, 2), perChannel);
    const auto stages = groupByStage(network, perChannel);
    ASSERT_EQ(stages.size(), report.stages.size());
    for (const StageCount& stage : stages) {
      const auto same = std::find_if(report.stages.begin(), report.stages.end(), [&](const StageCount& other) {
        return other.lowerLevel == stage.lowerLevel && other.ascending == stage.ascending;
      });
      ASSERT_NE(same, report.stages.end());
      EXPECT_EQ(same->minPaths, stage.minPaths);
      EXPECT_EQ(same->maxPaths, stage.maxPaths);
      EXPECT_EQ(same->channels, stage.channels);
    }
  }
}

}  // namespace

TEST(Semantics, EveryEngineHopByHopMatchesPathsChecksAndDependencies) {
  std::size_t routed = 0, engines = 0;
  for (const Case& c : cases()) {
    std::vector<std::string> specs = c.engines;
    if (specs.empty()) {
      for (const auto& row : engineRegistry().rows()) {
        if (row.name != "file") specs.push_back(row.name);
      }
    }
    for (const std::string& spec : specs) {
      SCOPED_TRACE(spec + " on " + c.name);
      RoutingResult routing;
      try {
        routing = runEngine(spec, c.network);
      } catch (const UnsupportedTopology&) {
        continue;
      }
      ++routed;
      comparePaths(c.network, routing);
      const test::RoutingCheck check = test::checkRouting(c.network, routing);
      EXPECT_TRUE(check.agreesWithVerifier) << check.problem;
      EXPECT_GT(check.pairs, 0u);
    }
    engines = std::max(engines, specs.size());
  }
  EXPECT_GE(engines, 10u);  // the registry's engines were iterated
  EXPECT_GT(routed, 3 * engines);
}

TEST(Semantics, LmcAndSourceClassesAreInjectionChoices) {
  // smodk: one address per source class; every LMC path of every pair walked.
  const Network net = makeKaryNtree(4, 2);
  RoutingContext context;
  context.addressesPerTerminal = 2;
  for (const char* spec : {"smodk", "dmodk", "ftree-adaptive"}) {
    SCOPED_TRACE(spec);
    const RoutingResult routing = runEngine(spec, net, context);
    comparePaths(net, routing);
    EXPECT_TRUE(test::checkRouting(net, routing).agreesWithVerifier);
  }
}

namespace {

/// Two switches s0 - s1, one terminal each; `layers` layers sharing one table.
RoutingResult twoSwitchRouting(const Network& net, std::size_t layers) {
  RoutingResult r;
  r.addresses = AddressMap::build(net, 1, false);
  r.tables.emplace_back(net.switchCount(), r.addresses.count());
  r.tableOfLayer.assign(layers, 0);
  for (NodeId t : net.terminals()) {
    const Address a = r.addresses.base(t);
    const NodeId leaf = net.target(net.injectionChannel(t));
    for (NodeId s : net.switches()) {
      const PortNumber toward = s == leaf ? net.targetPort(net.injectionChannel(t)) : PortNumber{2};
      r.tables[0].set(net.switchIndex(s), a, toward);
    }
  }
  return r;
}

}  // namespace

// Per-pair addressing (LASH §5.1 step 2.1; MP-LASH, A-LASH): a destination owns one address
// per active switch (one with terminals), and a source sends to the one of its own switch —
// its source class is its switch's position among the active switches. The first terminal
// here hangs off the last switch of a line of three, so its class is 2, not 0: every pair's
// address must be one its source sends on, and its path delivered.
TEST(Semantics, PerPairAddressesFollowTheSourcesSwitchWhateverTheTerminalOrder) {
  NetworkBuilder b;
  const NodeId s0 = b.addSwitch("s0", 8), s1 = b.addSwitch("s1", 8), s2 = b.addSwitch("s2", 8);
  b.connect(s0, 7, s1, 7);
  b.connect(s1, 8, s2, 8);
  const NodeId first = b.addTerminal("t-on-s2");
  b.connect(first, 1, s2, 1);
  for (const auto& [name, leaf] : {std::pair{"t-on-s0", s0}, std::pair{"t-on-s1", s1}, std::pair{"u-on-s2", s2}}) {
    b.connect(b.addTerminal(name), 1, leaf, 2);
  }
  const Network net = b.build();
  ASSERT_EQ(net.terminalNode(0), first);
  for (const char* spec : {"lash:addressing=pair", "mp-lash", "a-lash"}) {
    SCOPED_TRACE(spec);
    const RoutingResult routing = runEngine(spec, net);
    ASSERT_EQ(routing.sourceClasses, 3U);
    for (const NodeId source : net.terminals()) {
      const std::uint32_t leaf = net.switchIndex(net.target(net.injectionChannel(source)));
      const std::uint32_t sourceIndex = routing.addresses.sourceIndex(source);
      EXPECT_EQ(routing.sourceClassOf[sourceIndex], leaf) << net.name(source);  // switches 0, 1, 2 all active
      for (const NodeId destination : net.terminals()) {
        if (destination == source) continue;
        const Address a = routing.addressFor(source, destination);
        ASSERT_TRUE(routing.sends(sourceIndex, a)) << net.name(source) << " -> " << net.name(destination);
        EXPECT_EQ(routing.path(net, source, a, routing.layer(sourceIndex, a)).status, PathStatus::Delivered)
            << net.name(source) << " -> " << net.name(destination);
      }
    }
  }
}

TEST(Semantics, EscapeChoicesOfferEveryLayerEscapeLast) {
  const Network net = twoSwitches();
  RoutingResult r = twoSwitchRouting(net, 3);
  r.escapeLayer = 0;
  const RoutingSemantics semantics(net, r);
  std::vector<HopChoice> choices(semantics.choiceCapacity());
  const Address a = r.addresses.base(net.terminalNode(1));
  const NodeId s0 = net.switchNode(0);
  const std::size_t n = semantics.hopChoices(s0, ChannelId(), a, LayerId(2), choices);
  ASSERT_EQ(n, 3u);
  EXPECT_EQ(choices[0], (HopChoice{2, LayerId(2)}));  // stay first
  EXPECT_EQ(choices[1], (HopChoice{2, LayerId(1)}));  // other adaptive layers
  EXPECT_EQ(choices[2], (HopChoice{2, LayerId(0)}));  // the escape layer last
  // Layered (no escape): only the packet's own layer.
  r.escapeLayer = -1;
  const RoutingSemantics layered(net, r);
  EXPECT_EQ(layered.hopChoices(s0, ChannelId(), a, LayerId(2), choices), 1u);
  EXPECT_EQ(choices[0], (HopChoice{2, LayerId(2)}));
  const HopStep step = layered.step(s0, a, 2);
  EXPECT_EQ(step.status, PathStatus::Delivered);
  EXPECT_FALSE(step.arrived);
  EXPECT_EQ(layered.step(s0, a, 3).status, PathStatus::DeadPort);
  EXPECT_EQ(layered.step(s0, a, 1).status, PathStatus::NoRoute);  // the wrong terminal
  EXPECT_EQ(layered.step(s0, a, 0).status, PathStatus::NoRoute);  // deliver here, at the wrong switch
}

TEST(Semantics, AllowedLayersAreInjectionChoicesAssignedFirst) {
  const Network net = twoSwitches();
  RoutingResult r = twoSwitchRouting(net, 3);
  const std::size_t pairs = r.addresses.owners().size() * r.addresses.count();
  r.layerOf.assign(pairs, 2);
  r.allowedLayers.assign(pairs, 0b101);
  r.layerOf[1] = RoutingResult::kNoLayer;  // t0 -> t1 carries no traffic
  const RoutingSemantics semantics(net, r);
  std::vector<LayerId> layers(r.layerCount());
  const NodeId t0 = net.terminalNode(0), t1 = net.terminalNode(1);
  EXPECT_EQ(semantics.injectionLayers(t0, r.addresses.base(t1), layers), 0u);
  ASSERT_EQ(semantics.injectionLayers(t1, r.addresses.base(t0), layers), 2u);
  EXPECT_EQ(layers[0], LayerId(2));
  EXPECT_EQ(layers[1], LayerId(0));
}

TEST(Semantics, ValidateNamesTheBrokenInvariant) {
  const Network net = twoSwitches();
  auto message = [&](const RoutingResult& r) {
    try {
      validate(net, r);
    } catch (const RoutingError& e) {
      return std::string(e.what());
    }
    return std::string("valid");
  };
  const RoutingResult good = twoSwitchRouting(net, 2);
  EXPECT_EQ(message(good), "valid");
  RoutingResult r = good;
  r.tableOfLayer[1] = 3;
  EXPECT_EQ(message(r), "layer 1 uses table 3 of 1");
  r = good;
  r.escapeLayer = 2;
  EXPECT_EQ(message(r), "escape layer 2 of 2 layers");
  r = good;
  r.tables[0] = ForwardingTable(1, r.addresses.count());
  EXPECT_NE(message(r).find("forwarding table 0 is 1 switches"), std::string::npos);
  r = good;
  r.layerOf.assign(3, 0);
  EXPECT_NE(message(r).find("layer assignment has 3 entries"), std::string::npos);
  r = good;
  r.layerOf.assign(4, 0);
  r.layerOf[1] = 5;
  EXPECT_NE(message(r).find("layer 5 but the routing has 2 layers"), std::string::npos);
  r.layerOf[1] = 2;  // one past the last layer, and the last layer itself (accepted)
  EXPECT_NE(message(r).find("layer 2 but the routing has 2 layers"), std::string::npos);
  r.layerOf[1] = 1;
  EXPECT_EQ(message(r), "valid");
  r.layerOf[1] = RoutingResult::kNoLayer;  // a pair that carries no traffic
  EXPECT_EQ(message(r), "valid");
  r = good;
  r.allowedLayers.assign(4, 0b100);
  EXPECT_NE(message(r).find("allowed layers 0x4 exceed the 2 layers"), std::string::npos);
  r = good;
  r.sourceClassOf.assign(1, 0);
  EXPECT_NE(message(r).find("source classes have 1 entries"), std::string::npos);
  r = good;
  r.sourceClasses = 3;
  r.addresses = AddressMap::build(net, 4, false);
  r.tables.assign(1, ForwardingTable(net.switchCount(), r.addresses.count()));
  EXPECT_EQ(message(r), "address block of 't0' has 4 addresses, not a multiple of the 3 source classes");
  r = good;
  r.tables.clear();
  EXPECT_EQ(message(r), "routing has no forwarding table");
}

TEST(Semantics, TerminalWithoutAddressIsAFailedPairEverywhere) {
  // The fabric's terminals are the ends, never the address map's owners.
  const Network net = twoSwitches();
  RoutingResult r;
  r.addresses = AddressMap::fromBlocks(net, {{net.terminalNode(0), 1}}, {});  // t1 has no address
  r.tables.emplace_back(net.switchCount(), 1);
  r.tables[0].set(0, 0, 1);
  r.tables[0].set(1, 0, 2);
  const RoutingCheckReport report = checkRouting(net, r);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.terminalPairs, 2u);
  EXPECT_EQ(report.terminalPairsDelivered, 0u);
  EXPECT_EQ(report.noAddress, 2u);
  const RoutingDependencies deps = buildRoutingDependencies(net, r);
  EXPECT_EQ(deps.noAddress, 2u);
  EXPECT_EQ(deps.routes, 2u);
  EXPECT_EQ(deps.delivered, 0u);
  ASSERT_FALSE(deps.failures.empty());
  EXPECT_EQ(deps.failures[0].status, PathStatus::NoAddress);
  EXPECT_THROW(terminalPathsPerChannel(net, r, 1), AnalysisError);
}

// choiceCapacity() is what hopChoices() can fill, no more: the longest candidate list of the
// packet's layer (any layer's), or, with an escape layer, of every layer added up. The
// simulator keeps that many candidates with each packet (sim/engine.h), so a loose bound
// costs it memory traffic on every hop.
TEST(Semantics, ChoiceCapacityIsTheLongestListHopChoicesCanFill) {
  const Network net = twoSwitches();
  RoutingResult r = twoSwitchRouting(net, 3);
  EXPECT_EQ(r.tables[0].maxCandidates(), 1u);
  EXPECT_EQ(RoutingSemantics(net, r).choiceCapacity(), 1u);  // one port an entry
  const std::vector<PortNumber> two{2, 3}, three{2, 3, 4};
  r.tables[0].setCandidates(0, 1, two);
  EXPECT_EQ(r.tables[0].maxCandidates(), 2u);
  EXPECT_EQ(RoutingSemantics(net, r).choiceCapacity(), 2u);
  r.escapeLayer = 0;  // every layer's entry, three layers sharing the table
  EXPECT_EQ(RoutingSemantics(net, r).choiceCapacity(), 6u);
  r.escapeLayer = -1;
  // Fat-trees: the k up ports of a k-ary n-tree are the longest list.
  const Network tree = makeKaryNtree(4, 3);
  EXPECT_EQ(RoutingSemantics(tree, runEngine("ftree-adaptive", tree, RoutingContext{})).choiceCapacity(), 4u);
  EXPECT_EQ(RoutingSemantics(tree, runEngine("dmodk", tree, RoutingContext{})).choiceCapacity(), 1u);
  // A table that gains a longer list after the semantics was built: refused, not overrun.
  const RoutingSemantics before(net, r);
  std::vector<HopChoice> choices(before.choiceCapacity());
  r.tables[0].setCandidates(0, 1, three);
  try {
    (void)before.hopChoices(net.switchNode(0), ChannelId(), 1, LayerId(0), choices);
    FAIL() << "a buffer of choiceCapacity() entries was overrun";
  } catch (const RoutingError& e) {
    EXPECT_NE(std::string(e.what()).find("hop choices need 3 entries, the buffer has 2"), std::string::npos)
        << e.what();
  }
}
