// Random irregular fabrics (Lysne et al. 2006 §8), generated draw for draw as
// gen_ibsim_net.py (tests/data/opensm/README.md) does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/errors.h"
#include "core/options.h"
#include "graph/algorithms.h"
#include "support/test_support.h"
#include "topology/random_irregular.h"
#include "topology/registry.h"

using namespace routelab;

namespace {

using Edges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

RandomIrregularParams params(std::uint32_t switches, std::uint32_t links, std::int64_t seed, std::uint32_t radix,
                             std::uint32_t terminals = 1) {
  RandomIrregularParams p;
  p.switches = switches;
  p.links = links;
  p.seed = seed;
  p.radix = radix;
  p.terminals = terminals;
  return p;
}

/// The SpecError's message of makeRandomIrregular(p), or "built".
std::string message(const RandomIrregularParams& p) {
  return test::thrownMessage<SpecError>([&] { makeRandomIrregular(p); }, "built");
}

Network fromSpec(const std::string& text) {
  const ComponentSpec spec = parseComponent(text);
  const auto& row = topologyRegistry().find(spec.name);
  return row.factory(Options(spec.name, row.options, spec));
}

/// Every cable as (name a, port a, name b, port b), both directions.
std::set<std::tuple<std::string, int, std::string, int>> cableEnds(const Network& network) {
  std::set<std::tuple<std::string, int, std::string, int>> out;
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    const ChannelId ch = ChannelId::fromIndex(c);
    out.emplace(network.name(network.source(ch)), network.sourcePort(ch), network.name(network.target(ch)),
                network.targetPort(ch));
  }
  return out;
}

/// Simple graph, exact link count, degree <= radix, connected, ports t+1.. in order.
void expectInvariants(const Network& net, const RandomIrregularParams& p) {
  const std::uint32_t links = p.links.value_or(2 * p.switches);
  ASSERT_EQ(net.switchCount(), p.switches);
  ASSERT_EQ(net.terminalCount(), std::size_t{p.switches} * p.terminals);
  ASSERT_EQ(net.linkCount(), std::size_t{p.switches} * p.terminals + links);
  std::set<std::pair<NodeId, NodeId>> pairs;
  std::size_t switchLinks = 0;
  for (NodeId s : net.switches()) {
    EXPECT_EQ(net.portCount(s), p.radix);
    EXPECT_LE(net.degree(s), p.radix);
    // Cabled ports are exactly 1..degree (terminals first, then switch links in order).
    for (PortNumber port = 1; port <= net.degree(s); ++port) {
      const ChannelId c = net.channelAt(s, port);
      ASSERT_TRUE(c.valid()) << net.describePort(s, port);
      EXPECT_EQ(net.isTerminal(net.target(c)), port <= p.terminals) << net.describePort(s, port);
      if (net.isSwitch(net.target(c))) {
        EXPECT_NE(net.target(c), s) << "self-loop at " << net.describePort(s, port);
        if (s < net.target(c)) {
          EXPECT_TRUE(pairs.emplace(s, net.target(c)).second) << "parallel cable at " << net.describePort(s, port);
        }
        ++switchLinks;
      }
    }
  }
  EXPECT_EQ(switchLinks, 2 * std::size_t{links});
  EXPECT_EQ(pairs.size(), links) << "parallel cables";
  EXPECT_EQ(componentCount(connectedComponents(net)), 1u);
}

}  // namespace

