// The fat-tree families are the XGFTs they should be, and every generator satisfies the
// counting formulas of its paper.
#include <gtest/gtest.h>

#include <set>

#include "core/options.h"
#include "graph/algorithms.h"
#include "graph/builder.h"
#include "isomorphism.h"
#include "topology/registry.h"
#include "topology/xgft.h"

using namespace routelab;
using routelab::test::findIsomorphism;
using routelab::test::isIsomorphism;
using routelab::test::smallGraphOf;

namespace {

Network fromSpec(const std::string& text) {
  const ComponentSpec spec = parseComponent(text);
  const auto& row = topologyRegistry().find(spec.name);
  return row.factory(Options(spec.name, row.options, spec));
}

std::uint64_t power(std::uint64_t base, std::uint32_t exponent) {
  std::uint64_t out = 1;
  while (exponent-- > 0) out *= base;
  return out;
}

/// A ring of `n` two-port switches, or (split) two rings of n/2.
Network rings(std::uint32_t n, bool split) {
  NetworkBuilder builder;
  std::vector<NodeId> s;
  for (std::uint32_t i = 0; i < n; ++i) s.push_back(builder.addSwitch("s" + std::to_string(i), 2));
  const std::uint32_t ring = split ? n / 2 : n;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t first = i / ring * ring;
    builder.connect(s[i], 1, s[first + (i - first + 1) % ring], 2);
  }
  return builder.build();
}

void expectIsomorphic(const std::string& specA, const std::string& specB) {
  SCOPED_TRACE(specA + " vs " + specB);
  const auto a = smallGraphOf(fromSpec(specA));
  const auto b = smallGraphOf(fromSpec(specB));
  const auto map = findIsomorphism(a, b);
  ASSERT_TRUE(map.has_value());
  EXPECT_TRUE(isIsomorphism(a, b, *map));
}

}  // namespace

TEST(IsomorphismHelper, SeparatesWhatColourRefinementCannot) {
  // C6 and two triangles are both 2-regular: refinement alone cannot tell them apart,
  // the search must.
  //   s0 - s1 - s2          s0 - s1     s3 - s4
  //   |              |        \  /        \  /
  //   s5 - s4 - s3            s2          s5
  const auto hexagon = smallGraphOf(rings(6, false));
  const auto triangles = smallGraphOf(rings(6, true));
  EXPECT_FALSE(findIsomorphism(hexagon, triangles).has_value());
  EXPECT_FALSE(findIsomorphism(triangles, hexagon).has_value());
  const auto self = findIsomorphism(hexagon, hexagon);
  ASSERT_TRUE(self.has_value());
  EXPECT_TRUE(isIsomorphism(hexagon, hexagon, *self));
  // A map that is a bijection but not an isomorphism is rejected by the checker.
  EXPECT_FALSE(isIsomorphism(hexagon, hexagon, {0, 2, 1, 3, 4, 5}));
}

TEST(IsomorphismHelper, RewiredFatTreeIsNotIsomorphic) {
  // 2-ary 2-tree with the two up cables of leaf kt-s0-0 both going to kt-s1-0 (parallel
  // cables) — same node and cable counts, different graph.
  NetworkBuilder builder;
  std::vector<NodeId> hosts, leaves, tops;
  for (int i = 0; i < 4; ++i) hosts.push_back(builder.addTerminal("h" + std::to_string(i)));
  for (int i = 0; i < 2; ++i) leaves.push_back(builder.addSwitch("l" + std::to_string(i), 4));
  for (int i = 0; i < 2; ++i) tops.push_back(builder.addSwitch("t" + std::to_string(i), 4));
  for (int i = 0; i < 4; ++i) builder.connect(hosts[i], 1, leaves[i / 2], static_cast<PortNumber>(1 + i % 2));
  builder.connect(leaves[0], 3, tops[0], 1);
  builder.connect(leaves[0], 4, tops[0], 2);
  builder.connect(leaves[1], 3, tops[1], 1);
  builder.connect(leaves[1], 4, tops[1], 2);
  const auto rewired = smallGraphOf(builder.build());
  const auto tree = smallGraphOf(fromSpec("kary-ntree:k=2,n=2"));
  EXPECT_FALSE(findIsomorphism(tree, rewired).has_value());
}

