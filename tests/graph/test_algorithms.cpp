// Graph algorithms on hand-drawn networks; expected values read off the drawings.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "graph/algorithms.h"
#include "graph/builder.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

//   t0       t1        t2
//   |        |         |
//   A ------ B ------- C ------ D        F       (F: a separate island with t5)
//   |                  |       |        |
//   +------- t4 -------|-------+        t5       (t4 has two ports: A[3] and D[2])
//                      |
//                      E ---- t3
//
// Node ids: A0 B1 C2 D3 E4 F5 (switch indices 0..5), t0 6, t1 7, t2 8, t3 9, t4 10,
// t5 11 (terminal indices 0..5).
struct Drawing {
  Network net;
  NodeId a, b, c, d, e, f, t0, t1, t2, t3, t4, t5;
};

Drawing drawing() {
  NetworkBuilder builder;
  Drawing g;
  g.a = builder.addSwitch("A", 3);
  g.b = builder.addSwitch("B", 3);
  g.c = builder.addSwitch("C", 4);
  g.d = builder.addSwitch("D", 2);
  g.e = builder.addSwitch("E", 2);
  g.f = builder.addSwitch("F", 1);
  g.t0 = builder.addTerminal("t0");
  g.t1 = builder.addTerminal("t1");
  g.t2 = builder.addTerminal("t2");
  g.t3 = builder.addTerminal("t3");
  g.t4 = builder.addTerminal("t4", 2);
  g.t5 = builder.addTerminal("t5");
  builder.connect(g.t0, 1, g.a, 1);
  builder.connect(g.a, 2, g.b, 2);
  builder.connect(g.t4, 1, g.a, 3);
  builder.connect(g.t1, 1, g.b, 1);
  builder.connect(g.b, 3, g.c, 2);
  builder.connect(g.t2, 1, g.c, 1);
  builder.connect(g.c, 3, g.d, 1);
  builder.connect(g.c, 4, g.e, 1);
  builder.connect(g.t4, 2, g.d, 2);
  builder.connect(g.e, 2, g.t3, 1);
  builder.connect(g.t5, 1, g.f, 1);
  Network net = builder.build();
  g.net = std::move(net);
  return g;
}

}  // namespace

TEST(HopDistances, FromATerminalThroughSwitchesOnly) {
  const Drawing g = drawing();
  const auto d = hopDistances(g.net, g.t0);
  EXPECT_EQ(d[g.t0.index()], 0u);
  EXPECT_EQ(d[g.a.index()], 1u);
  EXPECT_EQ(d[g.b.index()], 2u);
  EXPECT_EQ(d[g.t4.index()], 2u);
  EXPECT_EQ(d[g.t1.index()], 3u);
  EXPECT_EQ(d[g.c.index()], 3u);
  EXPECT_EQ(d[g.t2.index()], 4u);
  EXPECT_EQ(d[g.d.index()], 4u);  // t0 A B C D: t4 does not forward
  EXPECT_EQ(d[g.e.index()], 4u);
  EXPECT_EQ(d[g.t3.index()], 5u);
  EXPECT_EQ(d[g.f.index()], kUnreachable);
  EXPECT_EQ(d[g.t5.index()], kUnreachable);
}

TEST(HopDistances, TerminalsForwardOnlyWhenAllowed) {
  const Drawing g = drawing();
  EXPECT_EQ(hopDistances(g.net, g.a, true)[g.d.index()], 3u);   // A B C D
  EXPECT_EQ(hopDistances(g.net, g.a, false)[g.d.index()], 2u);  // A t4 D
  // The source itself forwards even when it is a terminal: t4 reaches D in one hop.
  EXPECT_EQ(hopDistances(g.net, g.t4, true)[g.d.index()], 1u);
  EXPECT_EQ(hopDistances(g.net, g.t4, true)[g.t3.index()], 4u);  // t4 D C E t3: four channels
}

TEST(HopDistances, FromSeveralSourcesIsTheNearestSource) {
  const Drawing g = drawing();
  const std::vector<NodeId> sources{g.t0, g.t3, g.t4};
  for (const bool throughSwitchesOnly : {true, false}) {
    const auto nearest = hopDistances(g.net, sources, throughSwitchesOnly);
    for (std::size_t i = 0; i < g.net.nodeCount(); ++i) {
      std::uint32_t expected = kUnreachable;
      for (NodeId source : sources) {
        expected = std::min(expected, hopDistances(g.net, source, throughSwitchesOnly)[i]);
      }
      EXPECT_EQ(nearest[i], expected) << g.net.name(NodeId::fromIndex(i)) << " " << throughSwitchesOnly;
    }
  }
  // Every source forwards, even a terminal: D is one hop from the source t4.
  EXPECT_EQ(hopDistances(g.net, sources, true)[g.d.index()], 1u);
  EXPECT_EQ(hopDistances(g.net, std::vector<NodeId>{g.t0, g.t0}, true), hopDistances(g.net, g.t0, true));
}