// Edge lists in creation order printed by gen_ibsim_net.py's random_irregular(S, L, seed,
// radix) (Net.link instrumented). (6, 9, 5, 4) needs 5 attempts: its extra-link loop
// gives up after 100000 draws four times, so the retry path is reproduced as well.
TEST(RandomIrregular, SameSwitchLinksAsGenIbsimNet) {
  const std::vector<std::pair<RandomIrregularParams, Edges>> cases{
      {params(16, 32, 1, 16),
       {{10, 2}, {0, 10}, {14, 10}, {6, 2}, {5, 14}, {3, 0},  {8, 5},   {7, 14},  {11, 10}, {15, 5}, {1, 2},
        {12, 2}, {13, 2}, {9, 15},  {4, 7}, {0, 12}, {6, 13}, {0, 7},   {14, 15}, {7, 11},  {14, 9}, {0, 13},
        {3, 5},  {9, 3},  {10, 13}, {6, 9}, {12, 1}, {15, 7}, {12, 13}, {5, 11},  {11, 2},  {14, 3}}},
      {params(8, 12, 7, 5),
       {{7, 6}, {2, 6}, {4, 2}, {0, 7}, {3, 6}, {1, 6}, {5, 0}, {3, 1}, {0, 3}, {0, 2}, {2, 1}, {5, 1}}},
      {params(12, 20, 123456789012, 5),
       {{8, 7}, {9, 7},  {11, 7}, {5, 9},  {1, 7}, {3, 11}, {2, 9}, {4, 11}, {0, 9}, {10, 11},
        {6, 1}, {10, 4}, {8, 4},  {6, 10}, {0, 2}, {2, 10}, {6, 0}, {6, 5},  {0, 5}, {2, 1}}},
      {params(6, 9, 1, 4), {{3, 2}, {5, 3}, {0, 3}, {4, 0}, {1, 4}, {1, 0}, {2, 5}, {2, 1}, {4, 5}}},
      {params(6, 9, 5, 4), {{5, 3}, {4, 3}, {0, 5}, {2, 5}, {1, 3}, {2, 4}, {4, 1}, {0, 1}, {2, 0}}},
      {params(7, 10, 3, 4), {{2, 0}, {3, 0}, {6, 2}, {5, 3}, {4, 5}, {1, 2}, {1, 5}, {3, 4}, {6, 4}, {6, 0}}},
  };
  for (const auto& [p, expected] : cases) {
    SCOPED_TRACE(::testing::Message() << p.switches << " switches, seed " << p.seed);
    EXPECT_EQ(randomIrregularSwitchLinks(p), expected);
    expectInvariants(makeRandomIrregular(p), p);
  }
}

// The ibsim/OpenSM fixture rnd16_s1 was written by `gen_ibsim_net.py random 16 --seed 1`.
// Parse its topology.net minimally (node headers and port lines) and compare node order,
// kinds, names, port counts and every cable end with the generated fabric.
TEST(RandomIrregular, EqualsTheRnd16Fixture) {
  const std::string path = test::fixturesDir() + "/rnd16_s1/topology.net";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot open " << path;
  std::vector<std::tuple<std::string, std::string, int>> nodes;  // kind, name, ports
  std::set<std::tuple<std::string, int, std::string, int>> ends;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      const int port = std::stoi(line.substr(1));
      const auto q1 = line.find('"');
      const auto q2 = line.find('"', q1 + 1);
      const int remotePort = std::stoi(line.substr(line.find('[', q2) + 1));
      ASSERT_FALSE(nodes.empty());
      ends.emplace(std::get<1>(nodes.back()), port, line.substr(q1 + 1, q2 - q1 - 1), remotePort);
    } else {
      std::istringstream header(line);
      std::string kind, quoted;
      int ports = 0;
      header >> kind >> ports >> quoted;
      nodes.emplace_back(kind, quoted.substr(1, quoted.size() - 2), ports);
    }
  }
  const Network net = fromSpec("random:switches=16,links=32,terminals=1,radix=16,seed=1");
  ASSERT_EQ(nodes.size(), net.nodeCount());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    EXPECT_EQ(std::get<0>(nodes[i]), net.isSwitch(node) ? "Switch" : "Hca") << i;
    EXPECT_EQ(std::get<1>(nodes[i]), net.name(node)) << i;
    EXPECT_EQ(std::get<2>(nodes[i]), net.portCount(node)) << i;
  }
  EXPECT_EQ(ends.size(), 2u * 48u);
  EXPECT_EQ(ends, cableEnds(net));
  // The defaults are the fixture's parameters (links = 2 x switches, 1 terminal, radix 16).
  EXPECT_EQ(cableEnds(fromSpec("random:switches=16")), ends);
}