// Gómez §2: the k-ary n-tree is XGFT(n; k..k; 1,k..k).
TEST(Families, KaryNtreeIsomorphicToItsXgft) {
  for (auto [k, n] : std::vector<std::pair<int, int>>{{2, 1}, {2, 2}, {2, 3}, {2, 4}, {3, 2}, {3, 3}, {4, 2}}) {
    std::string m, w;
    for (int i = 0; i < n; ++i) {
      m += (i ? "." : "") + std::to_string(k);
      w += (i ? "." : "") + std::string(i == 0 ? "1" : std::to_string(k));
    }
    expectIsomorphic("kary-ntree:k=" + std::to_string(k) + ",n=" + std::to_string(n),
                     "xgft:h=" + std::to_string(n) + ",m=" + m + ",w=" + w);
  }
}

// Nienaber §II: T(n+m, r) is XGFT(2; n, r; 1, m) — full bisection, slimmed and fatted.
TEST(Families, Gft2IsomorphicToItsXgftWithTheSameLabels) {
  for (auto [n, m, r] :
       std::vector<std::tuple<int, int, int>>{{2, 2, 3}, {4, 2, 3}, {2, 4, 3}, {3, 3, 4}, {4, 4, 8}, {1, 1, 1}}) {
    const std::string gft = "gft2:n=" + std::to_string(n) + ",m=" + std::to_string(m) + ",r=" + std::to_string(r);
    const std::string xgft = "xgft:h=2,m=" + std::to_string(n) + "." + std::to_string(r) + ",w=1." + std::to_string(m);
    expectIsomorphic(gft, xgft);
    // Stronger: the bijection (level, index in level) -> (level, index in level) given by
    // the XGFT labels of both generators is itself an isomorphism.
    const Network a = fromSpec(gft);
    const Network b = fromSpec(xgft);
    ASSERT_NE(a.xgft(), nullptr);
    ASSERT_NE(b.xgft(), nullptr);
    std::vector<std::uint32_t> map(a.nodeCount());
    for (std::size_t i = 0; i < a.nodeCount(); ++i) {
      const std::size_t level = a.xgft()->level[i];
      map[i] = b.xgft()->nodesAt[level][a.xgft()->indexInLevel[i]].value;
    }
    EXPECT_TRUE(isIsomorphism(smallGraphOf(a), smallGraphOf(b), map)) << gft;
  }
}

// Ding §2-3 (generalised to m != w in topology/ft.h): FT(l, m, w) is XGFT(l; m..m; 1,w..w).
TEST(Families, FtIsomorphicToItsXgft) {
  for (auto [l, m, w] :
       std::vector<std::tuple<int, int, int>>{{1, 3, 2}, {2, 2, 2}, {3, 2, 2}, {2, 3, 2}, {3, 2, 3}, {2, 4, 4}}) {
    std::string ms, ws;
    for (int i = 0; i < l; ++i) {
      ms += (i ? "." : "") + std::to_string(m);
      ws += (i ? "." : "") + std::string(i == 0 ? "1" : std::to_string(w));
    }
    expectIsomorphic("ft:l=" + std::to_string(l) + ",m=" + std::to_string(m) + ",w=" + std::to_string(w),
                     "xgft:h=" + std::to_string(l) + ",m=" + ms + ",w=" + ws);
  }
}

// Beyond 36 a switch's digits are decimal numbers joined by '.': every name distinct (a
// one-character alphabet would give k = 37..127 colliding names), the last digit first.
TEST(Families, KaryNtreeNamesStayDistinctBeyondBase36) {
  const Network net = fromSpec("kary-ntree:k=40,n=3");
  std::set<std::string> names;
  for (std::size_t i = 0; i < net.nodeCount(); ++i) names.insert(net.name(NodeId::fromIndex(i)));
  EXPECT_EQ(names.size(), net.nodeCount());
  EXPECT_TRUE(net.findNode("kt-s0-39.0").has_value());  // stage 0, digits (39, 0)
  EXPECT_TRUE(net.findNode("kt-s2-0.39").has_value());
  EXPECT_FALSE(net.findNode("kt-s0-39.40").has_value());
  EXPECT_TRUE(fromSpec("kary-ntree:k=36,n=2").findNode("kt-s0-z").has_value());
}

