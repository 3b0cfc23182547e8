// Channel loads of the split models recomputed from what a flow must satisfy: each pair
// sends one unit, so every source's injection channel carries its number of pairs, every
// destination's ejection channel the number it receives, and — where every route of a
// pair is minimal, as the fat-tree engines' are — the loads over all channels add up to
// the pairs' hop counts, whichever way the pair's unit is split (docs/ANALYSIS.md, load
// models). Checked for the kept loads of best-split (Frank–Wolfe) and of even-split against
// first-path on the same patterns.
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <string>

#include "analysis/loads.h"
#include "analysis/split.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "traffic/pattern.h"

namespace routelab {
namespace {

TEST(RecomputedLoads, EverySplitModelCarriesAUnitFlowPerPair) {
  for (const std::string spec : {"kary-ntree:k=4,n=2", "kary-ntree:k=2,n=3", "gft2:n=3,m=2,r=3"}) {
    const Fabric fabric = loadFabric(spec);
    const Network& net = fabric.network;
    RoutingContext context;
    context.seed = 1;
    const RoutingResult routing = runEngine("ftree-adaptive", net, context);
    ASSERT_FALSE(isSinglePath(net, routing)) << spec;
    for (std::uint64_t seed : {1, 2, 3}) {
      const TrafficPattern pattern = makePattern("random-permutation", net, seed);
      std::map<std::uint32_t, double> sent, received;
      for (const auto& [s, d] : pattern.pairs) {
        sent[s] += 1;
        received[d] += 1;
      }
      const LinkLoads first = patternLoads(net, routing, pattern, LoadModel::FirstPath);
      const double hops = std::accumulate(first.load.begin(), first.load.end(), 0.0);
      for (LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
        const LinkLoads loads = patternLoads(net, routing, pattern, model);
        const std::string what = spec + " seed " + std::to_string(seed) + " " + loadModelName(model);
        EXPECT_NEAR(std::accumulate(loads.load.begin(), loads.load.end(), 0.0), hops, 1e-6) << what;
        for (std::uint32_t t = 0; t < net.terminalCount(); ++t) {
          const NodeId node = net.terminalNode(t);
          const ChannelId in = net.injectionChannel(node);
          EXPECT_NEAR(loads.load[in.index()], sent.count(t) ? sent[t] : 0.0, 1e-9) << what << " terminal " << t;
          EXPECT_NEAR(loads.load[net.reverse(in).index()], received.count(t) ? received[t] : 0.0, 1e-9)
              << what << " terminal " << t;
        }
      }
    }
  }
}

}  // namespace
}  // namespace routelab
