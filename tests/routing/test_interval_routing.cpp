// IR / FIR registers (Gómez et al. 2007 §3.1 and §4.1): routers that use nothing but the
// registers agree with the tables everywhere; the paper's figures by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <tuple>

#include "core/errors.h"
#include "engines/fattree/fat_tree.h"
#include "routing/interval_routing.h"
#include "test_support.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

/// Exhaustive agreement on every (switch, terminal destination).
void expectAgreement(const Network& net, bool withFir) {
  const IntervalConfiguration ir = buildIrConfiguration(net);
  const RoutingResult adaptive = routeFtreeAdaptive(net, {});
  std::vector<PortNumber> byRegisters, byTable;
  std::uint64_t mismatches = 0;
  for (NodeId t : net.terminals()) {
    const std::uint64_t address = intervalAddress(net, ir, t);
    const Address a = adaptive.addresses.base(t);
    for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
      routeByRegisters(ir, ir.switches[s], address, byRegisters);
      const auto candidates = adaptive.table().candidates(s, a);
      byTable.assign(candidates.begin(), candidates.end());
      std::sort(byTable.begin(), byTable.end());
      if (byRegisters != byTable) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0u) << "IR on " << net.origin();
  if (!withFir) return;
  const IntervalConfiguration fir = buildFirConfiguration(net);
  const RoutingResult deterministic = routeFtreeDeterministic(net, {});
  mismatches = 0;
  for (NodeId t : net.terminals()) {
    const std::uint64_t address = intervalAddress(net, fir, t);
    const Address a = deterministic.addresses.base(t);
    for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
      routeByRegisters(fir, fir.switches[s], address, byRegisters);
      if (byRegisters.size() != 1 || byRegisters[0] != deterministic.table().port(s, a)) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0u) << "FIR on " << net.origin();
}

std::vector<std::uint32_t> labelsAllowed(const IntervalConfiguration& c, std::uint32_t sw, std::uint64_t destination) {
  std::vector<PortNumber> ports;
  routeByRegisters(c, c.switches[sw], destination, ports);
  std::vector<std::uint32_t> labels;
  for (PortNumber p : ports) labels.push_back(p - 1U);
  return labels;
}

}  // namespace

TEST(IntervalRouting, RegistersAgreeWithTablesOnEveryKaryNtree) {
  for (std::uint32_t k : {2u, 4u, 8u}) {
    for (std::uint32_t n : {2u, 3u, 4u}) expectAgreement(makeKaryNtree(k, n), true);
  }
}

TEST(IntervalRouting, IrAgreesOnGeneralXgftsAndFirNeedsNonPowerOfTwoFields) {
  expectAgreement(makeGft2(4, 3, 5), false);
  expectAgreement(makeXgft({{2, 3, 2}, {2, 2, 3}}), false);
  expectAgreement(makeKaryNtree(3, 3), true);  // 2-bit components, addresses not dense
  EXPECT_THROW(buildFirConfiguration(makeGft2(4, 3, 5)), UnsupportedTopology);
}

// docs/ROUTING.md: FIR supported up to k = 32 (the RRR register holds 2k label bits of 64).
TEST(IntervalRouting, FirAtItsRadixLimitAndOnePast) {
  const Network at = makeKaryNtree(32, 2);
  const IntervalConfiguration fir = buildFirConfiguration(at);
  EXPECT_EQ(fir.bitsPerDigit, 5u);
  EXPECT_EQ(fir.addressBits, 10u);
  EXPECT_EQ(fir.destinations, 1024u);
  expectAgreement(at, true);
  EXPECT_EQ(test::thrownMessage<UnsupportedTopology>([] { buildFirConfiguration(makeKaryNtree(33, 2)); }),
            "FIR registers: 33-ary 2-tree needs 12 address bits and 66 RRR bits; at most 63 and 64 are supported");
  // Not a k-ary n-tree: a different arity at one level, or fewer parents.
  EXPECT_THROW(buildFirConfiguration(makeXgft({{4, 2}, {1, 4}})), UnsupportedTopology);
  EXPECT_THROW(buildFirConfiguration(makeXgft({{4, 4}, {1, 2}})), UnsupportedTopology);
  EXPECT_THROW(buildFirConfiguration(makeXgft({{4, 4}, {1, 5}})), UnsupportedTopology);
  EXPECT_NO_THROW(buildFirConfiguration(makeXgft({{4, 4}, {1, 4}})));
}

