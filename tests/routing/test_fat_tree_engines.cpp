// Fat-tree engines: exact tables derived by hand from the papers' formulas, equalities
// between engines, the checks on every engine and small fabric, error paths.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "engines/fattree/fat_tree.h"
#include "engines/fattree/xgft_tables.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "routing/checks.h"
#include "test_stats.h"
#include "test_support.h"
#include "topology/recognize.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

std::uint32_t sw(const Network& net, const std::string& name) { return net.switchIndex(net.findNode(name).value()); }

/// Up port (hardware) of a switch path walk: the sequence of nodes visited.
std::vector<std::string> nodesOnPath(const Network& net, const RoutingResult& r, NodeId source, NodeId destination,
                                     std::uint32_t path = 0) {
  const Path p = r.path(net, source, r.addressFor(source, destination, path));
  EXPECT_EQ(p.status, PathStatus::Delivered);
  std::vector<std::string> names;
  for (ChannelId c : p.channels) names.push_back(net.name(net.target(c)));
  return names;
}

}  // namespace

TEST(FtreeDeterministic, TwoAryThreeTreeTablesFollowGomezSection4) {
  // 2-ary 3-tree: leaf <0,o> sends destination p up through port k + p_0 (label), i.e.
  // hardware port 3 + p_0; stage 1 climbs through 3 + p_1; descending uses 1 + p_s.
  const Network net = makeKaryNtree(2, 3);
  const RoutingResult r = routeFtreeDeterministic(net, {});
  ASSERT_EQ(r.addresses.count(), 8u);
  const ForwardingTable& t = r.table();
  const std::vector<PortNumber> leaf0 = {1, 2, 3, 4, 3, 4, 3, 4};   // kt-s0-00 holds nodes 0, 1
  const std::vector<PortNumber> stage1 = {1, 1, 2, 2, 3, 3, 4, 4};  // kt-s1-00: p_2 = 0 below
  const std::vector<PortNumber> stage2 = {1, 1, 1, 1, 2, 2, 2, 2};  // kt-s2-00: 1 + p_2
  const std::vector<PortNumber> leaf3 = {3, 4, 3, 4, 3, 4, 1, 2};   // kt-s0-11 holds nodes 6, 7
  for (Address d = 0; d < 8; ++d) {
    EXPECT_EQ(t.port(sw(net, "kt-s0-00"), d), leaf0[d]) << d;
    EXPECT_EQ(t.port(sw(net, "kt-s1-00"), d), stage1[d]) << d;
    EXPECT_EQ(t.port(sw(net, "kt-s2-00"), d), stage2[d]) << d;
    EXPECT_EQ(t.port(sw(net, "kt-s0-11"), d), leaf3[d]) << d;
    EXPECT_EQ(t.candidates(sw(net, "kt-s0-00"), d).size(), 1u);
  }
  EXPECT_TRUE(r.deterministic);
  EXPECT_TRUE(r.minimal);
}

TEST(FtreeDeterministic, FigureThreePathCountsAreEqualPerStage) {
  // Gómez Fig. 3: every ascending and descending channel of a stage carries the same number
  // of source-destination paths. 2-ary 3-tree by hand: a leaf sends 2 x 6 pairs up over 2
  // links (6 each); a stage-1 pair of switches sends 4 x 4 pairs over 4 links (4 each); the
  // descent mirrors it (4 from stage 2, 6 from stage 1); terminal links carry N - 1 = 7.
  const Network net = makeKaryNtree(2, 3);
  const RoutingCheckReport report = checkRouting(net, routeFtreeDeterministic(net, {}));
  ASSERT_TRUE(report.passed());
  std::map<std::pair<std::size_t, bool>, std::uint64_t> expected = {{{0, true}, 7},  {{1, true}, 6},  {{2, true}, 4},
                                                                    {{3, false}, 4}, {{2, false}, 6}, {{1, false}, 7}};
  std::size_t seen = 0;
  for (const StageCount& stage : report.stages) {
    if (stage.channels == 0) continue;
    const auto it = expected.find({stage.fromLevel(), stage.ascending});
    if (stage.fromLevel() == 3 && stage.ascending) continue;  // unconnected top ports carry nothing
    ASSERT_NE(it, expected.end()) << stage.fromLevel() << " " << stage.ascending;
    EXPECT_EQ(stage.minPaths, it->second) << stage.fromLevel() << (stage.ascending ? " up" : " down");
    EXPECT_EQ(stage.maxPaths, it->second) << stage.fromLevel() << (stage.ascending ? " up" : " down");
    ++seen;
  }
  EXPECT_EQ(seen, expected.size());
  // In route's order (docs/ROUTING.md): ascending from the bottom, then descending from the top.
  std::vector<std::pair<std::size_t, bool>> order;
  for (const StageCount& stage : report.stages) {
    if (stage.channels != 0) order.emplace_back(stage.fromLevel(), stage.ascending);
  }
  EXPECT_EQ(order, (std::vector<std::pair<std::size_t, bool>>{
                       {0, true}, {1, true}, {2, true}, {3, false}, {2, false}, {1, false}}));
  // And on larger trees: min == max at every stage.
  for (auto [k, n] : {std::pair{4u, 3u}, std::pair{3u, 3u}, std::pair{2u, 4u}}) {
    const Network tree = makeKaryNtree(k, n);
    const RoutingCheckReport r = checkRouting(tree, routeFtreeDeterministic(tree, {}));
    for (const StageCount& stage : r.stages) {
      EXPECT_EQ(stage.minPaths, stage.maxPaths) << k << "-ary " << n << "-tree level " << stage.fromLevel();
    }
  }
}