TEST(SwitchDistanceMatrix, ReadOffTheDrawing) {
  const Drawing g = drawing();
  const auto m = switchDistanceMatrix(g.net);
  constexpr std::uint16_t X = UINT16_MAX;
  const std::vector<std::uint16_t> expected{
      //      A  B  C  D  E  F
      /*A*/ 0, 1, 2, 3, 3, X,
      /*B*/ 1, 0, 1, 2, 2, X,
      /*C*/ 2, 1, 0, 1, 1, X,
      /*D*/ 3, 2, 1, 0, 2, X,
      /*E*/ 3, 2, 1, 2, 0, X,
      /*F*/ X, X, X, X, X, 0,
  };
  EXPECT_EQ(m, expected);
  EXPECT_EQ(switchDiameter(g.net), 3u);  // unreachable pairs are ignored
}

TEST(ConnectedComponents, IslandsAndIds) {
  const Drawing g = drawing();
  const auto components = connectedComponents(g.net);
  EXPECT_EQ(componentCount(components), 2u);
  // Ids by first node: A's component is 0, F's is 1.
  for (NodeId node : {g.a, g.b, g.c, g.d, g.e, g.t0, g.t1, g.t2, g.t3, g.t4}) EXPECT_EQ(components[node.index()], 0u);
  EXPECT_EQ(components[g.f.index()], 1u);
  EXPECT_EQ(components[g.t5.index()], 1u);
  EXPECT_EQ(componentCount({}), 0u);
}

TEST(TerminalDiameter, LongestConnectedTerminalPair) {
  const Drawing g = drawing();
  EXPECT_EQ(terminalDiameter(g.net), 5u);  // t0 A B C E t3 (t5 is unreachable: ignored)

  //   h0  h1  h2          one switch, three terminals: every pair is 2 hops apart
  //    \  |  /
  //      S
  NetworkBuilder star;
  const NodeId s = star.addSwitch("S", 3);
  for (PortNumber p = 1; p <= 3; ++p) star.connect(star.addTerminal("h" + std::to_string(p)), 1, s, p);
  EXPECT_EQ(terminalDiameter(star.build()), 2u);

  //   x ---- y            two terminals cabled back to back: 1 hop
  NetworkBuilder pair;
  pair.connect(pair.addTerminal("x"), 1, pair.addTerminal("y"), 1);
  EXPECT_EQ(terminalDiameter(pair.build()), 1u);

  //   S1 ---- S2          no terminals at all
  NetworkBuilder bare;
  bare.connect(bare.addSwitch("S1", 1), 1, bare.addSwitch("S2", 1), 1);
  EXPECT_EQ(terminalDiameter(bare.build()), kUnreachable);

  //   h ---- S            one terminal: no pair, diameter 0
  //   a -- S1   S2 -- b   two islands of one terminal each: no connected pair, 0
  NetworkBuilder lone;
  lone.connect(lone.addTerminal("h"), 1, lone.addSwitch("S", 2), 1);
  EXPECT_EQ(terminalDiameter(lone.build()), 0u);
  NetworkBuilder islands;
  islands.connect(islands.addTerminal("a"), 1, islands.addSwitch("S1", 2), 1);
  islands.connect(islands.addTerminal("b"), 1, islands.addSwitch("S2", 2), 1);
  EXPECT_EQ(terminalDiameter(islands.build()), 0u);
}

TEST(GraphAlgorithms, AgreeWithBruteForceOnAFatTree) {
  // Every terminal-pair distance by BFS from each terminal; the maximum must equal
  // terminalDiameter, and the switch matrix must equal per-switch BFS.
  const Network net = makeKaryNtree(3, 3);
  std::uint32_t brute = 0;
  for (NodeId t : net.terminals()) {
    const auto d = hopDistances(net, t);
    for (NodeId u : net.terminals()) {
      if (d[u.index()] != kUnreachable) brute = std::max(brute, d[u.index()]);
    }
  }
  EXPECT_EQ(brute, 6u);
  EXPECT_EQ(terminalDiameter(net), brute);
  const auto matrix = switchDistanceMatrix(net);
  for (std::size_t i = 0; i < net.switchCount(); ++i) {
    const auto d = hopDistances(net, net.switchNode(i));
    for (std::size_t j = 0; j < net.switchCount(); ++j) {
      ASSERT_EQ(matrix[i * net.switchCount() + j], d[net.switchNode(j).index()]) << i << "," << j;
    }
  }
}
