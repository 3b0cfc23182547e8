// The routing checks find what they promise: loops, dead ports, non-minimal paths, broken
// determinism claims, and adaptive choices that lead nowhere — each named by switch[port].
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#if defined(ROUTELAB_HAVE_OPENMP)
#include <omp.h>
#endif

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/fattree/fat_tree.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "routing/checks.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

std::uint32_t sw(const Network& net, const std::string& name) { return net.switchIndex(net.findNode(name).value()); }

bool mentions(const RoutingCheckReport& report, const std::string& text) {
  for (const auto& f : report.failures) {
    if (f.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST(RoutingChecks, FindsAForwardingLoop) {
  // 2-ary 2-tree: kt-s0-0 holds nodes 0, 1; node 2 is below kt-s0-1. Send node 2's traffic
  // from the top kt-s1-0 back down to kt-s0-0, which sends it up to kt-s1-0 again.
  const Network net = makeKaryNtree(2, 2);
  RoutingResult r = routeFtreeDeterministic(net, {});
  r.tables[0].set(sw(net, "kt-s0-0"), 2, 3);
  r.tables[0].set(sw(net, "kt-s1-0"), 2, 1);
  const RoutingCheckReport report = checkRouting(net, r);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.loops, 2u);  // from nodes 0 and 1
  EXPECT_EQ(report.candidateCycles, 1u);
  EXPECT_TRUE(mentions(report, "kt-h0 -> address 2 (LID 3, 'kt-h2'): forwarding loop")) << report.failures.front();
  // The candidate graph's cycle is named once per address, at the port that closes it: the
  // depth-first search from kt-s0-0 goes up to kt-s1-0, whose port 1 leads back.
  const auto cycleFindings = std::ranges::count_if(
      report.failures, [](const std::string& f) { return f.find("has a cycle through") != std::string::npos; });
  EXPECT_EQ(cycleFindings, 1) << fmt::format("{}", fmt::join(report.failures, "\n"));
  EXPECT_TRUE(mentions(report, "kt-s1-0[1]: candidate graph of address 2 (LID 3, 'kt-h2') has a cycle through kt-s0-0"))
      << fmt::format("{}", fmt::join(report.failures, "\n"));
  EXPECT_EQ(report.terminalPairsDelivered, 12u - 2u);
  EXPECT_EQ(report.pairs, 12u);  // each walked pair delivered, unrouted, looping, dead or unaddressed
  EXPECT_EQ(report.delivered + report.noRoute + report.loops + report.deadPorts + report.noAddress, report.pairs);
  // RoutingResult::path: a walk of more channels than nodeCount() + 1 is a loop, so it stops
  // after exactly nodeCount() + 2 channels, on the cycle, where it says it stopped.
  const Path p = r.path(net, *net.findNode("kt-h0"), 2);
  EXPECT_EQ(p.status, PathStatus::Loop);
  ASSERT_EQ(p.channels.size(), net.nodeCount() + 2);
  EXPECT_EQ(p.stoppedAt, net.target(p.channels.back()));
  for (std::size_t i = 1; i < p.channels.size(); ++i) {
    EXPECT_EQ(net.name(net.target(p.channels[i])), i % 2 == 1 ? "kt-s1-0" : "kt-s0-0") << "channel " << i;
  }
}

TEST(RoutingChecks, FindsDeadPortsAndUnroutedEntries) {
  const Network net = makeKaryNtree(2, 2);
  RoutingResult r = routeFtreeDeterministic(net, {});
  r.tables[0].set(sw(net, "kt-s1-0"), 2, 3);  // top switches have 4 ports, 3 and 4 uncabled
  r.tables[0].set(sw(net, "kt-s0-1"), 0, kNoRoute);
  const RoutingCheckReport report = checkRouting(net, r);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.deadPorts, 2u);
  EXPECT_EQ(report.badCandidates, 1u);
  EXPECT_TRUE(mentions(report, "kt-s1-0[3]: dead port for address 2"));
  EXPECT_EQ(report.noRoute, 2u);  // nodes 2 and 3 cannot reach node 0
  EXPECT_TRUE(mentions(report, "kt-h2 -> address 0 (LID 1, 'kt-h0'): no route at kt-s0-1"));
}

TEST(RoutingChecks, FindsDeliveryAtTheWrongSwitchAndEntriesLeadingToAnotherTerminal) {
  // 2-ary 2-tree: kt-s0-0's ports 1 and 2 go down to kt-h0 and kt-h1; address 2 is kt-h2's.
  const Network net = makeKaryNtree(2, 2);
  RoutingResult r = routeFtreeDeterministic(net, {});
  r.tables[0].set(sw(net, "kt-s0-0"), 2, kSelfPort);  // "deliver here", at a switch that is not kt-h2
  r.tables[0].set(sw(net, "kt-s0-1"), 0, 2);          // address 0 (kt-h0) sent down to kt-s0-1's second terminal
  const RoutingCheckReport report = checkRouting(net, r);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.badCandidates, 2u);
  EXPECT_EQ(report.deadPorts, 0u);
  EXPECT_TRUE(mentions(report, "kt-s0-0[0]: port 0 (deliver here) for address 2 (LID 3, 'kt-h2')"))
      << fmt::format("{}", fmt::join(report.failures, "\n"));
  EXPECT_TRUE(mentions(report, "kt-s0-1[2]: leads to terminal 'kt-h3' for address 0 (LID 1, 'kt-h0')"))
      << fmt::format("{}", fmt::join(report.failures, "\n"));
}