TEST(FtreeAdaptive, CandidatesAreEveryUpPortDeterministicFirst) {
  const Network net = makeKaryNtree(4, 3);
  const RoutingResult adaptive = routeFtreeAdaptive(net, {});
  const RoutingResult deterministic = routeFtreeDeterministic(net, {});
  EXPECT_FALSE(adaptive.deterministic);
  // kt-s0-000 (leaf of nodes 0..3) to node 6 (p_0 = 2): all four up ports 5..8, 5 + 2 first.
  const auto candidates = adaptive.table().candidates(sw(net, "kt-s0-00"), 6);
  ASSERT_EQ(candidates.size(), 4u);
  EXPECT_EQ(std::vector<PortNumber>(candidates.begin(), candidates.end()), (std::vector<PortNumber>{7, 8, 5, 6}));
  for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
    for (Address a = 0; a < adaptive.addresses.count(); ++a) {
      EXPECT_EQ(adaptive.table().port(s, a), deterministic.table().port(s, a));
    }
  }
  // Descending entries have one candidate (Gómez §3: a single descending path).
  EXPECT_EQ(adaptive.table().candidates(sw(net, "kt-s2-00"), 6).size(), 1u);
}

TEST(Dmodk, EqualsFtreeDeterministicOnEveryXgft) {
  for (const Network& net : {makeKaryNtree(3, 3), makeGft2(4, 3, 5), makeXgft({{2, 3, 2}, {1, 2, 3}})}) {
    const RoutingResult a = routeDmodk(net, {});
    const RoutingResult b = routeFtreeDeterministic(net, {});
    for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
      for (Address d = 0; d < a.addresses.count(); ++d) ASSERT_EQ(a.table().port(s, d), b.table().port(s, d));
    }
  }
}

namespace {

/// Every entry of two tables, the first difference named.
void expectSameEntries(const Network& net, const ForwardingTable& a, const ForwardingTable& b,
                       const std::string& what) {
  ASSERT_EQ(a.switchCount(), b.switchCount()) << what;
  ASSERT_EQ(a.addressCount(), b.addressCount()) << what;
  for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
    for (Address d = 0; d < a.addressCount(); ++d) {
      ASSERT_EQ(a.port(s, d), b.port(s, d)) << what << ": switch " << net.name(net.switchNode(s)) << " address " << d;
    }
  }
}

/// `net` rebuilt with its terminals in reverse order and its XGFT labels recognised again:
/// terminal order (and so address order) no longer follows the XGFT's terminal index.
Network withTerminalsReversed(const Network& net) {
  NetworkBuilder builder;
  std::vector<NodeId> node(net.nodeCount());
  for (NodeId s : net.switches()) node[s.index()] = builder.addSwitch(net.name(s), net.portCount(s), net.guid(s));
  for (std::size_t i = net.terminalCount(); i-- > 0;) {
    const NodeId t = net.terminalNode(i);
    node[t.index()] = builder.addTerminal(net.name(t), net.portCount(t), net.guid(t));
  }
  for (std::size_t c = 0; c < net.channelCount(); c += 2) {
    const auto channel = ChannelId::fromIndex(c);
    builder.connect(node[net.source(channel).index()], net.sourcePort(channel), node[net.target(channel).index()],
                    net.targetPort(channel));
  }
  std::optional<Network> recognised = recognizeFatTree(builder.build());
  EXPECT_TRUE(recognised.has_value());
  return recognised ? recognised->withOrigin(net.origin() + " (terminals reversed)") : net;
}