TEST(IntervalRouting, FigureOneNodeOneToNodeFour) {
  // Gómez Fig. 1, 2-ary 4-tree, switches numbered stage by stage (switch index here).
  const Network net = makeKaryNtree(2, 4);
  const IntervalConfiguration ir = buildIrConfiguration(net);
  EXPECT_EQ(labelsAllowed(ir, 0, 4), (std::vector<std::uint32_t>{2, 3}));  // both ascending links
  // The walk of the text: link 3 to switch 9, link 2 to switch 17, link 1 to switch 11,
  // link 0 to switch 2, link 0 to node 4.
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> walk = {{0, 3}, {9, 2}, {17, 1}, {11, 0}, {2, 0}};
  for (std::size_t i = 0; i < walk.size(); ++i) {
    const auto [sw, label] = walk[i];
    const auto allowed = labelsAllowed(ir, sw, 4);
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), label), allowed.end()) << "switch " << sw;
    if (i >= 2) {
      EXPECT_EQ(allowed.size(), 1u) << "switch " << sw << " descends on a single path";
    }
    const ChannelId c = net.channelAt(net.switchNode(sw), static_cast<PortNumber>(label + 1));
    const NodeId next = net.target(c);
    if (i + 1 < walk.size()) {
      EXPECT_EQ(net.switchIndex(next), walk[i + 1].first);
    } else {
      EXPECT_EQ(net.terminalIndex(next), 4u);
    }
  }
  // All adaptive paths from 1 to 4: up to stage 2 with 2 x 2 choices.
  std::uint64_t paths = 0;
  std::function<void(NodeId)> explore = [&](NodeId at) {
    if (net.isTerminal(at)) {
      paths += net.terminalIndex(at) == 4 ? 1 : 0;
      return;
    }
    for (std::uint32_t label : labelsAllowed(ir, net.switchIndex(at), 4)) {
      explore(net.target(net.channelAt(at, static_cast<PortNumber>(label + 1))));
    }
  };
  explore(net.switchNode(0));
  EXPECT_EQ(paths, 4u);
}

TEST(IntervalRouting, FigureTwoPrototypedRegisters) {
  const Network net = makeKaryNtree(2, 4);
  const IntervalConfiguration ir = buildIrConfiguration(net);
  auto registers = [&](std::uint32_t sw) {
    std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>> out;
    for (const auto& r : ir.switches[sw].ports) out.emplace_back(r.label, r.first, r.last);
    return out;
  };
  using R = std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>>;
  // Switch 0 = <0,000>: nodes 0 and 1 below, the rest (2..15) up.
  EXPECT_EQ(registers(0), (R{{0, 0, 0}, {1, 1, 1}, {2, 2, 15}, {3, 2, 15}}));
  // Switch 10 = <1,010>: p_3 p_2 = 01 below (nodes 4..7); the up interval is cyclic.
  EXPECT_EQ(registers(10), (R{{0, 4, 5}, {1, 6, 7}, {2, 8, 3}, {3, 8, 3}}));
  // Switch 17 = <2,001>: p_3 = 0 below (0..7).
  EXPECT_EQ(registers(17), (R{{0, 0, 3}, {1, 4, 7}, {2, 8, 15}, {3, 8, 15}}));
  // Top stage: descending links only, covering everything.
  EXPECT_EQ(registers(24), (R{{0, 0, 7}, {1, 8, 15}}));
}