TEST(RoutingChecks, FindsBrokenMinimalityAndDeterminismClaims) {
  // In a fat-tree every detour revisits a switch (a loop), so minimality is tested on a ring
  // of four switches (port 1 its terminal, port 2 clockwise, port 3 counter-clockwise) routed
  // clockwise only: rnd-sw0 reaches rnd-h3 in 5 channels where 3 suffice.
  NetworkBuilder builder;
  std::vector<NodeId> switches, terminals;
  for (int i = 0; i < 4; ++i) switches.push_back(builder.addSwitch(fmt::format("ring-sw{}", i), 3));
  for (int i = 0; i < 4; ++i) {
    terminals.push_back(builder.addTerminal(fmt::format("ring-h{}", i)));
    builder.connect(terminals.back(), 1, switches[static_cast<std::size_t>(i)], 1);
  }
  for (std::size_t i = 0; i < 4; ++i) builder.connect(switches[i], 2, switches[(i + 1) % 4], 3);
  const Network ring = builder.build();
  RoutingResult clockwise;
  clockwise.addresses = AddressMap::build(ring, 1, false);
  clockwise.tables.emplace_back(4, 4);
  for (std::uint32_t s = 0; s < 4; ++s) {
    for (Address a = 0; a < 4; ++a) clockwise.tables[0].set(s, a, a == s ? 1 : 2);
  }
  clockwise.minimal = true;
  RoutingCheckReport report = checkRouting(ring, clockwise);
  EXPECT_FALSE(report.passed());
  EXPECT_FALSE(report.minimalOk);
  EXPECT_EQ(report.terminalPairsDelivered, report.terminalPairs);
  EXPECT_EQ(report.nonMinimalPaths, 4u);       // every pair three steps clockwise
  EXPECT_EQ(report.nonMinimalCandidates, 4u);  // the entries sending them the long way
  EXPECT_EQ(report.maxHops, 5u);
  EXPECT_TRUE(mentions(report, "ring-h0 -> address 3 (LID 4, 'ring-h3'): path of 5 hops, shortest is 3"));
  // Without the claim the same table passes (longer paths are reported, not failures).
  clockwise.minimal = false;
  report = checkRouting(ring, clockwise);
  EXPECT_TRUE(report.passed());
  EXPECT_EQ(report.nonMinimalPaths, 4u);
  // Adaptive entries whose preferred port is minimal but whose second one is not: a switch
  // one hop behind the destination (clockwise) also offers the three-hop way round. Every
  // preferred path is shortest; the claim still fails, on exactly those four entries.
  RoutingResult adaptive = clockwise;
  adaptive.deterministic = false;
  adaptive.minimal = true;
  const std::vector<PortNumber> bothWays = {2, 3};
  for (std::uint32_t s = 0; s < 4; ++s) {
    adaptive.tables[0].setCandidates(s, (s + 1) % 4, bothWays);  // preferred: one hop clockwise
    adaptive.tables[0].set(s, (s + 2) % 4, 3);                   // two hops either way
    adaptive.tables[0].set(s, (s + 3) % 4, 3);                   // one hop counter-clockwise
  }
  report = checkRouting(ring, adaptive);
  EXPECT_EQ(report.nonMinimalPaths, 0u);
  EXPECT_EQ(report.candidateCycles, 0u);
  EXPECT_EQ(report.nonMinimalCandidates, 4u);
  EXPECT_FALSE(report.minimalOk);
  EXPECT_FALSE(report.passed());
  EXPECT_TRUE(mentions(report, "ring-sw0[3]: candidate not on a shortest path to address 1"))
      << (report.failures.empty() ? "" : report.failures.front());

  const Network net = makeKaryNtree(2, 3);
  RoutingResult d = routeFtreeDeterministic(net, {});
  const std::vector<PortNumber> two = {3, 4};
  d.tables[0].setCandidates(sw(net, "kt-s0-00"), 5, two);
  report = checkRouting(net, d);
  EXPECT_FALSE(report.deterministicOk);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.multiCandidateEntries, 1u);
}