/// XGFTs of every shape the row filler distinguishes: k-ary n-trees, 2-level GFTs, levels
/// with one parent (w = 1 above the leaves), slimmed upper levels, and OpenSM's 6-ary
/// 2-tree imported from ibnetdiscover, and fabrics whose terminal (address) order is not the
/// XGFT's terminal order (the filler's terminal-by-terminal path).
std::vector<Network> rowFillerFabrics() {
  std::vector<Network> fabrics;
  fabrics.push_back(makeKaryNtree(2, 3));
  fabrics.push_back(makeKaryNtree(3, 3));
  fabrics.push_back(makeKaryNtree(4, 2));
  fabrics.push_back(makeGft2(4, 3, 5));
  fabrics.push_back(makeXgft({{2, 3, 2}, {1, 2, 3}}));
  fabrics.push_back(makeXgft({{3, 2, 2}, {2, 1, 2}}));
  fabrics.push_back(loadFabric("file:" + test::fixturesDir() + "/k6n2/ibnetdiscover.txt").network);
  fabrics.push_back(withTerminalsReversed(makeKaryNtree(3, 2)));
  fabrics.push_back(withTerminalsReversed(makeXgft({{2, 3, 2}, {1, 2, 3}})));
  return fabrics;
}

}  // namespace

// D-mod-k writes ports in whole rows in closed form (one template per level, the subtree's
// down ports as runs); ftree-adaptive writes candidate-list codes whose first port is the
// same digit selection. Their preferred ports agree on every entry — terminal addresses,
// LMC paths and switch addresses alike.
TEST(FatTreeEngines, RowFillerEqualsTheEntryByEntryFiller) {
  for (const Network& net : rowFillerFabrics()) {
    for (const std::uint32_t paths : {1u, 2u, 4u}) {
      for (const bool switchAddresses : {false, true}) {
        RoutingContext context;
        context.addressesPerTerminal = paths;
        context.routeSwitches = switchAddresses;
        const RoutingResult rows = routeDmodk(net, context);
        const RoutingResult entries = routeFtreeAdaptive(net, context);
        expectSameEntries(net, rows.table(), entries.table(),
                          fmt::format("{} paths {} switch addresses {}", net.origin(), paths, switchAddresses));
      }
    }
  }
}

// ftree-adaptive writes one-byte list codes row by row; the entry-by-entry filler, kept for
// tables whose codes are wider than a byte, must store the same candidate lists everywhere.
TEST(FatTreeEngines, AdaptiveRowsEqualTheEntryByEntryFiller) {
  for (const Network& net : rowFillerFabrics()) {
    for (const std::uint32_t paths : {1u, 2u}) {
      for (const bool switchAddresses : {false, true}) {
        RoutingContext context;
        context.addressesPerTerminal = paths;
        context.routeSwitches = switchAddresses;
        const RoutingResult rows = routeFtreeAdaptive(net, context);
        ASSERT_EQ(rows.table().codeWidth(), 1u);
        const xgft_detail::XgftModel model(net, "test");
        RoutingResult entries;
        entries.addresses = rows.addresses;
        ForwardingTable& table = entries.tables.emplace_back(net.switchCount(), rows.addresses.count());
        const auto digit = [&model](std::size_t level, std::uint64_t, std::uint64_t d, std::uint32_t path,
                                    std::uint32_t) {
          return static_cast<std::uint32_t>((d / model.wProduct(level) + path) % model.upCount(level));
        };
        xgft_detail::fillAdaptiveEntries(model, context, 1, digit, entries,
                                         xgft_detail::internUpPortLists(model, table));
        for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
          for (Address a = 0; a < table.addressCount(); ++a) {
            const auto want = table.candidates(s, a);
            const auto got = rows.table().candidates(s, a);
            ASSERT_TRUE(std::ranges::equal(want, got))
                << net.origin() << " paths " << paths << " switch " << net.name(net.switchNode(s)) << " address " << a;
          }
        }
      }
    }
  }
}

// A level-1 switch of 200 terminals and 50 up ports: its 50 rotations and its ports do not
// fit in one-byte codes together, so ftree-adaptive fills two-byte codes entry by entry.
TEST(FtreeAdaptive, PortsNearTheByteLimitWidenTheCodes) {
  const Network net = makeXgft({{200, 2}, {1, 50}});
  const RoutingResult adaptive = routeFtreeAdaptive(net, {});
  ASSERT_EQ(adaptive.table().codeWidth(), 2u);
  expectSameEntries(net, adaptive.table(), routeDmodk(net, {}).table(), "preferred ports");
  // Leaf 0 towards terminal 200 (the other leaf): every up port 201..250, the digit's first.
  const auto candidates = adaptive.table().candidates(0, 200);
  ASSERT_EQ(candidates.size(), 50u);
  EXPECT_EQ(candidates.front(), adaptive.table().port(0, 200));
  EXPECT_EQ(*std::ranges::min_element(candidates), 201);
  EXPECT_EQ(*std::ranges::max_element(candidates), 250);
  EXPECT_EQ(adaptive.table().candidates(0, 5).size(), 1u);  // its own terminal: one down port
}

