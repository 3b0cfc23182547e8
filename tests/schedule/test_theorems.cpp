// Ding et al. Theorems 1 and 2 on every FT(l, w) with w^l <= 4096 processing nodes,
// checked on the generated Network (following cables), not on the label arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include "core/random.h"
#include "schedule/circuit_fabric.h"
#include "topology/ft.h"

using namespace routelab;

namespace {

struct Tree {
  std::uint32_t levels, width;
};

/// Every FT(l, w), w >= 2, with w^l <= 4096 nodes and radix 2w <= 254.
std::vector<Tree> everySmallTree() {
  std::vector<Tree> trees;
  for (std::uint32_t l = 1; l <= 12; ++l) {
    for (std::uint32_t w = 2; 2 * w <= 254; ++w) {
      std::uint64_t nodes = 1;
      for (std::uint32_t i = 0; i < l; ++i) nodes *= w;
      if (nodes > 4096) break;
      trees.push_back({l, w});
    }
  }
  return trees;
}

/// τ digits t_0 .. t_{l-2} in base w.
std::vector<std::uint64_t> digitsOf(std::uint64_t tau, std::uint32_t levels, std::uint32_t w) {
  std::vector<std::uint64_t> t(levels > 1 ? levels - 1 : 0);
  for (auto& d : t) {
    d = tau % w;
    tau /= w;
  }
  return t;
}

std::uint64_t power(std::uint64_t base, std::size_t exponent) {
  std::uint64_t out = 1;
  for (std::size_t i = 0; i < exponent; ++i) out *= base;
  return out;
}

/// Ding eq. 5, written as printed: Σ_{i=h+1}^{l-2} t_i w^i + Σ_{i=1}^{h} t_{i-1} w^i + P_h.
std::uint64_t theorem1(std::uint64_t tau, std::uint32_t h, std::uint32_t levels, std::uint32_t w, std::uint32_t port) {
  const auto t = digitsOf(tau, levels, w);
  std::uint64_t next = port;
  for (std::uint32_t i = h + 1; i + 2 <= levels; ++i) next += t[i] * power(w, i);
  for (std::uint32_t i = 1; i <= h; ++i) next += t[i - 1] * power(w, i);
  return next;
}

/// Ding eq. 10: σ_H = Σ_{i=H}^{l-2} s_i w^i + Σ_{i=0}^{H-1} P_i w^{H-1-i}.
std::uint64_t theorem2Ancestor(std::uint64_t sigma0, std::uint32_t top, std::uint32_t levels, std::uint32_t w,
                               const std::vector<std::uint32_t>& ports) {
  const auto s = digitsOf(sigma0, levels, w);
  std::uint64_t ancestor = 0;
  for (std::uint32_t i = top; i + 2 <= levels; ++i) ancestor += s[i] * power(w, i);
  for (std::uint32_t i = 0; i < top; ++i) ancestor += ports[i] * power(w, top - 1 - i);
  return ancestor;
}

/// Follow Ulink(h, ., P_h) for h = 0 .. ports.size()-1 from `from` through the cables.
NodeId climb(const Network& net, NodeId from, std::uint32_t w, const std::vector<std::uint32_t>& ports,
             std::size_t count) {
  NodeId at = from;
  for (std::size_t h = 0; h < count; ++h) {
    const ChannelId up = net.channelAt(at, static_cast<PortNumber>(w + 1 + ports[h]));
    if (!up.valid()) return {};
    at = net.target(up);
  }
  return at;
}

}  // namespace