TEST(IntervalRouting, FigureThreeFirRegisters) {
  // 2-ary 3-tree: ascending MR 001 at stage 0, 010 at stage 1; RRR 0011; descending MR 111.
  const Network net = makeKaryNtree(2, 3);
  const IntervalConfiguration fir = buildFirConfiguration(net);
  EXPECT_EQ(fir.bitsPerDigit, 1u);
  const auto& leaf = fir.switches[0].ports;
  ASSERT_EQ(leaf.size(), 4u);
  EXPECT_EQ(leaf[2].mask, 0b001u);
  EXPECT_EQ(leaf[2].first, 0u);
  EXPECT_EQ(leaf[3].first, 1u);
  EXPECT_EQ(leaf[3].priority, 0b0011u);
  EXPECT_EQ(leaf[0].mask, 0b111u);
  EXPECT_EQ(leaf[0].priority, 0u);
  const auto& stage1 = fir.switches[4].ports;
  EXPECT_EQ(stage1[3].mask, 0b010u);
  EXPECT_EQ(stage1[3].first, 0b010u);
  // At switch 0 destination 0 is eligible on ports 0 and 2; RRR of 2 prefers 0 (§4.1).
  EXPECT_EQ(labelsAllowed(fir, 0, 0), (std::vector<std::uint32_t>{0}));
  // Switch 4 (stage 1) forwards 4 up link 2 and 6 up link 3 (§4: "Packets destined to node 4
  // select the first up link, and packets destined to node 6 the other one").
  EXPECT_EQ(labelsAllowed(fir, 4, 4), (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(labelsAllowed(fir, 4, 6), (std::vector<std::uint32_t>{3}));
}

TEST(IntervalRouting, ExportNamesEverySwitchAndPort) {
  const Network net = makeKaryNtree(2, 3);
  std::ostringstream text;
  writeIntervalConfiguration(net, buildFirConfiguration(net), "ftree-deterministic", text);
  const std::string s = text.str();
  EXPECT_NE(s.find("switch 0 'kt-s0-00' stage 0\n  port 1 label 0 down FI 000 LI 000 MR 111 RRR 0000\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("  port 4 label 3 up FI 001 LI 001 MR 001 RRR 0011\n"), std::string::npos);
  std::ostringstream irText;
  writeIntervalConfiguration(net, buildIrConfiguration(net), "ftree-adaptive", irText);
  EXPECT_NE(irText.str().find("  port 3 label 2 up FI 2 LI 7\n"), std::string::npos) << irText.str();
}

// The exported register file alone routes as the tables do: parsed here line by line and
// applied by the rule its own header states (Gómez §3.1 / §4.1) — a port is eligible when the
// address (FIR: AND MR) lies in the cyclic interval [FI, LI]; FIR drops a port whose RRR names an
// eligible port (bit j: the port labelled j takes precedence). FIR must give ftree-deterministic's
// one port, IR ftree-adaptive's candidate set, for every switch and terminal.
TEST(IntervalRouting, TheExportedFileAloneRoutesAsTheTables) {
  struct Port {
    PortNumber port = 0;
    std::uint32_t label = 0;
    std::uint64_t first = 0, last = 0, mask = ~std::uint64_t{0};
    std::string precedence;  // RRR, most significant label first
  };
  for (const auto& [k, n] : {std::pair{4U, 3U}, std::pair{3U, 2U}, std::pair{2U, 4U}}) {
    const Network net = makeKaryNtree(k, n);
    for (const bool flexible : {true, false}) {
      const RoutingResult routing = flexible ? routeFtreeDeterministic(net, {}) : routeFtreeAdaptive(net, {});
      std::ostringstream text;
      writeIntervalConfiguration(net, flexible ? buildFirConfiguration(net) : buildIrConfiguration(net), routing.engine,
                                 text);
      const std::string where = std::to_string(k) + "-ary " + std::to_string(n) + "-tree " + (flexible ? "FIR" : "IR");
      std::vector<std::vector<Port>> switches;
      std::uint32_t bitsPerDigit = 0;
      std::istringstream lines(text.str());
      for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string word;
        words >> word;
        if (line.starts_with("# address: node components")) {
          const std::size_t comma = line.find(", ");
          bitsPerDigit = static_cast<std::uint32_t>(std::stoul(line.substr(comma + 2)));
        } else if (word == "switch") {
          std::size_t index = 0;
          words >> index;
          ASSERT_EQ(index, switches.size()) << where;
          switches.emplace_back();
        } else if (word == "port") {
          Port p;
          std::string label, direction, fi, first, li, last;
          words >> p.port >> label >> p.label >> direction >> fi >> first >> li >> last;
          ASSERT_EQ(fi + li, "FILI") << line;
          ASSERT_EQ(direction == "up", p.label >= k) << line;  // down 0..k-1, up k..2k-1
          const int base = flexible ? 2 : 10;
          p.first = std::stoull(first, nullptr, base);
          p.last = std::stoull(last, nullptr, base);
          if (flexible) {
            std::string mr, mask, rrr;
            words >> mr >> mask >> rrr >> p.precedence;
            ASSERT_EQ(mr + rrr, "MRRRR") << line;
            p.mask = std::stoull(mask, nullptr, 2);
          }
          ASSERT_FALSE(switches.empty()) << line;
          switches.back().push_back(p);
        }
      }
      ASSERT_EQ(switches.size(), net.switchCount()) << where;
      ASSERT_EQ(bitsPerDigit > 0, flexible) << where;
      std::size_t checked = 0;
      for (std::uint32_t t = 0; t < net.terminalCount(); ++t) {
        std::uint64_t address = t;
        if (flexible) {  // the digits of t in base k, each in its bit field, p_0 lowest
          address = 0;
          for (std::uint32_t i = 0, rest = t; i < n; ++i, rest /= k)
            address |= std::uint64_t{rest % k} << (i * bitsPerDigit);
        }
        const Address a = routing.addresses.base(net.terminalNode(t));
        for (std::uint32_t s = 0; s < switches.size(); ++s) {
          std::vector<const Port*> eligible;
          for (const Port& p : switches[s]) {
            const std::uint64_t x = address & p.mask;
            if (p.first <= p.last ? p.first <= x && x <= p.last : x >= p.first || x <= p.last) eligible.push_back(&p);
          }
          std::vector<PortNumber> ports;
          for (const Port* p : eligible) {
            const bool yields = std::any_of(eligible.begin(), eligible.end(), [&](const Port* other) {
              return other->label < p->precedence.size() &&
                     p->precedence[p->precedence.size() - 1 - other->label] == '1';
            });
            if (!yields) ports.push_back(p->port);
          }
          std::sort(ports.begin(), ports.end());
          const auto candidates = routing.table().candidates(s, a);
          std::vector<PortNumber> expected(candidates.begin(), candidates.end());
          if (flexible) expected.resize(std::min<std::size_t>(expected.size(), 1));
          std::sort(expected.begin(), expected.end());
          EXPECT_EQ(ports, expected) << where << ": switch " << s << ", terminal " << t;
          ++checked;
        }
      }
      EXPECT_EQ(checked, net.terminalCount() * net.switchCount()) << where;
    }
  }
}
