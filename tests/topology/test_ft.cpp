// FT(l, m, w) of Ding et al. §2–3: counts, labels, ports and its identity with
// XGFT(l; m..m; 1, w..w) (and with the k-ary n-tree when m = w).
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "core/errors.h"
#include "graph/algorithms.h"
#include "graph/builder.h"
#include "topology/ft.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

std::uint64_t power(std::uint64_t base, std::uint32_t exponent) {
  std::uint64_t out = 1;
  for (std::uint32_t i = 0; i < exponent; ++i) out *= base;
  return out;
}

/// The node of `b` with the same XGFT level and index as `node` of `a`.
NodeId counterpart(const Network& a, const Network& b, NodeId node) {
  const XgftLabels& la = *a.xgft();
  return b.xgft()->nodesAt[la.level[node.index()]][la.indexInLevel[node.index()]];
}

/// Explicit isomorphism check: the label-preserving node map sends every channel of `a`
/// to a channel of `b` on the same ports, and the channel counts agree.
void expectIsomorphicByLabels(const Network& a, const Network& b) {
  ASSERT_EQ(a.nodeCount(), b.nodeCount());
  ASSERT_EQ(a.channelCount(), b.channelCount());
  ASSERT_EQ(a.terminalCount(), b.terminalCount());
  std::vector<bool> image(b.nodeCount(), false);
  for (std::size_t n = 0; n < a.nodeCount(); ++n) {
    const NodeId u = NodeId::fromIndex(n);
    const NodeId v = counterpart(a, b, u);
    ASSERT_TRUE(v.valid());
    EXPECT_FALSE(image[v.index()]) << "node map not injective at " << a.name(u);
    image[v.index()] = true;
    EXPECT_EQ(a.kind(u), b.kind(v));
    EXPECT_EQ(a.degree(u), b.degree(v)) << a.name(u);
  }
  for (std::size_t c = 0; c < a.channelCount(); ++c) {
    const ChannelId ch = ChannelId::fromIndex(c);
    const NodeId u = counterpart(a, b, a.source(ch));
    const ChannelId mapped = b.channelAt(u, a.sourcePort(ch));
    ASSERT_TRUE(mapped.valid()) << a.describeChannel(ch);
    EXPECT_EQ(b.target(mapped), counterpart(a, b, a.target(ch))) << a.describeChannel(ch);
    EXPECT_EQ(b.targetPort(mapped), a.targetPort(ch)) << a.describeChannel(ch);
  }
}

/// The node called `name`; fails the test (and returns an invalid id) when absent.
NodeId node(const Network& network, const std::string& name) {
  const auto found = network.findNode(name);
  EXPECT_TRUE(found.has_value()) << "no node " << name;
  return found.value_or(NodeId());
}

}  // namespace

TEST(FatTreeFt, CountsFollowDingSection2AndTheGeneralisationToMNotW) {
  for (const auto& [l, m, w] : std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>{{1, 4, 4},
                                                                                                    {2, 4, 4},
                                                                                                    {3, 4, 4},
                                                                                                    {4, 4, 4},
                                                                                                    {3, 2, 2},
                                                                                                    {2, 8, 8},
                                                                                                    {3, 4, 2},
                                                                                                    {3, 2, 4},
                                                                                                    {4, 3, 2},
                                                                                                    {2, 5, 3}}) {
    const Network net = makeFatTreeFt(l, m, w);
    const FtShape shape{l, m, w};
    EXPECT_EQ(net.terminalCount(), power(m, l)) << l << m << w;
    std::uint64_t switches = 0, cables = power(m, l);
    for (std::uint32_t h = 0; h < l; ++h) {
      const std::uint64_t atLevel = power(m, l - 1 - h) * power(w, h);
      EXPECT_EQ(shape.switchesAtLevel(h), atLevel);
      if (m == w) {
        EXPECT_EQ(atLevel, power(w, l - 1)) << "Ding §2: w^(l-1) switches per level";
      }
      switches += atLevel;
      if (h + 1 < l) cables += atLevel * w;
    }
    EXPECT_EQ(net.switchCount(), switches);
    EXPECT_EQ(net.linkCount(), cables);
    for (NodeId s : net.switches()) {
      EXPECT_EQ(net.portCount(s), m + w);
      const auto level = net.xgft()->level[s.index()];
      EXPECT_EQ(net.degree(s), m + (level < l ? w : 0)) << net.name(s);
    }
    EXPECT_EQ(componentCount(connectedComponents(net)), 1u);
  }
}

