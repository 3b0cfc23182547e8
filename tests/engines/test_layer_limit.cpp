// The one layer limit, kMaxLayers = 16 (core/ids.h, docs/ARCHITECTURE.md "Layers"): every
// engine option refuses more, first-fit refuses at the route that would need a 17th layer
// (not after placing the rest), the channel dependency graph refuses a 17th layer before
// allocating it, and the verifier refuses a hand-built routing with 17 layers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <string>
#include <vector>

#include "cdg/cdg.h"
#include "core/errors.h"
#include "core/limits.h"
#include "engines/irregular/layering.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "verify/verify.h"

using namespace routelab;
using namespace routelab::irregular;

namespace {

std::string messageOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  return "(no exception)";
}

/// A switch `x` with 20 terminals: channel c_i = x -> t_i, d_i = t_i -> x.
Network star() {
  NetworkBuilder builder;
  const NodeId x = builder.addSwitch("x", 20);
  for (PortNumber port = 1; port <= 20; ++port)
    builder.connect(builder.addTerminal(fmt::format("t{}", port)), 1, x, port);
  return builder.build();
}

/// `count` (<= 20) routes that pairwise close a cycle, so first-fit needs one layer per
/// route: route i is the group {c_i -> d_i} ∪ {d_i -> c_k : k != i} on star(), and routes i
/// and j together hold c_i -> d_i -> c_j -> d_j -> c_i. Each alone is acyclic.
RoutePool pairwiseConflictingRoutes(const Network& network, std::size_t count) {
  std::vector<ChannelId> c, d;
  for (ChannelId channel : network.outChannels(*network.findNode("x"))) {
    c.push_back(channel);
    d.push_back(Network::reverse(channel));
  }
  RoutePool pool;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::pair<ChannelId, ChannelId>> dependencies{{c[i], d[i]}};
    for (std::size_t k = 0; k < count; ++k) {
      if (k != i) dependencies.emplace_back(d[i], c[k]);
    }
    pool.addGroup(dependencies);
  }
  return pool;
}

}  // namespace

TEST(LayerLimit, IsInfiniBandsSixteenServiceLevels) { EXPECT_EQ(kMaxLayers, 16u); }

TEST(LayerLimit, EveryLayerOptionRefusesMoreThanTheLimit) {
  const Network network = loadFabric("random:switches=8,links=16,seed=1").network;
  EXPECT_EQ(messageOf([&] { runEngine("lash:max-layers=17", network); }),
            "lash: option 'max-layers' must be in [0, 16], got 17");
  EXPECT_EQ(messageOf([&] { runEngine("mp-lash:max-layers=17", network); }),
            "mp-lash: option 'max-layers' must be in [0, 16], got 17");
  EXPECT_EQ(messageOf([&] { runEngine("a-lash:max-layers=17", network); }),
            "a-lash: option 'max-layers' must be in [0, 16], got 17");
  EXPECT_EQ(messageOf([&] { runEngine("mroots:layers=17", network); }),
            "mroots: option 'layers' must be in [1, 16], got 17");
  EXPECT_EQ(messageOf([&] { runEngine("escape:layers=17", network); }),
            "escape: option 'layers' must be in [2, 16], got 17");
  // The limit itself is allowed.
  EXPECT_NO_THROW(runEngine("lash:max-layers=16", network));
  EXPECT_NO_THROW(runEngine("mroots:layers=16", network));
}

TEST(LayerLimit, FirstFitRefusesAtTheRouteThatNeedsOneLayerTooMany) {
  const Network network = star();
  const RoutePool fits = pairwiseConflictingRoutes(network, 16);
  const BudgetedLayers sixteen = assignLayersWithin(network, fits, 0, "test-engine");
  EXPECT_EQ(sixteen.layers(), 16u);
  EXPECT_EQ(sixteen.neededText(), "16");

  // 20 routes: route 17 is the first that fits nowhere; the error comes there, naming the
  // engine, the layers needed and the limit.
  const RoutePool tooMany = pairwiseConflictingRoutes(network, 20);
  EXPECT_EQ(messageOf([&] { assignLayersWithin(network, tooMany, 0, "test-engine"); }),
            "test-engine: more than 16 layers needed (route 17 of 20 fits in none of 16 layers); at most 16 layers "
            "are supported (kMaxLayers, InfiniBand's service levels); set max-layers=1..16 to route the rest by "
            "UpDown in one more layer (Lysne §8.4)");
  // With a budget the same routes are routed: 15 first-fit layers and the UpDown layer.
  const BudgetedLayers budgeted = assignLayersWithin(network, tooMany, 16, "test-engine");
  EXPECT_TRUE(budgeted.updownLayer);
  EXPECT_EQ(budgeted.layers(), 16u);
  EXPECT_EQ(budgeted.updownRoutes(), 5u);
  EXPECT_EQ(messageOf([&] { assignLayersWithin(network, tooMany, 17, "test-engine"); }),
            "test-engine: max-layers=17 asked; at most 16 layers are supported (kMaxLayers)");
}

TEST(LayerLimit, ChannelDependencyGraphRefusesASeventeenthLayer) {
  const Network network = loadFabric("kary-ntree:k=2,n=2").network;
  ChannelDependencyGraph graph(network, kMaxLayers);
  EXPECT_EQ(graph.layerCount(), 16u);
  EXPECT_EQ(messageOf([&] { graph.addLayer(); }),
            "channel dependency graph: layer 17 requested; at most 16 layers are supported (kMaxLayers, "
            "InfiniBand's service levels)");
  EXPECT_EQ(graph.layerCount(), 16u);
  EXPECT_EQ(messageOf([&] { ChannelDependencyGraph(network, 17); }),
            "channel dependency graph: 17 layers requested; at most 16 are supported (kMaxLayers, InfiniBand's "
            "service levels)");
}

TEST(LayerLimit, VerifierRefusesAHandBuiltRoutingWithSeventeenLayers) {
  const Network network = loadFabric("random:switches=8,links=16,seed=1").network;
  RoutingResult routing = runEngine("lash", network);
  routing.layerOf.clear();  // every pair in layer 0 ...
  routing.tableOfLayer.assign(16, 0);
  EXPECT_NO_THROW(verifyRouting(network, routing));
  routing.tableOfLayer.assign(17, 0);  // ... of 17 layers sharing the one table
  EXPECT_EQ(messageOf([&] { verifyRouting(network, routing); }), "routing has 17 layers; 1..16 are supported");
}