// A climb that reads only (level, destination, path, class) may be computed once per level
// (ClimbScope::Level) or per switch (ClimbScope::Switch): the same table either way.
TEST(FatTreeEngines, LevelTemplateEqualsTheClimbOfEverySwitch) {
  for (const Network& net : rowFillerFabrics()) {
    const xgft_detail::XgftModel model(net, "test");
    const auto climb = [&model](std::size_t level, std::uint64_t, std::uint64_t d, std::uint32_t path,
                                std::uint32_t sourceClass) {
      return static_cast<std::uint32_t>((d * 7 + path * 3 + sourceClass) % model.upCount(level));
    };
    RoutingContext context;
    context.addressesPerTerminal = 2;
    context.routeSwitches = true;
    const RoutingResult perLevel =
        xgft_detail::fillXgftRouting(model, context, 3, false, climb, xgft_detail::ClimbScope::Level);
    const RoutingResult perSwitch =
        xgft_detail::fillXgftRouting(model, context, 3, false, climb, xgft_detail::ClimbScope::Switch);
    expectSameEntries(net, perLevel.table(), perSwitch.table(), net.origin());
  }
}

TEST(Dmodk, TopSwitchIsDModM) {
  // Nienaber §III.A on T(4+3, 5): (s, d) on different leaves goes through TSW_{d mod 3}.
  const Network net = makeGft2(4, 3, 5);
  const RoutingResult r = routeDmodk(net, {});
  for (std::uint32_t s = 0; s < 20; ++s) {
    for (std::uint32_t d = 0; d < 20; ++d) {
      if (s / 4 == d / 4) continue;
      const auto nodes = nodesOnPath(net, r, net.terminalNode(s), net.terminalNode(d));
      ASSERT_EQ(nodes.size(), 4u);
      EXPECT_EQ(nodes[1], fmt::format("gft-top{}", d % 3)) << s << "->" << d;
    }
  }
}

TEST(Smodk, TopSwitchIsSModMWithOneAddressPerSourceClass) {
  const Network net = makeGft2(4, 3, 5);
  const RoutingResult r = routeSmodk(net, {});
  EXPECT_EQ(r.sourceClasses, 3u);
  EXPECT_EQ(r.addresses.count(), 20u * 3);
  for (std::uint32_t s = 0; s < 20; ++s) {
    for (std::uint32_t d = 0; d < 20; ++d) {
      if (s / 4 == d / 4) continue;
      const auto nodes = nodesOnPath(net, r, net.terminalNode(s), net.terminalNode(d));
      EXPECT_EQ(nodes[1], fmt::format("gft-top{}", s % 3)) << s << "->" << d;
    }
  }
  // Leaf 0's entries for node 9 (base address 27): class c climbs to TSW_c, port n + 1 + c.
  for (std::uint32_t c = 0; c < 3; ++c) EXPECT_EQ(r.table().port(sw(net, "gft-leaf0"), 27 + c), 5 + c);
  // The statistics route prints: the source classes where there are several, none otherwise.
  EXPECT_EQ(test::statOf(r.stats, "source_classes"), "3");
  EXPECT_EQ(test::statOf(r.stats, "xgft"), net.xgft()->params.str());
  EXPECT_EQ(test::statOf(r.stats, "paths_per_terminal"), "1");
  const RoutingResult d = routeDmodk(net, {});
  EXPECT_EQ(d.sourceClasses, 1u);
  EXPECT_EQ(test::statOf(d.stats, "source_classes"), "");
  EXPECT_EQ(test::statOf(d.stats, "xgft"), net.xgft()->params.str());
}