// The entry counts route's checks print (`entries`, `multi_candidate_entries`) recounted from
// the tables: every (table, switch, address) with a route, and those with more than one
// candidate — on one table and several, one LID per port and several, single-candidate and
// adaptive tables, with and without switch addresses.
TEST(RoutingChecks, EntryCountsAreTheTablesRoutedEntries) {
  struct Case {
    std::string fabric, engine;
    std::uint32_t lids;
    bool switchAddresses;
  };
  const std::vector<Case> cases = {{"kary-ntree:k=2,n=3", "ftree-deterministic", 1, false},
                                   {"kary-ntree:k=2,n=3", "ftree-deterministic", 4, true},
                                   {"kary-ntree:k=2,n=3", "ftree-adaptive", 1, false},
                                   {"random:switches=8,seed=2", "lash", 1, true},
                                   {"random:switches=8,seed=2", "d-mroots:layers=3", 2, false},
                                   {"random:switches=8,seed=2", "escape", 1, false}};
  std::uint64_t multiSeen = 0, tablesSeen = 0;
  for (const Case& c : cases) {
    const Fabric fabric = loadFabric(c.fabric);
    RoutingContext context;
    context.addressesPerTerminal = c.lids;
    context.routeSwitches = c.switchAddresses;
    const RoutingResult routing = runEngine(c.engine, fabric.network, context);
    std::uint64_t entries = 0, multi = 0;
    for (const ForwardingTable& table : routing.tables) {
      for (std::uint32_t s = 0; s < fabric.network.switchCount(); ++s) {
        for (Address a = 0; a < routing.addresses.count(); ++a) {
          const std::size_t size = table.candidates(s, a).size();
          entries += size > 0 ? 1 : 0;
          multi += size > 1 ? 1 : 0;
        }
      }
    }
    const RoutingCheckReport report = checkRouting(fabric.network, routing);
    const std::string what = c.engine + " on " + c.fabric;
    EXPECT_GT(entries, 0u) << what;
    EXPECT_EQ(report.entries, entries) << what;
    EXPECT_EQ(report.multiCandidateEntries, multi) << what;
    multiSeen += multi > 0 ? 1 : 0;
    tablesSeen += routing.tables.size() > 1 ? 1 : 0;
  }
  EXPECT_GE(multiSeen, 2u);   // adaptive tables are among the cases
  EXPECT_GE(tablesSeen, 2u);  // and routings with several tables
}

