// Link loads of a pattern (Nienaber §II SDSET/ML), both load models, Gómez Fig. 3's
// per-stage path counts and §5.2.1's bit-reversal worst case.
#include <gtest/gtest.h>

#include "analysis/loads.h"
#include "analysis/stages.h"
#include "core/errors.h"
#include "hand_routing.h"

using namespace routelab;

namespace {

/// Adaptive T(n+m, r) routing: a leaf may send up through every top switch (first
/// candidate = D-mod-k's), as an adaptive engine would.
RoutingResult adaptiveGft2(const Network& net, std::uint32_t n, std::uint32_t m) {
  RoutingResult routing = test::handDmodk(net, n, m);
  routing.engine = "hand-adaptive";
  routing.deterministic = false;
  for (std::uint32_t d = 0; d < net.terminalCount(); ++d) {
    for (std::uint32_t leaf = 0; leaf < net.terminalCount() / n; ++leaf) {
      if (leaf == d / n) continue;
      std::vector<PortNumber> ports;
      for (std::uint32_t j = 0; j < m; ++j) ports.push_back(static_cast<PortNumber>(n + 1 + (d + j) % m));
      routing.tables[0].setCandidates(leaf, d, ports);
    }
  }
  return routing;
}

ChannelId channelBetween(const Network& net, const std::string& from, PortNumber port) {
  return net.channelAt(*net.findNode(from), port);
}

}  // namespace

TEST(LinkLoads, HotSpotLoadsTheChannelIntoTheHotTerminal) {
  const Network net = makeGft2(4, 2, 4);
  const RoutingResult routing = test::handDmodk(net, 4, 2);
  const TrafficPattern pattern = makePattern("hot-spot:target=5", net, 1);
  const LinkLoads loads = patternLoads(net, routing, pattern);
  EXPECT_EQ(loads.maxLoad, 15.0);
  EXPECT_EQ(loads.channelsAtMax, 1u);
  EXPECT_EQ(net.target(loads.maxChannel), net.terminalNode(5));
  EXPECT_EQ(loads.pairs, 15u);
  // 12 remote senders come down from top 5 mod 2 = 1 into leaf 1: one channel, load 12.
  EXPECT_EQ(loads.load[channelBetween(net, "gft-top1", 2).index()], 12.0);
  EXPECT_EQ(loads.load[channelBetween(net, "gft-top0", 2).index()], 0.0);
}

TEST(LinkLoads, ShiftOnDmodkByHand) {
  // T(2+2, 3), shift by 2: terminal i on leaf i/2 sends to i+2 on the next leaf, through
  // top (i+2) mod 2 = i mod 2. Each leaf-up channel carries exactly one pair.
  const Network net = makeGft2(2, 2, 3);
  const LinkLoads loads = patternLoads(net, test::handDmodk(net, 2, 2), makePattern("shift:s=2", net, 1));
  EXPECT_EQ(loads.maxLoad, 1.0);
  for (std::uint32_t leaf = 0; leaf < 3; ++leaf) {
    for (PortNumber up : {3, 4}) {
      EXPECT_EQ(loads.load[channelBetween(net, "gft-leaf" + std::to_string(leaf), up).index()], 1.0);
    }
  }
  double total = 0;
  for (double l : loads.load) total += l;
  EXPECT_EQ(total, 6.0 * 4);  // every pair: inject, up, down, deliver
}