// A switch's label digits are written one character each (0-9, a-z) while every digit fits,
// i.e. m and w at most 36; beyond, in decimal separated by dots.
TEST(FatTreeFt, LabelDigitsAreCompactUpToRadix36) {
  auto has = [](const Network& net, const std::string& name) { return net.findNode(name).has_value(); };
  const Network children36 = makeFatTreeFt(2, 36, 2), children37 = makeFatTreeFt(2, 37, 2);
  EXPECT_TRUE(has(children36, "ft-sw0-z"));
  EXPECT_TRUE(has(children37, "ft-sw0-36"));
  EXPECT_FALSE(has(children37, "ft-sw0-z"));
  const Network parents36 = makeFatTreeFt(2, 2, 36), parents37 = makeFatTreeFt(2, 2, 37);
  EXPECT_TRUE(has(parents36, "ft-sw1-z"));
  EXPECT_TRUE(has(parents37, "ft-sw1-36"));
  const Network deep = makeFatTreeFt(3, 37, 2);
  EXPECT_TRUE(has(deep, "ft-sw0-36.36"));
  EXPECT_TRUE(has(deep, "ft-sw1-36.1"));  // children digit, then parent digit
  EXPECT_TRUE(has(deep, "ft-sw2-1.1"));
}

TEST(FatTreeFt, LabelsAndPortsOfDingFigures) {
  // Fig. 8: FT(4,4,4), node 3 on SW(0,000), node 95 on SW(0,113).
  const Network net = makeFatTreeFt(4, 4, 4);
  const ChannelId three = net.injectionChannel(node(net, "ft-h003"));
  EXPECT_EQ(net.name(net.target(three)), "ft-sw0-000");
  EXPECT_EQ(net.targetPort(three), 4);  // down port 1 + (3 mod 4)
  const ChannelId ninetyFive = net.injectionChannel(node(net, "ft-h095"));
  EXPECT_EQ(net.name(net.target(ninetyFive)), "ft-sw0-113");
  // Fig. 8 walk: P0 = 0 from SW(0,000) reaches SW(1,000); P1 = 1 from there SW(2,001);
  // P2 = 0 from there SW(3,010). Destination side: SW(1,110), SW(2,101).
  const auto up = [&](const std::string& from, std::uint32_t port) {
    const ChannelId c = net.channelAt(node(net, from), static_cast<PortNumber>(4 + 1 + port));
    EXPECT_TRUE(c.valid()) << from;
    return net.name(net.target(c));
  };
  EXPECT_EQ(up("ft-sw0-000", 0), "ft-sw1-000");
  EXPECT_EQ(up("ft-sw1-000", 1), "ft-sw2-001");
  EXPECT_EQ(up("ft-sw2-001", 0), "ft-sw3-010");
  EXPECT_EQ(up("ft-sw0-113", 0), "ft-sw1-110");
  EXPECT_EQ(up("ft-sw1-110", 1), "ft-sw2-101");
  EXPECT_EQ(up("ft-sw2-101", 0), "ft-sw3-010");  // the common ancestor (Theorem 2)
  // Fig. 2 (FT(3,4)): SW(0,0) through Ulink(0,0,1) reaches SW(1,01).
  const Network small = makeFatTreeFt(3, 4, 4);
  const ChannelId c = small.channelAt(node(small, "ft-sw0-00"), 4 + 1 + 1);
  EXPECT_EQ(small.name(small.target(c)), "ft-sw1-01");
  // The parent is entered on down port 1 + copy digit t_0 = 1 + 0.
  EXPECT_EQ(small.targetPort(c), 1);
  const ChannelId d = small.channelAt(node(small, "ft-sw0-32"), 4 + 1 + 3);
  EXPECT_EQ(small.name(small.target(d)), "ft-sw1-33");  // t_1 = 3 kept, t_0 = P = 3
  EXPECT_EQ(small.targetPort(d), 1 + 2);
}