// The pair counts route's checks print (`pairs`, `terminal_pairs`, `management_pairs` and
// what became of them), recounted from the options' definitions (routing/checks.h): N (N - 1)
// terminal pairs, each walked once per LMC path; with switch addresses, every terminal to
// every switch (terminalToSwitch) and, with switchSources, every switch to every address but
// its own; each walked pair is delivered, unrouted, looping, dead or unaddressed (a loop:
// FindsAForwardingLoop).
TEST(RoutingChecks, PairCountsAreTheWalksTheOptionsDefine) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");  // 8 terminals, 12 switches
  const std::uint64_t n = 8, switches = 12;
  struct Case {
    std::uint32_t lids;
    bool switchAddresses, terminalToSwitch, switchSources;
    std::uint64_t terminalPairs, managementPairs;
  };
  const std::vector<Case> cases = {
      {1, false, true, false, n * (n - 1), 0},
      {2, false, true, false, 2 * n * (n - 1), 0},
      {1, true, true, false, n * (n - 1), n * switches},
      {1, true, false, false, n * (n - 1), 0},
      {1, true, true, true, n * (n - 1), n * switches + switches * (n + switches - 1)},
      {4, true, true, true, 4 * n * (n - 1), n * switches + switches * (4 * n + switches - 1)},
  };
  for (const Case& c : cases) {
    RoutingContext context;
    context.addressesPerTerminal = c.lids;
    context.routeSwitches = c.switchAddresses;
    const RoutingResult routing = runEngine("ftree-deterministic", fabric.network, context);
    RoutingCheckOptions options;
    options.terminalToSwitch = c.terminalToSwitch;
    options.switchSources = c.switchSources;
    const RoutingCheckReport report = checkRouting(fabric.network, routing, options);
    const std::string what = fmt::format("{} LIDs, switch addresses {}, terminal to switch {}, switch sources {}",
                                         c.lids, c.switchAddresses, c.terminalToSwitch, c.switchSources);
    EXPECT_EQ(report.terminalPairs, c.terminalPairs) << what;
    EXPECT_EQ(report.managementPairs, c.managementPairs) << what;
    EXPECT_EQ(report.pairs, c.terminalPairs + c.managementPairs) << what;
    EXPECT_EQ(report.terminalPairsDelivered, report.terminalPairs) << what;
    EXPECT_EQ(report.delivered, report.terminalPairsDelivered + report.managementPairsDelivered) << what;
    EXPECT_EQ(report.delivered + report.noRoute + report.loops + report.deadPorts + report.noAddress, report.pairs)
        << what;
    // Between switches ftree leaves some pairs unrouted (as OpenSM's ftree: checks.h); every
    // pair from a terminal arrives.
    if (!c.switchSources) {
      EXPECT_EQ(report.delivered, report.pairs) << what;
    }
  }
}

TEST(RoutingChecks, AdaptiveChoicesMustAllLeadToTheDestination) {
  // ftree-adaptive, node 0 -> node 4: kt-s0-00 may climb to kt-s1-00 (preferred, port 3 =
  // k + p_0) or kt-s1-10 (port 4; names list o_0 first). No preferred walk to node 4 passes
  // kt-s1-10, so removing its route leaves every walk intact but strands choice sequences.
  const Network net = makeKaryNtree(2, 3);
  RoutingResult r = routeFtreeAdaptive(net, {});
  ASSERT_TRUE(checkRouting(net, r).passed());
  r.tables[0].set(sw(net, "kt-s1-10"), 4, kNoRoute);
  const RoutingCheckReport report = checkRouting(net, r);
  EXPECT_EQ(report.terminalPairsDelivered, report.terminalPairs);  // preferred walks still arrive
  EXPECT_GT(report.incompleteChoices, 0u);
  EXPECT_FALSE(report.passed());
  EXPECT_TRUE(mentions(report, "kt-s1-10: no route for address 4 (LID 5, 'kt-h4'), reachable by candidate choices"));
}

TEST(RoutingChecks, ResultsDoNotDependOnTheThreadCount) {
  const Network net = makeKaryNtree(4, 3);
  RoutingResult r = routeFtreeAdaptive(net, {});
  r.tables[0].set(sw(net, "kt-s1-00"), 40, kNoRoute);
  r.tables[0].set(sw(net, "kt-s0-00"), 3, 5);
  const RoutingCheckReport a = checkRouting(net, r);
#if defined(ROUTELAB_HAVE_OPENMP)
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const RoutingCheckReport b = checkRouting(net, r);
  omp_set_num_threads(threads);
#else
  const RoutingCheckReport b = checkRouting(net, r);
#endif
  EXPECT_EQ(a.failures, b.failures);
  EXPECT_EQ(a.noRoute, b.noRoute);
  EXPECT_EQ(a.nonMinimalPaths, b.nonMinimalPaths);
  EXPECT_EQ(a.incompleteChoices, b.incompleteChoices);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (std::size_t i = 0; i < a.stages.size(); ++i) EXPECT_EQ(a.stages[i].maxPaths, b.stages[i].maxPaths);
}

