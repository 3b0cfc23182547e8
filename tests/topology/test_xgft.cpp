#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <functional>
#include <string>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "graph/algorithms.h"
#include "graph/builder.h"
#include "test_support.h"
#include "topology/summary.h"
#include "topology/xgft.h"

using namespace routelab;

TEST(KaryNtree, CountsFollowGomezSection2) {
  for (std::uint32_t k : {2u, 3u, 4u, 8u}) {
    for (std::uint32_t n : {1u, 2u, 3u}) {
      const Network net = makeKaryNtree(k, n);
      std::size_t kn = 1;
      for (std::uint32_t i = 0; i < n; ++i) kn *= k;
      EXPECT_EQ(net.terminalCount(), kn) << k << "," << n;
      EXPECT_EQ(net.switchCount(), n * kn / k) << k << "," << n;
      // cables: terminals + (n-1) stages of k^(n-1) switches with k up links
      EXPECT_EQ(net.linkCount(), kn + (n - 1) * kn) << k << "," << n;
      for (NodeId s : net.switches()) EXPECT_EQ(net.portCount(s), 2 * k);
    }
  }
}

TEST(KaryNtree, PortsAndNamesMatchGenIbsimNet) {
  // 2-ary 3-tree: <0, o=1> (kt-s0-10) up port k+1+j=3+j -> <1, o with digit 0 := j>.
  const Network net = makeKaryNtree(2, 3);
  const NodeId leaf = *net.findNode("kt-s0-10");
  const ChannelId up = net.channelAt(leaf, 4);  // j = 1
  ASSERT_TRUE(up.valid());
  EXPECT_EQ(net.name(net.target(up)), "kt-s1-10");
  EXPECT_EQ(net.targetPort(up), 1 + 1);  // arrives on down port 1 + o_0 = 2
  // host 5 on leaf 5/2 = 2 (digits "01"), port 1 + 5%2 = 2
  const NodeId host = *net.findNode("kt-h5");
  const ChannelId inject = net.injectionChannel(host);
  EXPECT_EQ(net.name(net.target(inject)), "kt-s0-01");
  EXPECT_EQ(net.targetPort(inject), 2);
}

TEST(KaryNtree, SixteenAryFourTree) {
  const Network net = makeKaryNtree(16, 4);
  EXPECT_EQ(net.terminalCount(), 65536u);
  EXPECT_EQ(net.switchCount(), 4096u * 4);
}

// Beyond 2^26 nodes a k-ary n-tree is refused with the limit named — for any n the option
// accepts (up to 2^31 - 1), before n levels are laid out: k^n >= 2^n terminals.
TEST(KaryNtree, TooManyNodesAreRefusedForEveryStageCount) {
  for (const std::uint32_t n : {26U, 27U, 64U, 2147483647U}) {
    try {
      makeKaryNtree(2, n);
      ADD_FAILURE() << "n = " << n << " was built";
    } catch (const SpecError& error) {
      EXPECT_NE(std::string(error.what()).find("too many nodes (limit 2^26)"), std::string::npos) << error.what();
    }
  }
  EXPECT_EQ(makeKaryNtree(2, 10).terminalCount(), 1024U);
}

TEST(Gft2, CountsAndPortsFollowNienaber) {
  const Network net = makeGft2(4, 3, 5);
  EXPECT_EQ(net.terminalCount(), 20u);
  EXPECT_EQ(net.switchCount(), 8u);
  EXPECT_EQ(net.linkCount(), 20u + 15u);
  // node i on BSW_{i/n} port 1 + i%n
  const NodeId node = net.terminalNode(9);
  const ChannelId inject = net.injectionChannel(node);
  EXPECT_EQ(net.name(net.target(inject)), "gft-leaf2");
  EXPECT_EQ(net.targetPort(inject), 2);
  // leaf i port n+1+j -> top j port 1+i
  const NodeId leaf = *net.findNode("gft-leaf3");
  const ChannelId up = net.channelAt(leaf, 4 + 1 + 2);
  EXPECT_EQ(net.name(net.target(up)), "gft-top2");
  EXPECT_EQ(net.targetPort(up), 4);
}