TEST(Smodk, EveryClimbFollowsTheDocumentedFormulaWhereTerminalsHaveSeveralParents) {
  // docs/ROUTING.md (Nienaber §III.A): source s has class c = (s / w_1) mod (W_h / w_1), and a
  // level-l switch climbs through its up port b = floor(c / (W_l / w_1)) mod w_{l+1} (up
  // ports follow the m_l down ports). Recomputed for every pair on XGFTs with w_1 > 1, where
  // s / w_1 and s itself differ.
  for (const Network& net : {makeXgft({{3, 2, 2}, {2, 1, 2}}), makeXgft({{2, 2, 3}, {2, 3, 2}})}) {
    SCOPED_TRACE(net.origin());
    const xgft_detail::XgftModel model(net, "smodk");
    const RoutingResult r = routeSmodk(net, {});
    const std::uint64_t w1 = model.params().w[0];
    ASSERT_GT(w1, 1u);
    const std::uint64_t classes = model.wProduct(model.height()) / w1;
    ASSERT_EQ(r.sourceClasses, classes);
    std::set<std::uint64_t> seen;
    for (NodeId s : net.terminals()) {
      const std::uint64_t c = model.terminalIndex(s) / w1 % classes;
      seen.insert(c);
      EXPECT_EQ(r.sourceClassOf[r.addresses.sourceIndex(s)], c) << net.name(s);
      for (NodeId d : net.terminals()) {
        if (s == d) continue;
        const Path p = r.path(net, s, r.addressFor(s, d, 0));
        ASSERT_EQ(p.status, PathStatus::Delivered) << net.name(s) << " -> " << net.name(d);
        for (ChannelId hop : p.channels) {
          const NodeId from = net.source(hop);
          if (!net.isSwitch(from)) continue;
          const std::size_t level = model.switchLevel(net.switchIndex(from));
          const std::uint32_t port = net.sourcePort(hop);
          if (port <= model.m(level)) continue;  // a down port
          EXPECT_EQ(port - model.m(level) - 1, c / (model.wProduct(level) / w1) % model.upCount(level))
              << net.name(s) << " -> " << net.name(d) << " at " << net.name(from);
        }
      }
    }
    EXPECT_EQ(seen.size(), classes) << "every class has a source";
  }
}

TEST(Opt, FigureTwoVerbatim) {
  // T(4+4, 8): k = 2, grp_size = 2: nodes 0-1 of a leaf are group 0, 2-3 group 1; the pair
  // (s, d) uses TSW_{src_grp * 2 + dst_grp}.
  const Network net = makeGft2(4, 4, 8);
  const RoutingResult r = routeOpt(net, {});
  EXPECT_EQ(r.sourceClasses, 2u);
  for (std::uint32_t s = 0; s < 32; ++s) {
    for (std::uint32_t d = 0; d < 32; ++d) {
      if (s / 4 == d / 4) continue;
      const auto nodes = nodesOnPath(net, r, net.terminalNode(s), net.terminalNode(d));
      EXPECT_EQ(nodes[1], fmt::format("gft-top{}", (s % 4) / 2 * 2 + (d % 4) / 2)) << s << "->" << d;
    }
  }
  // T(12+12, 24) (n = m = 12, r = 24): k = 3, grp_size = 4, tops 0..8 used (Fig. 2:
  // floor(sqrt m)^2 of them).
  const Network big = makeGft2(12, 12, 24);
  const RoutingResult rb = routeOpt(big, {});
  std::set<std::string> tops;
  for (std::uint32_t s = 0; s < 12; ++s) {
    for (std::uint32_t d = 12; d < 24; ++d)
      tops.insert(nodesOnPath(big, rb, big.terminalNode(s), big.terminalNode(d))[1]);
  }
  EXPECT_EQ(tops.size(), 9u);
  EXPECT_EQ(*tops.rbegin(), "gft-top08");
}

TEST(OptBalanced, MovesOntoUnusedTopsKeepTheBound) {
  // T(12+12, 24): OPT leaves TSW_9..11 unused; B = ceil(12 / sqrt 12) = 4.
  const Network net = makeGft2(12, 12, 24);
  const RoutingResult r = routeOptBalanced(net, {});
  const std::uint32_t n = 12, N = 288, bound = 4;
  // Collect the (source, destination) sets of every leaf->top and top->leaf link.
  std::map<std::pair<int, int>, std::pair<std::set<int>, std::set<int>>> up, down;
  std::map<int, std::uint64_t> load;
  for (std::uint32_t s = 0; s < N; ++s) {
    for (std::uint32_t d = 0; d < N; ++d) {
      if (s / n == d / n) continue;
      const auto nodes = nodesOnPath(net, r, net.terminalNode(s), net.terminalNode(d));
      const int top = std::stoi(nodes[1].substr(7));
      ++load[top];
      auto& u = up[{static_cast<int>(s / n), top}];
      u.first.insert(static_cast<int>(s));
      u.second.insert(static_cast<int>(d));
      auto& w = down[{top, static_cast<int>(d / n)}];
      w.first.insert(static_cast<int>(s));
      w.second.insert(static_cast<int>(d));
    }
  }
  EXPECT_EQ(load.size(), 12u);  // every top switch carries traffic now
  for (const auto* links : {&up, &down}) {
    for (const auto& [link, sets] : *links) {
      const int top = link.first >= 0 && links == &up ? link.second : link.first;
      if (top < 9) continue;  // receiving links only
      EXPECT_TRUE(sets.first.size() <= bound || sets.second.size() <= bound)
          << "top " << top << ": " << sets.first.size() << " sources, " << sets.second.size() << " destinations";
    }
  }
  // Perfect squares with n divisible by sqrt(m): nothing to move, OPT's paths.
  const Network square = makeGft2(4, 4, 8);
  const RoutingResult a = routeOpt(square, {}), b = routeOptBalanced(square, {});
  for (std::uint32_t s = 0; s < 32; ++s) {
    for (std::uint32_t d = 0; d < 32; ++d) {
      if (s == d) continue;
      EXPECT_EQ(nodesOnPath(square, a, square.terminalNode(s), square.terminalNode(d)),
                nodesOnPath(square, b, square.terminalNode(s), square.terminalNode(d)));
    }
  }
}