// A terminal whose cable is gone (a Network built through the library API; the fabric
// loaders refuse such files) sends from nowhere: the checks skip it as a source and report
// every pair to it undelivered, without walking from a switch it does not reach. With the
// cable, the same routing passes and names no failure.
TEST(RoutingChecks, ATerminalWithoutACableIsNoSourceAndItsPairsAreUndelivered) {
  auto fabric = [](bool cableH2) {
    NetworkBuilder builder;
    const NodeId s = builder.addSwitch("sw0", 4);
    for (std::uint32_t h = 0; h < 3; ++h) {
      const NodeId host = builder.addTerminal("h" + std::to_string(h), 1);
      if (h < 2 || cableH2) builder.connect(host, 1, s, static_cast<PortNumber>(h + 1));
    }
    return builder.build();
  };
  const Network whole = fabric(true);
  const Network cut = fabric(false);
  RoutingResult r;
  r.engine = "by hand";
  r.addresses = AddressMap::build(whole, 1, false);
  r.tables.emplace_back(1, r.addresses.count());
  for (Address a = 0; a < 3; ++a) r.tables[0].set(0, a, static_cast<PortNumber>(a + 1));
  const RoutingCheckReport full = checkRouting(whole, r);
  EXPECT_TRUE(full.passed());
  EXPECT_EQ(full.failures, std::vector<std::string>{});  // a passing routing names no failure
  EXPECT_EQ(full.terminalPairsDelivered, 6u);
  const RoutingCheckReport report = checkRouting(cut, r);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.terminalPairs, 6u);
  EXPECT_EQ(report.terminalPairsDelivered, 2u);  // h0 <-> h1
  EXPECT_FALSE(report.failures.empty());
}

// The mean and longest path over terminal pairs (channels with injection) of a minimal routing
// on a k-ary n-tree: a destination whose nearest common ancestor with the source is at level l
// (1 = the leaf switch) is 2l channels away, and (k - 1) k^(l - 1) destinations are, so the mean
// is sum_l 2l (k - 1) k^(l - 1) / (k^n - 1) and the longest 2n — with several addresses per
// terminal and with management pairs walked beside (they are not terminal pairs).
TEST(RoutingChecks, MeanAndLongestPathAreTheFatTreeFormula) {
  for (const auto& [k, n] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{2, 3}, {4, 2}, {3, 3}}) {
    const Fabric fabric = loadFabric(fmt::format("kary-ntree:k={},n={}", k, n));
    double sum = 0, power = 1;
    for (std::uint64_t l = 1; l <= n; ++l, power *= static_cast<double>(k))
      sum += 2.0 * static_cast<double>(l) * static_cast<double>(k - 1) * power;
    const double mean = sum / (power - 1);  // power = k^n here
    for (const std::string engine : {"dmodk", "ftree-deterministic", "minhop"}) {
      for (const bool management : {false, true}) {
        RoutingContext context;
        context.addressesPerTerminal = management ? 1 : 2;
        context.routeSwitches = management;
        const RoutingResult routing = runEngine(engine, fabric.network, context);
        RoutingCheckOptions options;
        options.switchSources = management;
        const RoutingCheckReport report = checkRouting(fabric.network, routing, options);
        const std::string what = fmt::format("k={} n={} {} management {}", k, n, engine, management);
        ASSERT_TRUE(report.passed()) << what;
        EXPECT_EQ(report.managementPairs > 0, management) << what;
        EXPECT_NEAR(report.meanHops, mean, 1e-12) << what;
        EXPECT_EQ(report.maxHops, 2 * n) << what;
      }
    }
  }
}