// GFT names (docs/TOPOLOGIES.md, gen_ibsim_net.py's): gft-h<leaf>-<port>, gft-leaf<i>,
// gft-top<j>, each index zero-padded to the width of its largest (r - 1, n - 1, m - 1), at
// the powers of ten where a digit is added and at 1, where the largest is 0.
TEST(Gft2, NamesArePaddedToTheWidestIndexOfEachKind) {
  const auto zeros = [](std::uint32_t largest) { return std::string(std::to_string(largest).size(), '0'); };
  for (const auto& [n, m, r] :
       {std::array<std::uint32_t, 3>{1, 1, 1}, {10, 10, 10}, {11, 11, 11}, {9, 11, 1}, {1, 2, 11}}) {
    const Network net = makeGft2(n, m, r);
    const std::string what = fmt::format("gft2:n={},m={},r={}", n, m, r);
    EXPECT_EQ(net.name(net.terminalNode(0)), "gft-h" + zeros(r - 1) + "-" + zeros(n - 1)) << what;
    EXPECT_EQ(net.name(net.terminalNode(n * r - 1)), fmt::format("gft-h{}-{}", r - 1, n - 1)) << what;
    EXPECT_TRUE(net.findNode("gft-leaf" + zeros(r - 1)).has_value()) << what;
    EXPECT_TRUE(net.findNode(fmt::format("gft-leaf{}", r - 1)).has_value()) << what;
    EXPECT_TRUE(net.findNode("gft-top" + zeros(m - 1)).has_value()) << what;
    EXPECT_TRUE(net.findNode(fmt::format("gft-top{}", m - 1)).has_value()) << what;
  }
}

// XGFT names (docs/TOPOLOGIES.md): xg-h<i> and xg-l<level>-<i>, each index zero-padded to the
// width of the largest index of its level. The level sizes are recomputed here from Öhring's
// definition: level l holds (w_1 ... w_l) x (m_{l+1} ... m_h) nodes.
TEST(Xgft, NamesArePaddedToTheWidestIndexOfTheirLevel) {
  const std::array<XgftParams, 3> shapes = {XgftParams{{4, 4}, {1, 2}}, XgftParams{{2, 11}, {1, 11}},
                                            XgftParams{{3, 3, 3}, {1, 3, 3}}};
  for (const XgftParams& p : shapes) {
    const Network net = makeXgft(p);
    const std::size_t h = p.m.size();
    std::size_t first = 0;  // nodes are numbered level by level, terminals first
    for (std::size_t level = 0; level <= h; ++level) {
      std::uint64_t count = 1;
      for (std::size_t j = 0; j < level; ++j) count *= p.w[j];
      for (std::size_t j = level; j < h; ++j) count *= p.m[j];
      const std::size_t width = std::to_string(count - 1).size();
      const std::string prefix = level == 0 ? std::string("xg-h") : fmt::format("xg-l{}-", level);
      const std::string what = fmt::format("xgft:{} level {}", p.str(), level);
      EXPECT_EQ(net.name(NodeId::fromIndex(first)), prefix + std::string(width, '0')) << what;
      EXPECT_EQ(net.name(NodeId::fromIndex(first + count - 1)), prefix + std::to_string(count - 1)) << what;
      first += count;
    }
    EXPECT_EQ(first, net.nodeCount()) << p.str();
  }
}

TEST(Xgft, KaryNtreeIsTheXgftItShouldBe) {
  const Network a = makeKaryNtree(3, 3);
  const Network b = makeXgft({{3, 3, 3}, {1, 3, 3}});
  ASSERT_EQ(a.nodeCount(), b.nodeCount());
  ASSERT_EQ(a.channelCount(), b.channelCount());
  // Same node order and same cables: identical up to names (and unused top ports).
  for (std::size_t c = 0; c < a.channelCount(); ++c) {
    const ChannelId ch = ChannelId::fromIndex(c);
    EXPECT_EQ(a.source(ch), b.source(ch));
    EXPECT_EQ(a.target(ch), b.target(ch));
    EXPECT_EQ(a.sourcePort(ch), b.sourcePort(ch));
    EXPECT_EQ(a.targetPort(ch), b.targetPort(ch));
  }
}

TEST(Xgft, SummaryOfFatTrees) {
  const NetworkSummary s = summarize(makeKaryNtree(4, 3));
  EXPECT_EQ(s.terminals, 64u);
  EXPECT_EQ(s.switches, 48u);
  EXPECT_EQ(s.diameter, 6u);  // up 2 stages, down 2: 3 switches + ... = 6 channels
  EXPECT_TRUE(s.connected);
  EXPECT_EQ(*s.levels, 3u);
  EXPECT_EQ(*s.bisectionWidth, 32u);  // full bisection: N/2
  const NetworkSummary slim = summarize(makeGft2(8, 4, 6));
  EXPECT_EQ(*slim.bisectionWidth, 3u * 4u);  // r/2 leaves x m up links
  // The narrowest cut may be the terminals' own links: XGFT(2; 4,2; 1,8) has 8 terminals of one
  // link each under 2 leaves of 8 up links: half the terminals (4 links) against half the
  // leaves (8).
  XgftParams thin;
  thin.m = {4, 2};
  thin.w = {1, 8};
  EXPECT_EQ(*summarize(makeXgft(thin)).bisectionWidth, 4u);
}

