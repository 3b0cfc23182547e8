// Channel loads of the split models recomputed from what a flow must satisfy: each pair
// sends one unit, so every source's injection channel carries its number of pairs, every
// destination's ejection channel the number it receives, and — where every route of a
// pair is minimal, as the fat-tree engines' are — the loads over all channels add up to
// the pairs' hop counts, whichever way the pair's unit is split (docs/ANALYSIS.md, load
// models). Checked for the kept loads of best-split (Frank–Wolfe) and of even-split against
// first-path on the same patterns.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <numeric>
#include <string>

#include "analysis/loads.h"
#include "analysis/split.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "test_support.h"
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

// One pair with many distinct routes, each through every switch: a line of four switches
// joined by two parallel cables each, and 8 addresses per host, address p crossing the
// cable of bit i of p after switch i. Each of the 8 routes is one slot of the pair's route
// graph (4 states each, more than 4 x nodes + 4 together): the even split gives each route
// 1/8, i.e. 1/2 on each of the parallel channels, and first-path the all-zero bits' cables.
TEST(RecomputedLoads, APairWithManyDistinctRoutesThroughEverySwitchIsSplitEvenly) {
  const std::filesystem::path file = test::scratchDir() / "double-line.net";
  {
    std::ofstream out(file);
    for (int s = 0; s < 4; ++s) {  // port 1 host, ports 2-3 to s-1's 4-5, ports 4-5 to s+1's 2-3
      out << "Switch 5 \"s" << s << "\"\n";
      if (s == 0 || s == 3) out << "[1] \"h" << s / 3 << "\"[1]\n";
      if (s > 0) out << "[2] \"s" << s - 1 << "\"[4]\n[3] \"s" << s - 1 << "\"[5]\n";
      if (s < 3) out << "[4] \"s" << s + 1 << "\"[2]\n[5] \"s" << s + 1 << "\"[3]\n";
      out << "\n";
    }
    out << "Hca 1 \"h0\"\n[1] \"s0\"[1]\n\nHca 1 \"h1\"\n[1] \"s3\"[1]\n";
  }
  const Fabric fabric = loadFabric("net:" + file.string());
  const Network& net = fabric.network;
  ASSERT_EQ(net.switchCount(), 4U);
  ASSERT_EQ(net.terminalCount(), 2U);
  RoutingResult routing;
  routing.engine = "double-line";
  routing.addresses = AddressMap::build(net, 8, false);
  ForwardingTable table(net.switchCount(), routing.addresses.count());
  auto sw = [&](int s) { return *net.findNode("s" + std::to_string(s)); };
  for (std::uint32_t p = 0; p < 8; ++p) {
    const Address toH1 = routing.addresses.base(net.terminalNode(1)) + p;
    const Address toH0 = routing.addresses.base(net.terminalNode(0)) + p;
    for (int s = 0; s < 4; ++s) {
      const std::uint32_t index = net.switchIndex(sw(s));
      table.set(index, toH1, static_cast<PortNumber>(s == 3 ? 1 : 4 + (p >> s & 1U)));
      table.set(index, toH0, static_cast<PortNumber>(s == 0 ? 1 : 2 + (p >> (s - 1) & 1U)));
    }
  }
  routing.tables = {std::move(table)};
  ASSERT_EQ(routing.pathCount(net.terminalNode(1)), 8U);
  TrafficPattern pattern;
  pattern.spec = "h0-to-h1";
  pattern.terminals = 2;
  pattern.pairs = {{0, 1}};
  const LinkLoads first = patternLoads(net, routing, pattern, LoadModel::FirstPath);
  for (LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
    const LinkLoads loads = patternLoads(net, routing, pattern, model);
    for (int s = 0; s < 3; ++s) {
      for (PortNumber port : {4, 5}) {
        const ChannelId c = net.channelAt(sw(s), port);
        EXPECT_NEAR(loads.load[c.index()], 0.5, 1e-6) << loadModelName(model) << " s" << s << " port " << port;
        EXPECT_EQ(first.load[c.index()], port == 4 ? 1.0 : 0.0) << "s" << s << " port " << port;
      }
    }
    EXPECT_NEAR(loads.load[net.injectionChannel(net.terminalNode(0)).index()], 1.0, 1e-9);
  }
  // A loop in one of the routes (s1 sends address 5 back to s0, s0 sends it to s1) is refused.
  const Address looping = routing.addresses.base(net.terminalNode(1)) + 5;
  routing.tables[0].set(net.switchIndex(sw(1)), looping, 2);
  routing.tables[0].set(net.switchIndex(sw(0)), looping, 4);
  for (LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
    try {
      patternLoads(net, routing, pattern, model);
      ADD_FAILURE() << loadModelName(model) << ": a forwarding loop was analysed";
    } catch (const AnalysisError& e) {
      EXPECT_NE(std::string(e.what()).find("forwarding loop"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace routelab
