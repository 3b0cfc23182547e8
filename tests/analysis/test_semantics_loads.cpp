// The semantics test, loads half (issue 8 item 1; paths and dependencies are in
// tests/engines/test_semantics.cpp): for every registered engine on a k-ary n-tree, a
// T(n+m, r) and a random irregular fabric, the preferred paths enumerated hop by hop from the
// routing-semantics core (routing/semantics.h) are exactly the analysis' pair paths
// (PairPaths), and the first-path loads of a random permutation and of all pairs counted
// along them are exactly patternLoads' and stagePathCounts'.
#include <gtest/gtest.h>

#include "analysis/loads.h"
#include "analysis/paths.h"
#include "analysis/stages.h"
#include "core/errors.h"
#include "engines/fabrics.h"
#include "engines/hop_walk.h"
#include "engines/registry.h"
#include "topology/xgft.h"
#include "traffic/pattern.h"

using namespace routelab;

TEST(SemanticsLoads, EveryEngineHopByHopMatchesPairPathsAndLoads) {
  std::vector<std::pair<std::string, Network>> fabrics;
  fabrics.emplace_back("kary-ntree:k=2,n=3", makeKaryNtree(2, 3));
  fabrics.emplace_back("gft2:n=3,m=2,r=4", makeGft2(3, 2, 4));
  fabrics.emplace_back("random:10x20", test::randomFabric(10, 20, 31));
  std::size_t compared = 0;
  for (const auto& [name, network] : fabrics) {
    const TrafficPattern permutation = makePattern("random-permutation", network, 7);
    for (const auto& row : engineRegistry().rows()) {
      if (row.name == "file") continue;
      SCOPED_TRACE(row.name + " on " + name);
      RoutingResult routing;
      try {
        routing = runEngine(row.name, network);
      } catch (const UnsupportedTopology&) {
        continue;
      }
      const RoutingSemantics semantics(network, routing);
      const PairPaths paths = PairPaths::build(network, routing, 2);
      std::vector<ChannelId> channels;
      std::vector<std::uint64_t> allPairs(network.channelCount(), 0);
      const std::size_t n = network.terminalCount();
      for (std::uint32_t s = 0; s < n; ++s) {
        for (std::uint32_t d = 0; d < n; ++d) {
          if (s == d) continue;
          const NodeId source = network.terminalNode(s), destination = network.terminalNode(d);
          ASSERT_EQ(test::hopByHop(semantics, source, routing.addressFor(source, destination), channels),
                    PathStatus::Delivered);
          const auto stored = paths.path(s, d);
          ASSERT_EQ(stored.size(), channels.size());
          for (std::size_t i = 0; i < channels.size(); ++i) ASSERT_EQ(stored[i], channels[i].value);
          for (ChannelId c : channels) ++allPairs[c.index()];
        }
      }
      std::vector<double> expected(network.channelCount(), 0.0);
      for (const auto& [s, d] : permutation.pairs) {
        const NodeId source = network.terminalNode(s), destination = network.terminalNode(d);
        test::hopByHop(semantics, source, routing.addressFor(source, destination), channels);
        for (ChannelId c : channels) expected[c.index()] += 1.0;
      }
      EXPECT_EQ(patternLoads(network, routing, permutation, LoadModel::FirstPath).load, expected);
      if (network.xgft() != nullptr) {
        EXPECT_EQ(stagePathCounts(network, routing, 2).pathsPerChannel, allPairs);
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 20u);
}