// The balancing rule of docs/ROUTING.md (Nienaber §IV, our reading) replayed with plain
// sets: OPT's top per pair (Fig. 2), then round robin over the loaded tops, each offering its
// next pair in (s, d) order to the unloaded tops from just after the previous move's target;
// the pair moves to the first top f with load[f] + 1 < load[giver] whose links leaf(s) -> f
// and f -> leaf(d) each keep at most B distinct sources or at most B distinct destinations
// with the pair added. The engine's paths must take exactly the replayed tops. On these
// fabrics some moves are decided by the destination count alone (sources past B).
TEST(OptBalanced, EveryPairTakesTheTopOfTheReplayedRoundRobin) {
  for (const auto& [n, m, r] : {std::tuple{7U, 3U, 5U}, {12U, 12U, 24U}}) {
    const Network net = makeGft2(n, m, r);
    const std::uint32_t N = n * r;
    std::uint32_t k = 1;
    while ((k + 1) * (k + 1) <= m) ++k;
    const std::uint32_t groupSize = (n + k - 1) / k;
    std::uint32_t bound = 0;
    while (bound * bound * m < n * n) ++bound;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> topOf;
    std::vector<std::uint64_t> load(m, 0);
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> pairsOf(m);
    for (std::uint32_t s = 0; s < N; ++s) {
      for (std::uint32_t d = 0; d < N; ++d) {
        if (s / n == d / n) continue;
        const std::uint32_t top = (s % n) / groupSize * k + (d % n) / groupSize;
        topOf[{s, d}] = top;
        ++load[top];
        pairsOf[top].emplace_back(s, d);
      }
    }
    std::vector<std::uint32_t> loaded, unloaded;
    for (std::uint32_t top = 0; top < m; ++top) (load[top] > 0 ? loaded : unloaded).push_back(top);
    // (leaf, top) -> sources and destinations of leaf -> top; (top, leaf) of top -> leaf.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::set<std::uint32_t>, std::set<std::uint32_t>>> up,
        down;
    auto keeps = [bound](auto sets, std::uint32_t s, std::uint32_t d) {
      sets.first.insert(s);
      sets.second.insert(d);
      return sets.first.size() <= bound || sets.second.size() <= bound;
    };
    std::vector<std::size_t> cursor(m, 0);
    std::size_t next = 0, moves = 0, decidedByDestinations = 0;
    for (bool progress = !unloaded.empty(); progress;) {
      progress = false;
      for (const std::uint32_t u : loaded) {
        if (cursor[u] == pairsOf[u].size()) continue;
        progress = true;
        const auto [s, d] = pairsOf[u][cursor[u]++];
        for (std::size_t attempt = 0; attempt < unloaded.size(); ++attempt) {
          const std::size_t slot = (next + attempt) % unloaded.size();
          const std::uint32_t f = unloaded[slot];
          auto& upLink = up[{s / n, f}];
          auto& downLink = down[{f, d / n}];
          if (load[f] + 1 >= load[u] || !keeps(upLink, s, d) || !keeps(downLink, s, d)) continue;
          for (auto* link : {&upLink, &downLink}) {
            link->first.insert(s);
            link->second.insert(d);
            decidedByDestinations += link->first.size() > bound ? 1 : 0;
          }
          topOf[{s, d}] = f;
          --load[u];
          ++load[f];
          ++moves;
          next = (slot + 1) % unloaded.size();
          break;
        }
      }
    }
    const std::string what = fmt::format("T({}+{}, {})", n, m, r);
    EXPECT_GT(decidedByDestinations, 0U) << what << ": no move depends on the destination count";
    const RoutingResult routing = routeOptBalanced(net, {});
    std::size_t mismatches = 0;
    for (const auto& [pair, top] : topOf) {
      const auto nodes = nodesOnPath(net, routing, net.terminalNode(pair.first), net.terminalNode(pair.second));
      ASSERT_EQ(nodes.size(), 4U) << what;
      mismatches += std::stoul(nodes[1].substr(7)) == top ? 0 : 1;
    }
    EXPECT_EQ(mismatches, 0U) << what;
    const auto stat = std::find_if(routing.stats.begin(), routing.stats.end(),
                                   [](const auto& entry) { return entry.first == "pairs_moved"; });
    ASSERT_NE(stat, routing.stats.end());
    EXPECT_EQ(stat->second, std::to_string(moves)) << what;
  }
}