TEST(RandomIrregular, ReproducibleAndSeedDependent) {
  const auto p = params(64, 128, 7, 16);
  EXPECT_EQ(cableEnds(makeRandomIrregular(p)), cableEnds(makeRandomIrregular(p)));
  auto other = p;
  other.seed = 8;
  EXPECT_NE(randomIrregularSwitchLinks(p), randomIrregularSwitchLinks(other));
  EXPECT_NE(cableEnds(makeRandomIrregular(p)), cableEnds(makeRandomIrregular(other)));
}

TEST(RandomIrregular, InvariantsOverManySeedsAndShapes) {
  // Lysne §8 sizes at twice as many links as switches, plus dense, sparse (tree) and
  // tight-radix shapes, several terminals per switch.
  for (std::int64_t seed = 1; seed <= 16; ++seed) {
    for (std::uint32_t s : {16u, 32u, 64u})
      expectInvariants(makeRandomIrregular(params(s, 2 * s, seed, 16)), params(s, 2 * s, seed, 16));
    expectInvariants(makeRandomIrregular(params(20, 19, seed, 8)), params(20, 19, seed, 8));        // a tree
    expectInvariants(makeRandomIrregular(params(10, 45, seed, 10)), params(10, 45, seed, 10));      // complete K10
    expectInvariants(makeRandomIrregular(params(12, 24, seed, 8, 4)), params(12, 24, seed, 8, 4));  // every port used
    expectInvariants(makeRandomIrregular(params(9, 12, seed, 6, 0)), params(9, 12, seed, 6, 0));    // no terminals
  }
}

TEST(RandomIrregular, NamesAndPortsWithSeveralTerminals) {
  const Network net = fromSpec("random:switches=12,links=20,terminals=3,radix=10,seed=4");
  EXPECT_EQ(net.terminalCount(), 36u);
  EXPECT_EQ(net.name(net.terminalNode(0)), "rnd-h00-0");
  EXPECT_EQ(net.name(net.terminalNode(35)), "rnd-h11-2");
  EXPECT_EQ(net.name(net.switchNode(11)), "rnd-sw11");
  // Terminals come first in node order (as gen_ibsim_net.py writes files).
  EXPECT_TRUE(net.isTerminal(NodeId(35)));
  EXPECT_TRUE(net.isSwitch(NodeId(36)));
  const NodeId host = *net.findNode("rnd-h07-2");
  const ChannelId inject = net.injectionChannel(host);
  EXPECT_EQ(net.name(net.target(inject)), "rnd-sw07");
  EXPECT_EQ(net.targetPort(inject), 3);
  // Same switch graph as with one terminal, on ports shifted by two.
  auto one = params(12, 20, 4, 8, 1);
  EXPECT_EQ(randomIrregularSwitchLinks(one), randomIrregularSwitchLinks(params(12, 20, 4, 10, 3)));
}

// Indices are zero-padded to the width of the largest one, each at the power of ten where a
// digit is added: 10 terminals per switch are slots 0..9, 11 are 00..10; 10 switches are
// sw0..sw9, 11 are sw00..sw10 (and so are their one-terminal hosts).
TEST(RandomIrregular, IndicesArePaddedToTheWidestAtEachPowerOfTen) {
  for (const std::uint32_t terminals : {9u, 10u, 11u}) {
    const Network net = fromSpec(fmt::format("random:switches=2,links=1,terminals={},radix=12,seed=1", terminals));
    const std::string last = std::to_string(terminals - 1);
    const std::string first = std::string(last.size(), '0');
    EXPECT_EQ(net.name(net.terminalNode(0)), "rnd-h0-" + first) << terminals;
    EXPECT_EQ(net.name(net.terminalNode(2 * terminals - 1)), "rnd-h1-" + last) << terminals;
  }
  for (const std::uint32_t switches : {10u, 11u}) {
    const Network net = fromSpec(fmt::format("random:switches={},seed=1", switches));
    const std::string last = std::to_string(switches - 1);
    const std::string first = std::string(last.size(), '0');
    EXPECT_EQ(net.name(net.switchNode(0)), "rnd-sw" + first) << switches;
    EXPECT_EQ(net.name(net.switchNode(switches - 1)), "rnd-sw" + last) << switches;
    EXPECT_EQ(net.name(net.terminalNode(0)), "rnd-h" + first) << switches;
  }
}