TEST(DingTheorem1, EveryUplinkOfEveryFtUpTo4096Nodes) {
  std::size_t checked = 0;
  for (const Tree& tree : everySmallTree()) {
    const std::uint32_t l = tree.levels, w = tree.width;
    const Network net = makeFatTreeFt(l, w, w);
    const FtShape shape{l, w, w};
    // The network's switches in τ order per level (the generator's documented node order).
    std::vector<std::vector<NodeId>> at(l);
    std::size_t next = 0;
    for (std::uint32_t h = 0; h < l; ++h) {
      for (std::uint64_t tau = 0; tau < power(w, l - 1); ++tau) at[h].push_back(net.switchNode(next++));
    }
    for (std::uint32_t h = 0; h + 1 < l; ++h) {
      for (std::uint64_t tau = 0; tau < at[h].size(); ++tau) {
        ASSERT_EQ(net.name(at[h][tau]), shape.switchName(h, tau));
        for (std::uint32_t port = 0; port < w; ++port) {
          const ChannelId up = net.channelAt(at[h][tau], static_cast<PortNumber>(w + 1 + port));
          ASSERT_TRUE(up.valid());
          const std::uint64_t expected = theorem1(tau, h, l, w, port);
          ASSERT_EQ(net.target(up), at[h + 1][expected])
              << "FT(" << l << "," << w << ") SW(" << h << "," << tau << ") port " << port << " reaches "
              << net.name(net.target(up)) << ", Theorem 1 says " << shape.switchName(h + 1, expected);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100000u);
}

TEST(DingTheorem2, DownPathUsesTheUpPortsOnEveryFtUpTo4096Nodes) {
  std::size_t pairs = 0;
  for (const Tree& tree : everySmallTree()) {
    const std::uint32_t l = tree.levels, w = tree.width;
    if (l < 2) continue;
    const Network net = makeFatTreeFt(l, w, w);
    const CircuitFabric fabric(net);
    const std::uint64_t leaves = power(w, l - 1);
    const auto leaf = [&](std::uint64_t tau) { return net.switchNode(tau); };  // level 0 comes first
    Rng rng(deriveSeed(2006, l * 1000 + w));
    const bool exhaustive = leaves * leaves <= 65536;
    const std::uint64_t samples = exhaustive ? leaves * leaves : 20000;
    for (std::uint64_t i = 0; i < samples; ++i) {
      const std::uint64_t sigma0 = exhaustive ? i / leaves : rng.below(leaves);
      const std::uint64_t delta0 = exhaustive ? i % leaves : rng.below(leaves);
      if (sigma0 == delta0) continue;
      // H: the highest differing base-w digit + 1 (Ding: the common ancestor's level).
      const auto s = digitsOf(sigma0, l, w), d = digitsOf(delta0, l, w);
      std::uint32_t top = 0;
      for (std::uint32_t j = 0; j + 2 <= l; ++j) {
        if (s[j] != d[j]) top = j + 1;
      }
      std::vector<std::uint32_t> ports(top), other(top);
      for (auto& p : ports) p = static_cast<std::uint32_t>(rng.below(w));
      const NodeId ancestor = climb(net, leaf(sigma0), w, ports, top);
      ASSERT_TRUE(ancestor.valid());
      // Eq. 10: the switch reached.
      const FtShape shape{l, w, w};
      ASSERT_EQ(net.name(ancestor), shape.switchName(top, theorem2Ancestor(sigma0, top, l, w, ports)));
      // The destination climbs to the same switch with the same ports: reversed, the down
      // path uses Dlink(h, δ_h, P_h) ...
      ASSERT_EQ(climb(net, leaf(delta0), w, ports, top), ancestor)
          << "FT(" << l << "," << w << ") " << sigma0 << " -> " << delta0;
      // ... and with no other ports (eq. 13: P_i = P'_i).
      for (auto& p : other) p = static_cast<std::uint32_t>(rng.below(w));
      if (other != ports) {
        ASSERT_NE(climb(net, leaf(delta0), w, other, top), ancestor);
      }
      // Below H the two sides are different switches (H is the lowest common level).
      ASSERT_NE(climb(net, leaf(sigma0), w, ports, top - 1), climb(net, leaf(delta0), w, ports, top - 1));
      // The scheduler's view agrees: its ancestor level (terminal links are its level 0)
      // and its circuit path ends the climb at the same switch.
      const auto sourceTerminal = static_cast<std::uint32_t>(sigma0 * w),
                 destinationTerminal = static_cast<std::uint32_t>(delta0 * w);
      ASSERT_EQ(fabric.ancestorLevel(sourceTerminal, destinationTerminal), top + 1);
      std::vector<std::uint16_t> circuitPorts{0};
      for (std::uint32_t p : ports) circuitPorts.push_back(static_cast<std::uint16_t>(p));
      const auto path = fabric.circuitPath({sourceTerminal, destinationTerminal}, circuitPorts);
      ASSERT_EQ(net.target(path[top]), ancestor);
      for (std::size_t h = 0; h < top; ++h) {
        // Down channel at level h enters δ_h through its up port P_h (hardware w + 1 + P_h).
        ASSERT_EQ(net.targetPort(path[2 * (top + 1) - 2 - h]), w + 1 + ports[h]);
      }
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 100000u);
}

TEST(DingTheorem2, HoldsForMNotW) {
  // The generalisation documented in topology/ft.h: with m != w the destination still
  // climbs with the same ports to the same switch.
  for (const auto& [l, m, w] : std::vector<std::array<std::uint32_t, 3>>{{3, 4, 2}, {3, 2, 4}, {4, 3, 2}, {3, 6, 3}}) {
    const Network net = makeFatTreeFt(l, m, w);
    const FtShape shape{l, m, w};
    const std::uint64_t leaves = shape.switchesAtLevel(0);
    Rng rng(7);
    for (std::uint64_t sigma0 = 0; sigma0 < leaves; ++sigma0) {
      for (std::uint64_t delta0 = 0; delta0 < leaves; ++delta0) {
        if (sigma0 == delta0) continue;
        std::uint32_t top = 0;
        for (std::uint32_t j = 0; j + 2 <= l; ++j) {
          if (shape.digit(0, sigma0, j) != shape.digit(0, delta0, j)) top = j + 1;
        }
        std::vector<std::uint32_t> ports(top);
        for (auto& p : ports) p = static_cast<std::uint32_t>(rng.below(w));
        const std::uint32_t children = m;  // clang 14 cannot capture structured bindings
        const auto climbFrom = [&](std::uint64_t tau) {
          NodeId at = net.switchNode(tau);
          for (std::uint32_t h = 0; h < top; ++h)
            at = net.target(net.channelAt(at, static_cast<PortNumber>(children + 1 + ports[h])));
          return at;
        };
        ASSERT_EQ(climbFrom(sigma0), climbFrom(delta0)) << l << m << w << " " << sigma0 << "->" << delta0;
      }
    }
  }
}

// The ancestor level (circuit_fabric.h): 0 for a terminal and itself, otherwise the fewest
// upward hops after which the two terminals' climbs reach a common switch — recounted here by
// following up channels (to a higher XGFT level) through the network, every pair of FT(2, 4)
// and FT(3, 2).
TEST(CircuitFabric, AncestorLevelIsWhereTheTwoClimbsFirstMeet) {
  for (const Network& net : {makeFatTreeFt(2, 4, 4), makeFatTreeFt(3, 2, 2)}) {
    const CircuitFabric fabric(net);
    const XgftLabels& labels = *net.xgft();
    const std::uint32_t n = static_cast<std::uint32_t>(net.terminalCount());
    // reach[t][k]: the nodes k upward hops above terminal t.
    std::vector<std::vector<std::set<std::size_t>>> reach(n);
    for (std::uint32_t t = 0; t < n; ++t) {
      reach[t].push_back({net.terminalNode(t).index()});
      for (std::size_t k = 1; k <= fabric.levels(); ++k) {
        std::set<std::size_t> above;
        for (std::size_t node : reach[t].back()) {
          for (PortNumber p = 1; p <= net.portCount(NodeId::fromIndex(node)); ++p) {
            const ChannelId c = net.channelAt(NodeId::fromIndex(node), p);
            if (!c.valid()) continue;
            const NodeId next = net.target(c);
            if (labels.level[next.index()] == labels.level[node] + 1) above.insert(next.index());
          }
        }
        reach[t].push_back(above);
      }
    }
    for (std::uint32_t s = 0; s < n; ++s) {
      for (std::uint32_t d = 0; d < n; ++d) {
        std::uint32_t meet = 0;
        while (std::none_of(reach[s][meet].begin(), reach[s][meet].end(),
                            [&](std::size_t node) { return reach[d][meet].contains(node); })) {
          ++meet;
        }
        ASSERT_EQ(fabric.ancestorLevel(s, d), meet) << s << " -> " << d;
      }
    }
  }
}