TEST(FatTreeEngines, LmcPathsLeaveThroughDifferentUpPorts) {
  const Network net = makeKaryNtree(4, 2);
  RoutingContext context;
  context.addressesPerTerminal = 4;
  for (auto route : {&routeFtreeDeterministic, &routeDmodk, &routeSmodk}) {
    const RoutingResult r = route(net, context);
    std::set<std::string> firstHop;
    for (std::uint32_t p = 0; p < 4; ++p) {
      firstHop.insert(nodesOnPath(net, r, net.terminalNode(0), net.terminalNode(9), p)[1]);
    }
    EXPECT_EQ(firstHop.size(), 4u);
  }
}

TEST(FatTreeEngines, LmcPathsShiftEveryUpwardDigit) {
  // Gómez §4 with LMC: path q of destination d climbs stage s through up port k + 1 +
  // ((p_s + q) mod k), p_s = floor(d / k^s) mod k — every stage shifted, not only the first
  // (a 3-level tree: the leaf's and the middle switch's choices).
  const std::uint32_t k = 4;
  const Network net = makeKaryNtree(k, 3);
  RoutingContext context;
  context.addressesPerTerminal = k;
  for (auto route : {&routeFtreeDeterministic, &routeDmodk}) {
    const RoutingResult r = route(net, context);
    const NodeId source = net.terminalNode(0);
    for (std::uint32_t d = k * k; d < net.terminalCount(); ++d) {  // outside the source's pod
      const NodeId destination = net.terminalNode(d);
      for (std::uint32_t q = 0; q < k; ++q) {
        const Address a = r.addressFor(source, destination, q);
        const Path path = r.path(net, source, a);
        ASSERT_EQ(path.status, PathStatus::Delivered);
        ASSERT_EQ(path.channels.size(), 6u);  // up, up, up to the top, down, down, down
        for (std::uint32_t stage = 0; stage < 2; ++stage) {
          const NodeId at = net.target(path.channels[stage]);
          const std::uint32_t digit = (d / (stage == 0 ? 1 : k)) % k;
          EXPECT_EQ(r.table().port(net.switchIndex(at), a), k + 1 + (digit + q) % k)
              << r.engine << ": " << d << " path " << q << " stage " << stage;
        }
      }
    }
  }
}

// routing_result.h: a source of class c uses offset path * sourceClasses + c; a switch that
// sends (switch addresses routed) is of class 0, as every source is without source classes.
// Terminals' classes are each engine's own (tested with its formula); here every switch's.
TEST(FatTreeEngines, SwitchesThatSendAreOfClassZero) {
  const std::vector<std::pair<Network, std::vector<std::string>>> cases = {
      {makeXgft({{2, 3, 2}, {2, 2, 3}}), {"smodk"}},
      {makeGft2(4, 4, 5), {"smodk", "opt", "opt-balanced", "opt-grid"}},
  };
  for (const auto& [net, engines] : cases) {
    for (const std::string& engine : engines) {
      RoutingContext context;
      context.routeSwitches = true;
      const RoutingResult r = runEngine(engine, net, context);
      ASSERT_GT(r.sourceClasses, 1U) << engine << " on " << net.origin();
      ASSERT_EQ(r.sourceClassOf.size(), r.addresses.owners().size()) << engine;
      std::size_t switches = 0;
      for (NodeId s : net.switches()) {
        if (r.addresses.sourceIndex(s) == UINT32_MAX) continue;
        ++switches;
        EXPECT_EQ(r.sourceClassOf[r.addresses.sourceIndex(s)], 0U)
            << engine << " on " << net.origin() << ", " << net.name(s);
      }
      EXPECT_EQ(switches, net.switchCount()) << engine;
    }
  }
}