TEST(LinkLoads, SplitModelDividesOverCandidates) {
  const Network net = makeGft2(2, 4, 3);
  const RoutingResult routing = adaptiveGft2(net, 2, 4);
  TrafficPattern pattern;
  pattern.terminals = net.terminalCount();
  pattern.spec = "by-hand";
  pattern.pairs = {{0, 2}, {1, 3}};  // leaf 0 -> leaf 1
  const LinkLoads first = patternLoads(net, routing, pattern, LoadModel::FirstPath);
  const LinkLoads split = patternLoads(net, routing, pattern, LoadModel::EvenSplit);
  EXPECT_EQ(first.maxLoad, 1.0);
  // First candidates: 2 mod 4 = top 2 and 3 mod 4 = top 3.
  EXPECT_EQ(first.load[channelBetween(net, "gft-leaf0", 2 + 1 + 2).index()], 1.0);
  for (PortNumber up = 3; up <= 6; ++up) {
    EXPECT_DOUBLE_EQ(split.load[channelBetween(net, "gft-leaf0", up).index()], 0.5);
  }
  for (std::uint32_t top = 0; top < 4; ++top) {
    EXPECT_DOUBLE_EQ(split.load[channelBetween(net, "gft-top" + std::to_string(top), 2).index()], 0.5);
  }
  EXPECT_EQ(split.maxLoad, 1.0);  // the terminal channels
  EXPECT_EQ(loadModelName(split.model), "even-split");
  // Deterministic routing: both models agree exactly.
  const RoutingResult deterministic = test::handDmodk(net, 2, 4);
  const TrafficPattern all = makePattern("all-to-all", net, 1);
  EXPECT_EQ(patternLoads(net, deterministic, all, LoadModel::EvenSplit).load,
            patternLoads(net, deterministic, all, LoadModel::FirstPath).load);
}

// ML's witnesses recounted from the per-channel loads: channelsAtMax is the number of channels
// whose load equals ML, maxChannel the smallest of them, and a pattern without pairs has
// neither. Ties at ML = 1 (a permutation without contention, and pairs split evenly over four
// up ports, whose injection and delivery channels carry all of it) and at ML = 5.
TEST(LinkLoads, ChannelsAtMaxAndMaxChannelAreRecountedFromTheLoads) {
  const Network net = makeGft2(2, 4, 3);
  const RoutingResult routing = adaptiveGft2(net, 2, 4);
  TrafficPattern none;
  none.terminals = net.terminalCount();
  none.spec = "by-hand";
  TrafficPattern crossing = none;
  crossing.pairs = {{0, 2}, {1, 3}};
  struct Case {
    std::string name;
    TrafficPattern pattern;
    LoadModel model;
    double maxLoad;
  };
  const std::vector<Case> cases = {
      {"shift, first path", makePattern("shift:s=2", net, 1), LoadModel::FirstPath, 1.0},
      {"crossing pairs, even split", crossing, LoadModel::EvenSplit, 1.0},
      {"all-to-all, even split", makePattern("all-to-all", net, 1), LoadModel::EvenSplit, 5.0},
      {"hot-spot, first path", makePattern("hot-spot:target=1", net, 1), LoadModel::FirstPath, 5.0},
      {"no pairs", none, LoadModel::FirstPath, 0.0},
  };
  std::size_t casesWithTies = 0;
  for (const Case& c : cases) {
    const LinkLoads loads = patternLoads(net, routing, c.pattern, c.model);
    EXPECT_EQ(loads.maxLoad, c.maxLoad) << c.name;
    std::size_t atMax = 0;
    ChannelId first;
    for (std::size_t ch = 0; ch < loads.load.size(); ++ch) {
      if (c.maxLoad == 0 || loads.load[ch] != c.maxLoad) continue;
      if (atMax++ == 0) first = ChannelId::fromIndex(ch);
    }
    EXPECT_EQ(loads.channelsAtMax, atMax) << c.name;
    EXPECT_EQ(loads.maxChannel, first) << c.name;
    EXPECT_EQ(loads.maxChannel.valid(), c.maxLoad > 0) << c.name;
    if (atMax > 1) ++casesWithTies;
  }
  EXPECT_GE(casesWithTies, 3u);
}

TEST(LinkLoads, PatternOfAnotherFabricIsRejected) {
  const Network small = makeGft2(2, 2, 3), big = makeGft2(2, 2, 4);
  EXPECT_THROW(patternLoads(small, test::handDmodk(small, 2, 2), makePattern("shift:s=1", big, 1)), AnalysisError);
}