TEST(RandomIrregular, SingleSwitch) {
  const Network net = fromSpec("random:switches=1,links=0");
  EXPECT_EQ(net.switchCount(), 1u);
  EXPECT_EQ(net.terminalCount(), 1u);
  EXPECT_EQ(net.name(net.switchNode(0)), "rnd-sw0");
}

// gen_ibsim_net.py's link limits, each at the limit (built) and one past (refused with the
// whole message, whose numbers are recomputed here).
TEST(RandomIrregular, EachLinkLimitHoldsAtTheLimitAndIsRefusedOnePast) {
  EXPECT_EQ(message(params(16, 15, 1, 16)), "built");  // a spanning tree: S - 1 links
  EXPECT_EQ(message(params(16, 14, 1, 16)),
            "random: need at least S-1 links for connectivity ('links' = 14 < 'switches' - 1 = 15)");
  EXPECT_EQ(message(params(5, 10, 1, 16)), "built");  // the complete graph: 5 choose 2
  EXPECT_EQ(message(params(5, 11, 1, 16)),
            "random: too many links for a simple graph ('links' = 11 > 'switches' (5) choose 2 = 10)");
  EXPECT_EQ(message(params(16, 25, 1, 4)),
            "random: radix too small ('radix' = 4 with 'terminals' = 1 leaves 3 switch ports per switch; 25 links "
            "need 50 switch ports in total, 48 available)");
}

// Links left to their default (2 x switches, as gen_ibsim_net.py) and refused: the message
// says they were not given. Five switches take their default of 10 (the complete graph).
TEST(RandomIrregular, ARefusalOfDefaultLinksSaysTheyWereNotGiven) {
  RandomIrregularParams defaulted = params(4, 0, 1, 16);
  defaulted.links.reset();
  EXPECT_EQ(message(defaulted),
            "random: too many links for a simple graph ('links' = 8 > 'switches' (4) choose 2 = 6; "
            "'links' not given: the default, 2 x 'switches' = 8)");
  defaulted.switches = 16;
  defaulted.radix = 4;
  EXPECT_EQ(message(defaulted),
            "random: radix too small ('radix' = 4 with 'terminals' = 1 leaves 3 switch ports per switch; 32 links need "
            "64 switch ports in total, 48 available; 'links' not given: the default, 2 x 'switches' = 32)");
  defaulted.switches = 5;
  defaulted.radix = 16;
  EXPECT_EQ(message(defaulted), "built");
}

TEST(RandomIrregular, ImpossibleParametersAreSpecErrorsNamingTheOptions) {
  EXPECT_NE(message(params(16, 14, 1, 16)).find("need at least S-1 links"), std::string::npos);
  EXPECT_NE(message(params(16, 14, 1, 16)).find("'links'"), std::string::npos);
  EXPECT_NE(message(params(5, 11, 1, 16)).find("too many links for a simple graph"), std::string::npos);
  EXPECT_NE(message(params(16, 32, 1, 4)).find("radix too small"), std::string::npos);
  EXPECT_NE(message(params(16, 32, 1, 4)).find("'radix'"), std::string::npos);
  EXPECT_NE(message(params(4, 3, 1, 2, 3)).find("radix too small"), std::string::npos);
  EXPECT_NE(message(params(0, 0, 1, 16)).find("'switches'"), std::string::npos);
  EXPECT_NE(message(params(4, 4, 1, 255)).find("'radix'"), std::string::npos);
  EXPECT_THROW(fromSpec("random:switches=16,links=-1"), SpecError);
  EXPECT_THROW(fromSpec("random:switches=16,seed=-1"), SpecError);
  EXPECT_THROW(fromSpec("random:links=3"), SpecError);
}
