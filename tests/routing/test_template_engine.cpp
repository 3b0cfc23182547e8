// The template engine (engines/template_engine.cpp), run through its registry row as the
// registry would run it: every pair delivered on a shortest path, each hop the lowest (or,
// with prefer=highest, the highest) minimal port, option and fabric errors by name.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "engines/template_engine.h"
#include "fabric/fabric.h"
#include "graph/algorithms.h"
#include "graph/builder.h"
#include "test_support.h"

using namespace routelab;

namespace {

RoutingResult runTemplate(const std::string& body, const Network& network, const RoutingContext& context = {}) {
  const auto row = templateEngineRow();
  ComponentSpec spec = parseComponent(body.empty() ? row.name : row.name + ":" + body);
  const Options options(row.name, row.options, spec);
  RoutingResult result = row.factory(options)(network, context);
  result.engine = options.effective();
  return result;
}

/// Every ordered terminal pair: delivered, as many hops as the BFS distance, and at every
/// switch the extreme (lowest or highest) port among the ports one hop closer.
void expectShortestExtremePorts(const Network& network, const RoutingResult& result, bool highest) {
  for (NodeId destination : network.terminals()) {
    const auto distance = hopDistances(network, destination);
    for (NodeId source : network.terminals()) {
      if (source == destination) continue;
      for (std::uint32_t k = 0; k < result.pathCount(destination); ++k) {
        const Path path = result.path(network, source, result.addressFor(source, destination, k));
        ASSERT_EQ(path.status, PathStatus::Delivered) << network.name(source) << " -> " << network.name(destination);
        ASSERT_EQ(path.channels.size(), distance[source.index()]);
        for (std::size_t hop = 1; hop + 1 < path.channels.size(); ++hop) {
          const ChannelId taken = path.channels[hop];
          const NodeId at = network.source(taken);
          for (ChannelId other : network.outChannels(at)) {
            if (distance[network.target(other).index()] + 1 != distance[at.index()]) continue;
            if (highest) {
              EXPECT_LE(network.sourcePort(other), network.sourcePort(taken)) << network.describeChannel(taken);
            } else {
              EXPECT_GE(network.sourcePort(other), network.sourcePort(taken)) << network.describeChannel(taken);
            }
          }
        }
      }
    }
  }
}

}  // namespace

TEST(TemplateEngine, RoutesEveryPairOnShortestPathsThroughTheLowestMinimalPort) {
  for (const std::string spec : {"kary-ntree:k=2,n=3", "random:switches=12,links=24,seed=3", "xgft:h=2,m=3.2,w=1.3"}) {
    SCOPED_TRACE(spec);
    const Network network = loadFabric(spec).network;
    const RoutingResult lowest = runTemplate("", network);
    EXPECT_EQ(lowest.engine, "shortest-lowest-port:prefer=lowest");
    EXPECT_TRUE(lowest.minimal);
    EXPECT_TRUE(lowest.deterministic);
    EXPECT_EQ(lowest.layerCount(), 1u);
    expectShortestExtremePorts(network, lowest, false);
    expectShortestExtremePorts(network, runTemplate("prefer=highest", network), true);
  }
}

TEST(TemplateEngine, PreferenceChangesTheTablesWhereSeveralPortsAreMinimal) {
  // On a 2-ary 2-tree a leaf has two up ports to reach the other leaf: lowest takes 3, highest 4.
  const Network network = loadFabric("kary-ntree:k=2,n=2").network;
  const RoutingResult lowest = runTemplate("", network), highest = runTemplate("prefer=highest", network);
  const NodeId source = network.terminals().front(), destination = network.terminals().back();
  const Address a = lowest.addressFor(source, destination);
  const std::uint32_t leaf = network.switchIndex(network.target(network.injectionChannel(source)));
  EXPECT_EQ(lowest.table().port(leaf, a), 3);
  EXPECT_EQ(highest.table().port(leaf, a), 4);
  // Called directly without the flag, the engine is what its name says: the lowest port.
  EXPECT_EQ(routeShortestLowestPort(network, RoutingContext{}).table().port(leaf, a), 3);
}

TEST(TemplateEngine, EveryLmcAddressAndSwitchAddressIsRouted) {
  const Network network = loadFabric("random:switches=8,links=12,seed=2").network;
  const RoutingResult result = runTemplate("", network, {4, true, 1});
  EXPECT_EQ(result.addresses.count(), network.terminalCount() * 4 + network.switchCount());
  expectShortestExtremePorts(network, result, false);
  for (NodeId target : network.switches()) {
    const Address a = result.addresses.base(target);
    for (NodeId source : network.terminals()) {
      EXPECT_EQ(result.path(network, source, a).status, PathStatus::Delivered);
    }
    EXPECT_EQ(result.table().port(network.switchIndex(target), a), kSelfPort);
  }
}

TEST(TemplateEngine, BadOptionAndDisconnectedFabricAreRefusedByName) {
  const Network network = loadFabric("kary-ntree:k=2,n=2").network;
  EXPECT_EQ(test::thrownMessage<SpecError>([&] { runTemplate("prefer=middle", network); }),
            "shortest-lowest-port: prefer=middle (expected lowest or highest)");
  NetworkBuilder builder;
  const NodeId a = builder.addSwitch("a", 2), b = builder.addSwitch("b", 2);
  builder.connect(builder.addTerminal("ha"), 1, a, 1);
  builder.connect(builder.addTerminal("hb"), 1, b, 1);
  const Network islands = builder.build();
  try {
    runTemplate("", islands);
    FAIL() << "no exception";
  } catch (const RoutingError& e) {
    EXPECT_STREQ(e.what(), "shortest-lowest-port: fabric is disconnected: no path from 'hb' to 'ha'");
  }
}