// The diameter is the most channels between two connected terminals: on an XGFT 2l for the
// highest level l whose m_l > 1 (terminals differing there meet at level l), elsewhere by
// search; 0 when no two terminals are connected.
TEST(Xgft, SummaryDiameterIsTheLongestConnectedTerminalPair) {
  auto xgft = [](std::vector<std::uint32_t> m, std::vector<std::uint32_t> w) {
    XgftParams params;
    params.m = std::move(m);
    params.w = std::move(w);
    return summarize(makeXgft(params));
  };
  EXPECT_EQ(xgft({4, 1}, {1, 2}).diameter, 2u);  // one leaf switch holds every terminal
  EXPECT_EQ(xgft({1, 4}, {1, 2}).diameter, 4u);  // one terminal per leaf: up to the top and down
  EXPECT_EQ(xgft({2, 2, 1}, {1, 2, 2}).diameter, 4u);
  EXPECT_EQ(xgft({2, 2, 2}, {1, 2, 2}).diameter, 6u);
  // A chain h0 - sw0 - sw1 - sw2 - h2 (4 channels) and an island sw3 with two terminals (2):
  // the diameter counts connected pairs only.
  NetworkBuilder builder;
  std::vector<NodeId> sw;
  for (int i = 0; i < 4; ++i) sw.push_back(builder.addSwitch("sw" + std::to_string(i), 4));
  builder.connect(sw[0], 2, sw[1], 2);
  builder.connect(sw[1], 3, sw[2], 3);
  builder.connect(builder.addTerminal("h0"), 1, sw[0], 1);
  builder.connect(builder.addTerminal("h2"), 1, sw[2], 1);
  builder.connect(builder.addTerminal("h3a"), 1, sw[3], 1);
  builder.connect(builder.addTerminal("h3b"), 1, sw[3], 2);
  const NetworkSummary split = summarize(builder.build());
  EXPECT_EQ(split.diameter, 4u);
  EXPECT_EQ(split.components, 2u);
  EXPECT_FALSE(split.connected);
  // Chains of switches, a terminal on each: the diameter is the chain's length plus the two
  // terminal channels. The breadth-first searches start from 64 switches at a time; with 65
  // and 129 switches the farthest pair's ends are the first sources of their batches.
  for (const int length : {65, 129}) {
    NetworkBuilder chain;
    std::vector<NodeId> chained;
    for (int i = 0; i < length; ++i) chained.push_back(chain.addSwitch("sw" + std::to_string(i), 3));
    for (int i = 0; i + 1 < length; ++i) chain.connect(chained[i], 2, chained[i + 1], 3);
    for (int i = 0; i < length; ++i) chain.connect(chain.addTerminal("h" + std::to_string(i)), 1, chained[i], 1);
    EXPECT_EQ(summarize(chain.build()).diameter, static_cast<std::uint32_t>(length - 1 + 2)) << length;
  }
  // Switches alone: no terminal pair, diameter 0.
  NetworkBuilder bare;
  bare.connect(bare.addSwitch("a", 2), 1, bare.addSwitch("b", 2), 1);
  const NetworkSummary none = summarize(bare.build());
  EXPECT_EQ(none.diameter, 0u);
  EXPECT_EQ(none.terminals, 0u);
  EXPECT_TRUE(none.connected);
}

TEST(Xgft, RejectsImpossibleParameters) {
  EXPECT_THROW(makeKaryNtree(1, 3), SpecError);
  EXPECT_THROW(makeKaryNtree(200, 2), SpecError);
  EXPECT_THROW(makeGft2(0, 1, 1), SpecError);
  EXPECT_THROW(makeXgft({{2, 2}, {1}}), SpecError);
  EXPECT_THROW(makeXgft({{4096, 4096, 4096}, {1, 1, 1}}), SpecError);
  // Each refusal names its parameter, through the spec as a user types it too.
  const auto errorOf = [](const std::function<void()>& build) {
    return test::thrownMessage<SpecError>(build, "built");
  };
  EXPECT_EQ(errorOf([] { makeXgft({{2, 0}, {1, 1}}); }), "xgft: m_2 and w_2 must be at least 1");
  EXPECT_EQ(errorOf([] { makeXgft({{2, 2}, {0, 1}}); }), "xgft: m_1 and w_1 must be at least 1");
  EXPECT_EQ(errorOf([] { makeXgft({{2, 2}, {1}}); }), "xgft: m has 2 entries and w has 1; both need h");
  EXPECT_EQ(errorOf([] { loadFabric("xgft:h=2,m=2.65536,w=1.1"); }), "xgft: every entry of 'm' must be in [1, 65535]");
  EXPECT_EQ(errorOf([] { loadFabric("xgft:h=2,m=2.2,w=0.1"); }), "xgft: every entry of 'w' must be in [1, 65535]");
  EXPECT_EQ(errorOf([] { loadFabric("xgft:h=2,m=2.3,w=1.2"); }), "built");
}