TEST(StagePathCounts, GomezFigureThreeTwoAryThreeTree) {
  // Gómez Fig. 3: on the 2-ary 3-tree every channel of a stage carries the same number of
  // the 56 paths: N - 1 = 7 on terminal links, N - k^l = 6 and 4 above levels 1 and 2.
  const Network net = makeKaryNtree(2, 3);
  const StagePathCounts counts = stagePathCounts(net, test::handGomez(net, 2, 3));
  ASSERT_EQ(counts.stages.size(), 6u);
  const std::uint64_t expected[] = {7, 6, 4};
  for (const StageCount& stage : counts.stages) {
    EXPECT_TRUE(stage.balanced()) << stage.lowerLevel << (stage.ascending ? " up" : " down");
    EXPECT_EQ(stage.maxPaths, expected[stage.lowerLevel]);
    EXPECT_EQ(stage.channels, 8u);
  }
  // Equal to the loads of the all-to-all pattern.
  const LinkLoads all = patternLoads(net, test::handGomez(net, 2, 3), makePattern("all-to-all", net, 1));
  for (std::size_t c = 0; c < net.channelCount(); ++c) {
    EXPECT_EQ(static_cast<double>(counts.pathsPerChannel[c]), all.load[c]);
  }
}

TEST(StagePathCounts, BalancedOnLargerTreesUnbalancedForSkewedRouting) {
  for (auto [k, n] : {std::pair{4u, 3u}, std::pair{2u, 4u}, std::pair{3u, 3u}}) {
    const Network net = makeKaryNtree(k, n);
    const StagePathCounts counts = stagePathCounts(net, test::handGomez(net, k, n));
    for (const StageCount& stage : counts.stages) {
      EXPECT_TRUE(stage.balanced()) << k << "-ary " << n << "-tree level " << stage.lowerLevel;
      std::uint64_t kl = 1;
      for (std::size_t i = 0; i < stage.lowerLevel; ++i) kl *= k;
      const std::uint64_t terminals = net.terminalCount();
      EXPECT_EQ(stage.maxPaths, stage.lowerLevel == 0 ? terminals - 1 : terminals - kl);
    }
  }
  // A skewed routing: every leaf sends everything up its first up port.
  const Network net = makeGft2(2, 2, 3);
  RoutingResult skewed = test::handRouting(
      net, 1, [](std::uint32_t) { return 0U; },
      [](const Network& nw, NodeId sw, std::uint32_t d, std::uint32_t) -> PortNumber {
        if (!test::isLeaf(nw, sw)) return static_cast<PortNumber>(1 + d / 2);
        if (test::indexInLevel(nw, sw) == d / 2) return static_cast<PortNumber>(1 + d % 2);
        return 3;
      },
      "skewed");
  const StagePathCounts counts = stagePathCounts(net, skewed);
  bool someUnbalanced = false;
  for (const StageCount& stage : counts.stages) someUnbalanced = someUnbalanced || !stage.balanced();
  EXPECT_TRUE(someUnbalanced);
}

TEST(StagePathCounts, NeedsFatTreeLabels) {
  const Network net = makeGft2(2, 2, 3);
  const Network unlabelled = net.withXgft(nullptr);
  EXPECT_THROW(stagePathCounts(unlabelled, test::handDmodk(net, 2, 2)), AnalysisError);
}

TEST(BitReversal, DeterministicRoutingSerialisesEachLeafOnOneAscendingChannel) {
  // Gómez §5.2.1: under bit-reversal all destinations of one leaf switch share their low
  // digits, so the deterministic routing sends everything a leaf forwards up through one
  // ascending port (and on the same port at the next stage), and the bandwidth drops to 1/k
  // (ML = k). A leaf holding a bit palindrome (a fixed point, not a communication) forwards
  // only k-1: on 2-level trees every leaf holds one, so there ML = k - 1.
  struct Case {
    std::uint32_t k, n;
    double ml;
  };
  for (const Case& c : {Case{4, 3, 4}, Case{8, 3, 8}, Case{8, 2, 7}, Case{4, 2, 3}}) {
    const Network net = makeKaryNtree(c.k, c.n);
    const LinkLoads loads = patternLoads(net, test::handGomez(net, c.k, c.n), makePattern("bit-reversal", net, 1));
    ASSERT_FALSE(loads.ascending.empty());
    EXPECT_EQ(loads.ascending[0].level, 1u);
    EXPECT_EQ(loads.ascending[0].maxChannelsPerSwitch, 1u) << c.k << "," << c.n;
    EXPECT_EQ(loads.ascending[0].availablePerSwitch, c.k);
    EXPECT_EQ(loads.maxLoad, c.ml) << c.k << "," << c.n;
  }
}