TEST(Families, KaryNtreeCountsDegreesAndDiameterFollowGomez) {
  for (std::uint32_t k : {2u, 3u, 4u}) {
    for (std::uint32_t n : {1u, 2u, 3u, 4u}) {
      SCOPED_TRACE(::testing::Message() << k << "-ary " << n << "-tree");
      const Network net = fromSpec("kary-ntree:k=" + std::to_string(k) + ",n=" + std::to_string(n));
      EXPECT_EQ(net.terminalCount(), power(k, n));        // N = k^n
      EXPECT_EQ(net.switchCount(), n * power(k, n - 1));  // n k^(n-1)
      EXPECT_EQ(net.linkCount(), n * power(k, n));        // k^n per stage boundary
      ASSERT_NE(net.xgft(), nullptr);
      for (NodeId s : net.switches()) {
        EXPECT_EQ(net.portCount(s), 2 * k);
        const std::size_t stage = net.xgft()->level[s.index()] - 1;
        EXPECT_EQ(net.degree(s), stage + 1 < n ? 2 * k : k) << net.name(s);  // top stage: down only
      }
      for (NodeId t : net.terminals()) EXPECT_EQ(net.degree(t), 1u);
      EXPECT_EQ(componentCount(connectedComponents(net)), 1u);
      EXPECT_EQ(terminalDiameter(net), 2 * n);  // up n-1 stages, down n-1, plus 2 terminal hops
    }
  }
}

TEST(Families, Gft2CountsAndDegreesFollowNienaber) {
  for (auto [n, m, r] : std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>{
           {16, 16, 32}, {8, 4, 6}, {4, 8, 5}, {3, 1, 2}}) {
    SCOPED_TRACE(::testing::Message() << "T(" << n << "+" << m << ", " << r << ")");
    const Network net = fromSpec("gft2:n=" + std::to_string(n) + ",m=" + std::to_string(m) + ",r=" + std::to_string(r));
    EXPECT_EQ(net.terminalCount(), r * n);  // N = r n
    EXPECT_EQ(net.switchCount(), r + m);
    EXPECT_EQ(net.linkCount(), r * n + r * m);
    for (NodeId s : net.switches()) {
      const bool leaf = net.xgft()->level[s.index()] == 1;
      EXPECT_EQ(net.degree(s), leaf ? n + m : r) << net.name(s);
      EXPECT_EQ(net.portCount(s), leaf ? n + m : r) << net.name(s);
    }
    EXPECT_EQ(componentCount(connectedComponents(net)), 1u);
    EXPECT_EQ(terminalDiameter(net), 4u);
  }
}

TEST(Families, XgftLevelsFollowOhring) {
  // XGFT(h; m; w): level l has prod_{j>l} m_j * prod_{j<=l} w_j nodes; a level-l switch has
  // m_l children and w_{l+1} parents.
  for (const XgftParams& p :
       std::vector<XgftParams>{{{16, 32}, {1, 16}}, {{2, 3, 4}, {1, 2, 3}}, {{4, 4, 2}, {2, 2, 2}}, {{5}, {3}}}) {
    SCOPED_TRACE(p.str());
    const Network net = makeXgft(p);
    const std::size_t h = p.height();
    std::size_t links = 0;
    for (std::size_t level = 0; level <= h; ++level) {
      std::uint64_t count = 1;
      for (std::size_t j = 1; j <= h; ++j) count *= j > level ? p.m[j - 1] : p.w[j - 1];
      EXPECT_EQ(net.xgft()->nodesAt[level].size(), count) << "level " << level;
      EXPECT_EQ(p.nodesAtLevel(level), count);
      for (NodeId node : net.xgft()->nodesAt[level]) {
        EXPECT_EQ(net.degree(node), (level ? p.m[level - 1] : 0) + (level < h ? p.w[level] : 0)) << net.name(node);
      }
      if (level < h) links += count * p.w[level];
    }
    EXPECT_EQ(net.terminalCount(), p.nodesAtLevel(0));
    EXPECT_EQ(net.linkCount(), links);
    EXPECT_EQ(componentCount(connectedComponents(net)), 1u);
    EXPECT_EQ(terminalDiameter(net), p.m[h - 1] > 1 ? 2 * h : 2 * (h - 1));
  }
  const Network spec = fromSpec("xgft:h=2,m=16.32,w=1.16");
  EXPECT_EQ(spec.terminalCount(), 512u);
  EXPECT_EQ(spec.switchCount(), 32u + 16u);
}