TEST(FatTreeFt, MNotWNamesAndTheorem1Generalised) {
  // FT(3, 4, 2): level 1 switch τ = t_1 (base 4) * 2 + t_0 (base 2).
  const FtShape shape{3, 4, 2};
  const Network net = makeFatTreeFt(3, 4, 2);
  for (std::uint32_t h = 0; h + 1 < 3; ++h) {
    for (std::uint64_t tau = 0; tau < shape.switchesAtLevel(h); ++tau) {
      for (std::uint32_t p = 0; p < 2; ++p) {
        const ChannelId c = net.channelAt(node(net, shape.switchName(h, tau)), static_cast<PortNumber>(4 + 1 + p));
        ASSERT_TRUE(c.valid());
        EXPECT_EQ(net.name(net.target(c)), shape.switchName(h + 1, shape.parent(h, tau, p)));
        // Copy digit kept above, chosen ports shifted in below.
        const std::uint64_t expected = tau / (4 * power(2, h)) * power(2, h + 1) + (tau % power(2, h)) * 2 + p;
        EXPECT_EQ(shape.parent(h, tau, p), expected);
      }
    }
  }
  EXPECT_TRUE(net.findNode("ft-sw1-31").has_value());   // t_1 = 3 (base m), t_0 = 1 (base w)
  EXPECT_FALSE(net.findNode("ft-sw1-32").has_value());  // t_0 < w
  EXPECT_TRUE(net.findNode("ft-sw2-11").has_value());   // top: two base-w digits
  EXPECT_EQ(makeFatTreeFt(1, 6, 2).switchCount(), 1u);
  EXPECT_TRUE(makeFatTreeFt(1, 6, 2).findNode("ft-sw0").has_value());
  // Wide switches: digits joined by '.'.
  EXPECT_TRUE(makeFatTreeFt(2, 40, 2).findNode("ft-sw1-1").has_value());
  EXPECT_TRUE(makeFatTreeFt(2, 40, 2).findNode("ft-sw0-39").has_value());
}

TEST(FatTreeFt, TauAndXgftIndexReverseTheChosenPortDigits) {
  const FtShape shape{4, 3, 2};
  for (std::uint32_t h = 0; h < 4; ++h) {
    std::vector<bool> seen(shape.switchesAtLevel(h), false);
    for (std::uint64_t tau = 0; tau < shape.switchesAtLevel(h); ++tau) {
      const std::uint64_t index = shape.tauToXgftIndex(h, tau);
      ASSERT_LT(index, seen.size());
      EXPECT_FALSE(seen[index]);
      seen[index] = true;
      EXPECT_EQ(shape.xgftIndexToTau(h, index), tau);
    }
  }
  // Level 2 of FT(4,3,2): τ = t_2 * 4 + t_1 * 2 + t_0; the XGFT index swaps t_1 and t_0.
  EXPECT_EQ(shape.tauToXgftIndex(2, 2 * 4 + 1 * 2 + 0), 2u * 4 + 0 * 2 + 1);
}

TEST(FatTreeFt, IsTheXgftItShouldBe) {
  for (const auto& [l, m, w] : std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>{
           {1, 3, 3}, {2, 4, 4}, {3, 3, 3}, {3, 4, 2}, {3, 2, 3}, {4, 2, 2}, {2, 6, 1}}) {
    const Network ft = makeFatTreeFt(l, m, w);
    const FtShape shape{l, m, w};
    EXPECT_EQ(ft.xgft()->params.str(), shape.asXgft().str());
    EXPECT_NO_THROW(checkXgftLabels(ft, *ft.xgft()));
    const Network xgft = makeXgft(shape.asXgft());
    SCOPED_TRACE(shape.asXgft().str());
    expectIsomorphicByLabels(ft, xgft);
    expectIsomorphicByLabels(xgft, ft);
  }
  // m = w = k: the k-ary n-tree of Gómez et al. (whose top switches also keep 2k ports).
  for (std::uint32_t k : {2u, 4u}) {
    const Network ft = makeFatTreeFt(3, k, k);
    const Network tree = makeKaryNtree(k, 3);
    expectIsomorphicByLabels(ft, tree);
    for (NodeId s : ft.switches()) EXPECT_EQ(ft.portCount(s), tree.portCount(counterpart(ft, tree, s)));
  }
}

TEST(FatTreeFt, RejectsImpossibleParameters) {
  EXPECT_THROW(makeFatTreeFt(0, 4, 4), SpecError);
  EXPECT_THROW(makeFatTreeFt(2, 0, 4), SpecError);
  EXPECT_THROW(makeFatTreeFt(2, 4, 0), SpecError);
  EXPECT_THROW(makeFatTreeFt(2, 200, 100), SpecError);
  EXPECT_THROW(makeFatTreeFt(9, 16, 16), SpecError);
  try {
    makeFatTreeFt(2, 200, 100);
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("m + w"), std::string::npos) << e.what();
  }
}