TEST(FatTreeEngines, EveryEnginePassesTheChecksOnSmallFabrics) {
  std::vector<Network> fabrics;
  fabrics.push_back(makeKaryNtree(2, 3));
  fabrics.push_back(makeKaryNtree(3, 2));
  fabrics.push_back(makeKaryNtree(4, 3));
  fabrics.push_back(makeGft2(4, 3, 5));
  fabrics.push_back(makeGft2(3, 5, 4));
  fabrics.push_back(makeXgft({{2, 3, 2}, {2, 2, 3}}));
  for (const auto& row : engineRegistry().rows()) {
    if (row.name == "file") continue;
    if (row.reference.find("Gómez") == std::string::npos && row.reference.find("Nienaber") == std::string::npos)
      continue;
    for (const Network& net : fabrics) {
      for (std::uint32_t paths : {1u, 2u}) {
        for (bool switches : {false, true}) {
          RoutingContext context;
          context.addressesPerTerminal = paths;
          context.routeSwitches = switches;
          RoutingResult result;
          try {
            result = runEngine(row.name, net, context);
          } catch (const UnsupportedTopology&) {
            EXPECT_TRUE(row.name == "opt" || row.name == "opt-balanced" || row.name == "opt-grid") << row.name;
            EXPECT_NE(net.xgft()->params.height(), 2u);
            continue;
          }
          const RoutingCheckReport report = checkRouting(net, result);
          EXPECT_TRUE(report.passed()) << row.name << " on " << net.origin() << " lmc paths " << paths
                                       << (report.failures.empty() ? "" : ": " + report.failures.front());
          EXPECT_EQ(report.terminalPairs, report.terminalPairsDelivered);
          EXPECT_EQ(report.terminalPairs, net.terminalCount() * (net.terminalCount() - 1) * paths);
        }
      }
    }
  }
}

TEST(FatTreeEngines, SwitchAddressesReachEverySwitchFromEveryTerminal) {
  const Network net = makeKaryNtree(2, 3);
  RoutingContext context;
  context.routeSwitches = true;
  const RoutingResult r = routeFtreeDeterministic(net, context);
  EXPECT_EQ(r.addresses.count(), 8u + 12u);
  RoutingCheckOptions options;
  options.requireManagementPairs = false;
  const RoutingCheckReport report = checkRouting(net, r, options);
  EXPECT_TRUE(report.passed());
  EXPECT_EQ(report.managementPairs, 8u * 12u);
  EXPECT_EQ(report.managementPairsDelivered, 8u * 12u);
  // Port 0 at the switch itself.
  EXPECT_EQ(r.table().port(sw(net, "kt-s1-01"), r.addresses.base(*net.findNode("kt-s1-01"))), kSelfPort);
}

TEST(FatTreeEngines, UnsupportedTopologiesAreRefusedByName) {
  NetworkBuilder builder;
  const NodeId a = builder.addSwitch("a", 4), b = builder.addSwitch("b", 4);
  builder.connect(a, 1, b, 1);
  builder.setOrigin("random:switches=2");
  const Network plain = builder.build();
  try {
    routeFtreeAdaptive(plain, {});
    FAIL() << "no exception";
  } catch (const UnsupportedTopology& e) {
    EXPECT_STREQ(e.what(), "ftree-adaptive needs a fat-tree (XGFT) fabric; 'random:switches=2' is not one");
  }
  EXPECT_THROW(routeOpt(makeKaryNtree(2, 3), {}), UnsupportedTopology);
  EXPECT_THROW(runEngine("dmodk:x=1", makeKaryNtree(2, 2)), SpecError);
}

// The address-space limit of the fat-tree engines (xgft_tables.h): paths x source classes x
// terminals addresses at most 2^31 — exactly 2^31 is accepted, one block more is refused
// with the three factors named (checked before any table is allocated).
TEST(FatTreeEngines, AddressBlockLimitIsTwoToTheThirtyFirstAddresses) {
  const Network net = makeKaryNtree(4, 2);  // 16 terminals
  ASSERT_EQ(net.terminalCount(), 16U);
  EXPECT_EQ(xgft_detail::xgftAddressBlock(net, 1U << 3, 1U << 24), 1U << 27);  // 2^27 x 16 = 2^31
  EXPECT_EQ(xgft_detail::xgftAddressBlock(net, 1, 1U << 27), 1U << 27);
  try {
    xgft_detail::xgftAddressBlock(net, 1, (1U << 27) + 1);
    FAIL() << "2^31 + 16 addresses accepted";
  } catch (const RoutingError& e) {
    EXPECT_STREQ(e.what(), "1 paths x 134217729 source classes per terminal x 16 terminals: too many addresses");
  }
  EXPECT_THROW(xgft_detail::xgftAddressBlock(net, 2, 1U << 27), RoutingError);
  EXPECT_THROW(xgft_detail::xgftAddressBlock(net, 0, 1), SpecError);
}
