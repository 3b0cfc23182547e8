// The deployment model, the constraints, the ranking rules one criterion at a time, the
// decision, and the simulator's evidence recomputed (report/deployment.h, report/comparison.h,
// report/evidence.h, report/figures.h; docs/COMPARE.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/random.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "report/comparison.h"
#include "report/deployment.h"
#include "report/evidence.h"
#include "report/figures.h"
#include "routing/lmc_tables.h"
#include "sim/simulator.h"

namespace routelab {
namespace {

// ---- deployment profiles of real routings, against counts made here -----------------------

/// The largest address block of a terminal, counted from the address map.
std::uint32_t largestBlock(const Network& network, const RoutingResult& routing) {
  std::uint32_t block = 0;
  for (const NodeId t : network.terminals()) block = std::max(block, routing.addresses.blockSize(t));
  return block;
}

TEST(DeploymentProfile, DestinationBasedLftRouting) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = runEngine("dmodk", fabric.network);
  const DeploymentProfile p = deploymentProfile(fabric.network, routing, 1);
  EXPECT_EQ(p.switchModel, SwitchModel::Lft);
  EXPECT_EQ(p.kind, "deterministic");
  EXPECT_EQ(p.lmc, 0u);
  EXPECT_EQ(p.addressesPerTerminal, 1u);
  EXPECT_EQ(p.vls, 1u);
  EXPECT_FALSE(p.perPairSl);
  EXPECT_TRUE(p.inOrder);
  EXPECT_EQ(p.lids, 8u + 12u);  // one LID per terminal and per switch
  EXPECT_EQ(p.entriesPerSwitch, p.lids);
  EXPECT_TRUE(constraintViolations(p, FabricConstraints{}).empty());
  const auto commands = routelabDeployCommands(p, "kary-ntree:k=2,n=3", "dmodk");
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0].rfind("ibnetdiscover > fabric.ibnetdiscover", 0), 0u);
  EXPECT_EQ(commands[1],
            "routelab route file:fabric.ibnetdiscover --engine 'dmodk' --switch-addresses --export lft "
            "routing.lfts");
  EXPECT_EQ(commands[2], "opensm -R file -U routing.lfts");
  // A fabric file is used as it is.
  EXPECT_EQ(routelabDeployCommands(p, "file:f.ibnet", "dmodk").front().rfind("routelab route file:f.ibnet ", 0), 0u);
}

TEST(DeploymentProfile, AdaptiveSourceDependentAndMultipath) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const DeploymentProfile adaptive = deploymentProfile(fabric.network, runEngine("ftree-adaptive", fabric.network), 1);
  EXPECT_EQ(adaptive.switchModel, SwitchModel::Adaptive);
  EXPECT_EQ(adaptive.kind, "adaptive");
  EXPECT_EQ(adaptive.maxCandidates, 2u);  // k = 2 up ports
  EXPECT_FALSE(adaptive.inOrder);
  EXPECT_TRUE(routelabDeployCommands(adaptive, "x", "ftree-adaptive").empty());

  const RoutingResult smodk = runEngine("smodk", fabric.network);
  const DeploymentProfile source = deploymentProfile(fabric.network, smodk, 1);
  EXPECT_EQ(source.kind, "source-dependent");
  EXPECT_EQ(source.sourceClasses, smodk.sourceClasses);
  EXPECT_GT(source.sourceClasses, 1u);
  EXPECT_TRUE(source.inOrder);  // one path per pair
  const std::uint32_t block = largestBlock(fabric.network, smodk);
  EXPECT_EQ(1u << source.lmc, std::bit_ceil(block));
  EXPECT_EQ(source.lids, 8u * (1u << source.lmc) + 12u);

  RoutingContext lmc;
  lmc.addressesPerTerminal = 2;
  const DeploymentProfile multipath =
      deploymentProfile(fabric.network, runEngine("ftree-deterministic", fabric.network, lmc), 1);
  EXPECT_EQ(multipath.kind, "multipath");
  EXPECT_EQ(multipath.pathsPerPair, 2u);
  EXPECT_EQ(multipath.lmc, 1u);
  EXPECT_FALSE(multipath.inOrder);
  // OpenSM is told the LMC of the exported LIDs: 1, the smallest above the default of 0.
  const auto multipathCommands = routelabDeployCommands(multipath, "file:f.ibnet", "ftree-deterministic");
  ASSERT_GE(multipathCommands.size(), 2u);
  EXPECT_EQ(multipathCommands[1], "opensm -R file -U routing.lfts --lmc 1");
  FabricConstraints inOrder;
  inOrder.inOrder = true;
  ASSERT_EQ(constraintViolations(multipath, inOrder).size(), 1u);
  EXPECT_EQ(constraintViolations(multipath, inOrder)[0],
            "delivers out of order (2 paths per pair): needs reorder buffers");
}

// The LMC the profile tells an operator to configure is the one the LFT export then needs:
// that of the largest block after mergeTablesByLmc, for one to four tables and one to
// sixteen LIDs per port; where the merge is refused (more than 128 LIDs), the profile's LMC is
// beyond 7.
TEST(DeploymentProfile, TheLmcIsThatOfTheTablesMergedByLmc) {
  const Fabric fabric = loadFabric("random:switches=6,seed=1");
  std::size_t merges = 0, refusals = 0;
  for (const std::uint32_t lids : {1u, 2u, 4u, 16u, 64u}) {
    for (const int layers : {1, 2, 3, 4}) {
      RoutingContext context;
      context.addressesPerTerminal = lids;
      const RoutingResult routing = runEngine(fmt::format("d-mroots:layers={}", layers), fabric.network, context);
      ASSERT_EQ(routing.tables.size(), static_cast<std::size_t>(layers));
      const DeploymentProfile profile = deploymentProfile(fabric.network, routing, 0);
      try {
        const RoutingResult merged = mergeTablesByLmc(fabric.network, routing);
        EXPECT_EQ(profile.lmc, lmcOfLargestBlock(merged.addresses)) << lids << " LIDs, " << layers << " layers";
        EXPECT_LE(profile.lmc, 7u);
        ++merges;
      } catch (const RoutingError&) {
        EXPECT_GT(profile.lmc, 7u) << lids << " LIDs, " << layers << " layers";
        ++refusals;
      }
    }
  }
  EXPECT_EQ(merges, 18u);  // 64 LIDs merge with one and two tables only
  EXPECT_EQ(refusals, 2u);
}

// Paths per pair: a source that may choose among layers (allowed-layer sets) sends one pair's
// packets over as many paths as the distinct tables of the layers it may use, times the LIDs'
// paths — recounted here with a set per allowed-layer mask, for engines with and without
// layer choices and with one table for several layers.
TEST(DeploymentProfile, PathsPerPairCountTheTablesALayerChoiceSpans) {
  const Fabric fabric = loadFabric("random:switches=8,links=14,terminals=2,seed=4");
  std::set<std::uint32_t> seen;
  for (const char* engine : {"lash", "mroots:layers=3", "d-mroots:layers=2", "a-lash", "mp-lash"}) {
    const RoutingResult routing = runEngine(engine, fabric.network);
    std::size_t choices = 1;
    for (const std::uint16_t mask : routing.allowedLayers) {
      std::set<std::uint16_t> tables;
      for (std::size_t layer = 0; layer < routing.tableOfLayer.size(); ++layer) {
        if (mask & (1U << layer)) tables.insert(routing.tableOfLayer[layer]);
      }
      choices = std::max(choices, tables.size());
    }
    std::uint32_t paths = 1;
    for (const NodeId t : fabric.network.terminals()) paths = std::max(paths, routing.pathCount(t));
    const DeploymentProfile p = deploymentProfile(fabric.network, routing, 0);
    EXPECT_EQ(p.pathsPerPair, paths * choices) << engine;
    if (p.switchModel == SwitchModel::Lft) {
      EXPECT_EQ(p.kind == "multipath", p.pathsPerPair > 1) << engine;
    }
    seen.insert(p.pathsPerPair);
  }
  EXPECT_GE(seen.size(), 2u) << "engines with one path per pair and with several";
}

TEST(DeploymentProfile, LayeredAndEscapeRoutings) {
  const Fabric fabric = loadFabric("random:switches=16,links=32,terminals=1,seed=2");
  const RoutingResult lash = runEngine("lash", fabric.network);
  const DeploymentProfile layered = deploymentProfile(fabric.network, lash, 0);
  EXPECT_EQ(layered.vls, lash.layerCount());
  EXPECT_EQ(layered.tables, lash.tables.size());
  EXPECT_EQ(layered.perPairSl, lash.layerCount() > 1);
  // Where the verifier finds one layer used, every pair travels on one SL: none per pair.
  ASSERT_GT(lash.layerCount(), 1u);
  const DeploymentProfile oneUsed = deploymentProfile(fabric.network, lash, 1);
  EXPECT_EQ(oneUsed.vls, 1u);
  EXPECT_FALSE(oneUsed.perPairSl);
  const RoutingResult escape = runEngine("escape", fabric.network);
  const DeploymentProfile duato = deploymentProfile(fabric.network, escape, 2);
  EXPECT_TRUE(duato.escape);
  EXPECT_EQ(duato.switchModel, SwitchModel::Adaptive);
  EXPECT_FALSE(duato.perPairSl);  // packets change layer inside the fabric: no SL per pair
  const auto reasons = constraintViolations(duato, FabricConstraints{});
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("needs adaptive switches (escape routing"), std::string::npos) << reasons[0];
}

// ---- every constraint at its limit and one past it -----------------------------------------

TEST(DeploymentConstraints, EachAtTheLimitAndOnePast) {
  DeploymentProfile p;
  p.vls = 3;
  FabricConstraints c;
  c.vls = 3;
  EXPECT_TRUE(constraintViolations(p, c).empty());
  c.vls = 2;
  EXPECT_EQ(constraintViolations(p, c), std::vector<std::string>{"needs 3 VLs, 2 available"});

  DeploymentProfile adaptive;
  adaptive.switchModel = SwitchModel::Adaptive;
  adaptive.maxCandidates = 4;
  adaptive.inOrder = false;
  EXPECT_EQ(constraintViolations(adaptive, FabricConstraints{}),
            std::vector<std::string>{"needs adaptive switches (up to 4 outputs per destination)"});
  FabricConstraints withAdaptive;
  withAdaptive.adaptiveSwitches = true;
  EXPECT_TRUE(constraintViolations(adaptive, withAdaptive).empty());

  DeploymentProfile lmc;
  lmc.lmc = kMaxLmc;
  EXPECT_TRUE(constraintViolations(lmc, FabricConstraints{}).empty());
  lmc.lmc = kMaxLmc + 1;
  EXPECT_EQ(
      constraintViolations(lmc, FabricConstraints{}),
      std::vector<std::string>{"needs 256 addresses per terminal (LMC 8), InfiniBand allows at most 128 (LMC 7)"});

  DeploymentProfile lids;
  lids.lids = kUnicastLids;
  EXPECT_TRUE(constraintViolations(lids, FabricConstraints{}).empty());
  lids.lids = kUnicastLids + 1;
  EXPECT_EQ(constraintViolations(lids, FabricConstraints{}),
            std::vector<std::string>{"needs 49152 unicast LIDs, InfiniBand has 49151"});
}

TEST(DeploymentConstraints, VlsOutsideOneToFifteenAreRefused) {
  for (const std::uint32_t vls : {1u, 15u}) {
    FabricConstraints c;
    c.vls = vls;
    EXPECT_NO_THROW(validateConstraints(c)) << vls;
  }
  for (const std::uint32_t vls : {0u, 16u}) {
    FabricConstraints c;
    c.vls = vls;
    try {
      validateConstraints(c);
      ADD_FAILURE() << vls;
    } catch (const SpecError& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("--vls {}: the data virtual lanes of a fabric are 1..15", vls)),
                std::string::npos)
          << e.what();
    }
  }
}

// ---- ranking: one criterion at a time -------------------------------------------------------

EngineComparison routing(const std::string& name, std::size_t listed) {
  EngineComparison e;
  e.name = name;
  e.origin = "routelab";
  e.connected = e.loopFree = e.deadlockFree = true;
  e.layers = e.layersUsed = 1;
  e.meanHops = 4;
  e.listedOrder = listed;
  ModelMetrics m;
  m.abb.mean = 0.5;
  m.abb.ci99 = 0.01;
  m.abb.samples = 100;
  m.worst = m.worstLower = 4;
  m.shiftMaxLoad = 2;
  e.models.push_back(m);
  return e;
}

/// Ranks {base "a" listed first, the variant "b" listed second}; returns the first name and
/// whether they share a group.
std::pair<std::string, bool> rankPair(const std::function<void(EngineComparison&)>& change) {
  std::vector<EngineComparison> engines{routing("a", 0), routing("b", 1)};
  change(engines[1]);
  rankEngines(engines);
  return {engines.front().name, engines[0].group == engines[1].group && engines[0].group != 0};
}

TEST(RankingRules, EachMeasuredCriterionAloneOrders) {
  // Better in exactly one measured criterion: b first, in a group of its own.
  EXPECT_EQ(rankPair([](EngineComparison& e) { e.models[0].abb.mean = 0.52; }),
            std::make_pair(std::string("b"), false));
  EXPECT_EQ(rankPair([](EngineComparison& e) { e.models[0].worst = 3; }), std::make_pair(std::string("b"), false));
  EXPECT_EQ(rankPair([](EngineComparison& e) { e.models[0].shiftMaxLoad = 1; }),
            std::make_pair(std::string("b"), false));
  EXPECT_EQ(rankPair([](EngineComparison& e) { e.meanHops = 3.9; }), std::make_pair(std::string("b"), false));
  // Worse in exactly one: a first, separate groups.
  EXPECT_EQ(rankPair([](EngineComparison& e) { e.models[0].abb.mean = 0.48; }),
            std::make_pair(std::string("a"), false));
  EXPECT_EQ(rankPair([](EngineComparison& e) { e.models[0].worst = 5; }), std::make_pair(std::string("a"), false));
}

// Equal in all but one: a (listed first) worse in exactly one measured criterion, or in its
// class alone, goes after b; b worse in the same one stays after a.
TEST(RankingRules, EqualInAllButOneCriterion) {
  const std::vector<std::pair<std::string, std::function<void(EngineComparison&)>>> worse = {
      {"abb", [](EngineComparison& e) { e.models[0].abb.mean = 0.47; }},
      {"worst", [](EngineComparison& e) { e.models[0].worst = 5; }},
      {"shift load", [](EngineComparison& e) { e.models[0].shiftMaxLoad = 3; }},
      {"hops", [](EngineComparison& e) { e.meanHops = 4.1; }},
      {"not deployable", [](EngineComparison& e) { e.notDeployable = {"needs 2 VLs, 1 available"}; }},
      {"deadlock", [](EngineComparison& e) { e.deadlockFree = false; }},
      {"loop", [](EngineComparison& e) { e.loopFree = false; }},
      {"not connected", [](EngineComparison& e) { e.connected = false; }},
      {"not analysed", [](EngineComparison& e) { e.skipped = true; }},
      {"not run", [](EngineComparison& e) { e.notRun = true; }},
      {"refused", [](EngineComparison& e) { e.refused = true; }},
  };
  for (const auto& [name, change] : worse) {
    std::vector<EngineComparison> engines{routing("a", 0), routing("b", 1)};
    change(engines[0]);
    rankEngines(engines);
    EXPECT_EQ(engines[0].name, "b") << name;
    EXPECT_TRUE(engines[0].group != engines[1].group || engines[0].group == 0) << name;
    EXPECT_EQ(rankPair(change).first, "a") << name;
  }
  // Equal in everything: one group, the listing decides.
  EXPECT_EQ(rankPair([](EngineComparison&) {}), std::make_pair(std::string("a"), true));
}

TEST(RankingRules, AbbEqualWithinTheConfidenceOfTheDifference) {
  // Tolerance sqrt(0.01^2 + 0.01^2) = 0.01414: 0.514 is equal (cheaper b then wins on cost),
  // 0.515 is better.
  auto cheaperAnd = [](double abb) {
    return [abb](EngineComparison& e) {
      e.models[0].abb.mean = abb;
      e.deployment.vls = 1;
    };
  };
  std::vector<EngineComparison> engines{routing("a", 0), routing("b", 1)};
  engines[0].deployment.vls = 2;  // a costs more
  engines[0].layersUsed = 2;
  engines[1].models[0].abb.mean = 0.514;
  rankEngines(engines);
  EXPECT_EQ(engines.front().name, "b");
  EXPECT_EQ(engines[0].group, engines[1].group);
  EXPECT_TRUE(sameMeasuredRank(engines[0], engines[1]));
  engines = {routing("a", 0), routing("b", 1)};
  engines[1].models[0].abb.mean = 0.486;  // below, equal within the tolerance: the cheaper a stays first
  rankEngines(engines);
  EXPECT_EQ(engines[0].group, engines[1].group);
  EXPECT_EQ(rankPair(cheaperAnd(0.515)), std::make_pair(std::string("b"), false));
}

TEST(RankingRules, EachDeploymentCostAloneOrdersWithinAGroup) {
  const std::vector<std::function<void(DeploymentProfile&)>> costlier = {
      [](DeploymentProfile& d) { d.vls = 2; },
      [](DeploymentProfile& d) { d.addressesPerTerminal = 2; },
      [](DeploymentProfile& d) { d.entriesPerSwitch = 1000; },
      [](DeploymentProfile& d) { d.kind = "source-dependent"; },
      [](DeploymentProfile& d) { d.kind = "multipath"; },
      [](DeploymentProfile& d) { d.kind = "adaptive"; },
      [](DeploymentProfile& d) { d.inOrder = false; },
  };
  for (std::size_t i = 0; i < costlier.size(); ++i) {
    // a (listed first) costs more in one criterion: the cheaper b comes first, same group.
    std::vector<EngineComparison> engines{routing("a", 0), routing("b", 1)};
    costlier[i](engines[0].deployment);
    rankEngines(engines);
    EXPECT_EQ(engines.front().name, "b") << i;
    EXPECT_EQ(engines[0].group, engines[1].group) << i;
  }
  // The decision names the one criterion that put the cheaper routing first.
  const std::vector<std::string> why = {
      "a needs 2 VLs, this one 1",
      "a needs 2 addresses per terminal, this one 1",
      "a needs 1000 table entries per switch, this one 0",
      "a is source-dependent, this one deterministic",
      "a is multipath, this one deterministic",
      "a is adaptive, this one deterministic",
      "a is not in order by construction",
  };
  for (std::size_t i = 0; i < costlier.size(); ++i) {
    std::vector<EngineComparison> engines{routing("a", 0), routing("b", 1)};
    costlier[i](engines[0].deployment);
    Comparison c;
    c.engines = engines;
    rankEngines(c.engines);
    c.verdict = decide(c);
    EXPECT_EQ(c.verdict.recommended, "b") << i;
    EXPECT_EQ(c.verdict.equals, std::vector<std::string>{"a"}) << i;
    EXPECT_EQ(c.verdict.why, why[i]) << i;
  }
  // The kinds in their order.
  std::vector<EngineComparison> kinds{routing("adaptive", 0), routing("multipath", 1), routing("source", 2),
                                      routing("deterministic", 3)};
  kinds[0].deployment.kind = "adaptive";
  kinds[1].deployment.kind = "multipath";
  kinds[2].deployment.kind = "source-dependent";
  rankEngines(kinds);
  std::vector<std::string> order;
  for (const auto& e : kinds) order.push_back(e.name);
  EXPECT_EQ(order, (std::vector<std::string>{"deterministic", "source", "multipath", "adaptive"}));
}

TEST(RankingRules, OpenSmBeforeOursThenListingNeverTheName) {
  EXPECT_EQ(rankPair([](EngineComparison& e) { e.origin = "OpenSM"; }).first, "b");
  // Names reversed: the listing still decides.
  std::vector<EngineComparison> engines{routing("zzz", 0), routing("aaa", 1)};
  rankEngines(engines);
  EXPECT_EQ(engines.front().name, "zzz");
}

TEST(RankingRules, DeployableBeforeBetterButUndeployableBeforeFailing) {
  std::vector<EngineComparison> engines{routing("fails", 0), routing("undeployable", 1), routing("deployable", 2)};
  engines[0].deadlockFree = false;
  engines[0].models[0].abb.mean = 0.9;
  engines[1].notDeployable = {"needs adaptive switches"};
  engines[1].models[0].abb.mean = 0.8;
  rankEngines(engines);
  EXPECT_EQ(engines[0].name, "deployable");
  EXPECT_EQ(engines[1].name, "undeployable");
  EXPECT_EQ(engines[2].name, "fails");
}

// The group of the best routing holds every routing equal to it, also one sorted after a
// routing that is not: c's ABB is within the tolerance of a's and its WORST equal, b's ABB lies
// between but its WORST is worse — a and c form the group, b follows.
TEST(RankingRules, AGroupTakesEveryRoutingEqualToTheBestNotOnlyTheAdjacentOnes) {
  std::vector<EngineComparison> engines{routing("a", 0), routing("b", 1), routing("c", 2)};
  engines[0].models[0].abb.mean = 0.51;
  engines[1].models[0].abb.mean = 0.505;
  engines[1].models[0].worst = 5;
  engines[2].models[0].abb.mean = 0.50;
  rankEngines(engines);
  EXPECT_EQ(engines[0].name, "a");
  EXPECT_EQ(engines[1].name, "c");
  EXPECT_EQ(engines[2].name, "b");
  EXPECT_EQ(engines[0].group, engines[1].group);
  EXPECT_NE(engines[1].group, engines[2].group);
}

// ---- ranking: the documented rule re-implemented by brute force ------------------------------

/// docs/COMPARE.md "Ranking and decision rule", written from the text: classes in order;
/// within a class, repeatedly the best remaining routing (highest ABB, lowest WORST, shift
/// load, hops; exact ties by cost) and every remaining routing equal to it in all four
/// criteria (ABB within sqrt(ci1^2 + ci2^2), the rest exactly) form a group, ordered by
/// deployment cost, then OpenSM first, then the listing. Returns names with group numbers
/// (0 outside the measured classes).
std::vector<std::pair<std::string, std::size_t>> documentedRanking(const std::vector<EngineComparison>& engines) {
  auto classOf = [](const EngineComparison& e) {
    if (e.refused) return 5;
    if (e.notRun) return 4;
    if (e.skipped || e.models.empty()) return 3;
    if (!(e.connected && e.loopFree && e.deadlockFree)) return 2;
    return e.notDeployable.empty() ? 0 : 1;
  };
  auto kindRank = [](const std::string& kind) {
    const std::vector<std::string> kinds{"deterministic", "source-dependent", "multipath", "adaptive"};
    return std::find(kinds.begin(), kinds.end(), kind) - kinds.begin();
  };
  auto cost = [&](const EngineComparison& e) {
    const DeploymentProfile& d = e.deployment;
    return std::make_tuple(d.vls, d.addressesPerTerminal, d.entriesPerSwitch, kindRank(d.kind), d.inOrder ? 0 : 1,
                           e.origin == "OpenSM" ? 0 : 1, e.listedOrder);
  };
  // The ranking model: even-split where computed, else first-path (the first listed).
  auto ranked = [](const EngineComparison& e) -> const ModelMetrics& {
    for (const ModelMetrics& m : e.models) {
      if (m.model == LoadModel::EvenSplit) return m;
    }
    return e.models.front();
  };
  auto criteria = [&](const EngineComparison& e) {
    const ModelMetrics& m = ranked(e);
    return std::make_tuple(-m.abb.mean, m.worst, m.shiftMaxLoad, e.meanHops);
  };
  auto equal = [&](const EngineComparison& a, const EngineComparison& b) {
    const ModelMetrics &x = ranked(a), &y = ranked(b);
    return std::abs(x.abb.mean - y.abb.mean) <= std::hypot(x.abb.ci99, y.abb.ci99) && x.worst == y.worst &&
           x.shiftMaxLoad == y.shiftMaxLoad && a.meanHops == b.meanHops;
  };
  std::vector<std::pair<std::string, std::size_t>> out;
  std::size_t group = 0;
  for (int k = 0; k <= 5; ++k) {
    std::vector<const EngineComparison*> left;
    for (const EngineComparison& e : engines) {
      if (classOf(e) == k) left.push_back(&e);
    }
    if (k > 2) {  // not measured: by cost (the listing last)
      std::sort(left.begin(), left.end(), [&](auto* a, auto* b) { return cost(*a) < cost(*b); });
      for (const auto* e : left) out.emplace_back(e->name, 0);
      continue;
    }
    while (!left.empty()) {
      const EngineComparison* best = left.front();
      for (const auto* e : left) {
        if (std::make_pair(criteria(*e), cost(*e)) < std::make_pair(criteria(*best), cost(*best))) best = e;
      }
      std::vector<const EngineComparison*> members, rest;
      for (const auto* e : left) (equal(*best, *e) ? members : rest).push_back(e);
      std::sort(members.begin(), members.end(), [&](auto* a, auto* b) { return cost(*a) < cost(*b); });
      ++group;
      for (const auto* e : members) out.emplace_back(e->name, group);
      left = rest;
    }
  }
  return out;
}

// Random fields from small sets, so that ties and near ties are frequent: the ranking equals
// the brute-force one on every draw (names, order and groups).
TEST(RankingRules, EqualsTheDocumentedRuleOnRandomFixtures) {
  Rng rng(20261128);
  auto pick = [&](std::uint64_t n) { return rng.below(n); };
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<EngineComparison> engines;
    const std::size_t count = 2 + pick(6);
    for (std::size_t i = 0; i < count; ++i) {
      EngineComparison e = routing(fmt::format("r{}", i), i);
      ModelMetrics& m = e.models[0];
      m.abb.mean = std::array{0.50, 0.505, 0.51, 0.52, 0.53}[pick(5)];
      m.abb.ci99 = std::array{0.0, 0.004, 0.008}[pick(3)];
      m.worst = static_cast<double>(3 + pick(2));
      m.shiftMaxLoad = static_cast<double>(1 + pick(2));
      e.meanHops = std::array{3.5, 4.0}[pick(2)];
      e.deployment.vls = 1 + pick(2);
      e.deployment.addressesPerTerminal = pick(4) == 0 ? 2 : 1;
      e.deployment.entriesPerSwitch = pick(4) == 0 ? 200 : 100;
      e.deployment.kind =
          std::array<std::string, 4>{"deterministic", "source-dependent", "multipath", "adaptive"}[pick(4)];
      e.deployment.inOrder = pick(3) != 0;
      e.origin = pick(3) == 0 ? "OpenSM" : "routelab";
      const std::uint64_t fate = pick(20);
      if (fate == 0) e.deadlockFree = false;
      if (fate == 1) e.notDeployable = {"needs 2 VLs, 1 available"};
      if (fate == 2) e.connected = false;
      if (fate == 3) e.skipped = true, e.models.clear();
      if (fate == 4) e.notRun = true, e.models.clear();
      if (fate == 5) e.refused = true, e.models.clear();
      if (fate == 6) e.connected = false, e.models.clear();  // not delivering: not analysed (class 3)
      engines.push_back(std::move(e));
    }
    std::shuffle(engines.begin(), engines.end(), std::mt19937(static_cast<unsigned>(trial)));
    const auto expected = documentedRanking(engines);
    rankEngines(engines);
    std::vector<std::pair<std::string, std::size_t>> actual;
    for (const EngineComparison& e : engines) actual.emplace_back(e.name, e.group);
    ASSERT_EQ(actual, expected) << "trial " << trial;
  }
}

// ---- the ranking table: each cell the engine's own value, in each of its forms ---------------

// Seven engines whose values reach every form of every cell of the table users read first
// (docs/COMPARE.md, "The ranking table"): the rank is the row's position, a group of 0 and an
// absent number are "-", the layers "used of offered" when fewer are used, WORST an interval
// where best-split leaves one, a whole load without decimals, the even-split model where both
// were computed. The expected cells are written out here, not formatted by the code under test.
TEST(RankingTable, EveryCellIsTheEnginesOwnValueInEachOfItsForms) {
  Comparison c;
  EngineComparison a = routing("a", 0);  // the even-split model ranks (listed second)
  a.models.front().worst = a.models.front().worstLower = 9;
  ModelMetrics even = a.models.front();
  even.model = LoadModel::EvenSplit;
  even.worst = even.worstLower = 4;
  a.models.push_back(even);
  a.group = 1;
  a.deployment.entriesPerSwitch = 20;  // (the others as a profile starts: deterministic, 1 LID, in order)
  EngineComparison b = routing("b", 1);
  b.group = 2;
  b.deployment.kind = "adaptive";
  b.deployment.addressesPerTerminal = 4;
  b.deployment.entriesPerSwitch = 77;
  b.deployment.inOrder = false;
  b.layers = 3;
  b.layersUsed = 2;
  b.deadlockFree = false;
  b.meanHops = 3.25;
  b.models.front().worstLower = 5;
  b.models.front().worst = 6;
  b.models.front().abb.samples = 0;
  b.models.front().shiftMaxLoad = 2.5;
  b.dynamic.patterns.resize(1);  // simulated: the mean saturation over its patterns
  b.dynamic.meanSaturation = 0.4567;
  EngineComparison notConnected = routing("c", 2);
  notConnected.connected = false;
  notConnected.meanHops = 0;
  EngineComparison loop = routing("d", 3);
  loop.loopFree = false;
  EngineComparison skipped = routing("e", 4);
  skipped.skipped = true;
  skipped.models.clear();
  skipped.notDeployable = {"needs 2 VLs, 1 available"};
  EngineComparison notRun = routing("f", 5);
  notRun.notRun = true;
  EngineComparison refused = routing("g", 6);
  refused.refused = true;
  refused.reason = "needs a fat-tree";
  c.engines = {a, b, notConnected, loop, skipped, notRun, refused};

  const std::vector<std::vector<std::string>> expected = {
      {"rank", "engine", "kind", "group", "deployable here", "VLs", "LIDs per terminal", "LFT entries per switch",
       "in order", "deadlock-free", "mean hops", "WORST", "ABB", "shift max load", "saturation (sim.)", "model"},
      {"1", "a", "deterministic", "1", "yes", "1", "1", "20", "yes", "yes", "4.00", "4", "0.500 ± 0.010", "2", "-",
       "even-split"},
      {"2", "b", "adaptive", "2", "no", "2 of 3", "4", "77", "no", "NO", "3.25", "5..6", "-", "2.500", "0.457",
       "first-path"},
      {"3", "c", "deterministic", "-", "no", "1", "1", "0", "yes", "NOT CONNECTED", "-", "4", "0.500 ± 0.010", "2", "-",
       "first-path"},
      {"4", "d", "deterministic", "-", "no", "1", "1", "0", "yes", "NOT CONNECTED", "4.00", "4", "0.500 ± 0.010", "2",
       "-", "first-path"},
      {"5", "e", "deterministic", "-", "no", "1", "1", "0", "yes", "not analysed", "-", "-", "-", "-", "-", "-"},
      {"-", "f", "not run", "", "", "", "", "", "", "", "", "", "", "", "", "at this size (see the notes)"},
      {"-", "g", "refused", "", "", "", "", "", "", "", "", "", "", "", "", "needs a fat-tree"},
  };
  const std::vector<std::vector<std::string>> rows = rankingTable(c);
  ASSERT_EQ(rows.size(), expected.size());
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], expected[i]) << "row " << i;
}

// ---- the decision ---------------------------------------------------------------------------

Comparison decided(std::vector<EngineComparison> engines, double resolution = 0.015) {
  Comparison c;
  c.engines = std::move(engines);
  c.simulationResolution = resolution;
  rankEngines(c.engines);
  c.verdict = decide(c);
  return c;
}

void simulated(EngineComparison& e, double saturation) {
  e.dynamic.patterns.resize(1);
  e.dynamic.patterns[0].saturationAccepted = saturation;
  e.dynamic.meanSaturation = saturation;
}

TEST(Decision, TheSimulatorDecidesBeyondItsResolutionAtNoExtraCost) {
  std::vector<EngineComparison> engines{routing("static", 0), routing("dynamic", 1)};
  engines[1].models[0].abb.mean = 0.45;  // statically worse
  simulated(engines[0], 0.20);
  simulated(engines[1], 0.20 + 0.016);
  Comparison c = decided(engines);
  EXPECT_EQ(c.verdict.staticLeader, "static");
  EXPECT_EQ(c.verdict.recommended, "dynamic");
  EXPECT_TRUE(c.verdict.disagree);
  EXPECT_NE(recommendation(c).find("Static and dynamic results disagree"), std::string::npos);
  // Within the resolution: the static leader stays.
  simulated(engines[1], 0.20 + 0.014);
  c = decided(engines);
  EXPECT_EQ(c.verdict.recommended, "static");
  EXPECT_FALSE(c.verdict.disagree);
  EXPECT_EQ(c.verdict.dynamicLeader, "dynamic");
  EXPECT_NE(recommendation(c).find("The simulator puts dynamic slightly ahead, within its resolution (0.015)."),
            std::string::npos)
      << recommendation(c);
  // Beyond it, but costlier to deploy: named as the alternative.
  simulated(engines[1], 0.30);
  engines[1].deployment.addressesPerTerminal = 16;
  c = decided(engines);
  EXPECT_EQ(c.verdict.recommended, "static");
  EXPECT_EQ(c.verdict.costlierAlternative, "dynamic");
  EXPECT_NE(recommendation(c).find("The simulator measures dynamic ahead (0.300 against 0.200 mean saturation "
                                   "throughput, +50 %), but it costs more to deploy: "),
            std::string::npos)
      << recommendation(c);  // (0.300 / 0.200 - 1 = +50 %)
  EXPECT_NE(recommendation(c).find(", 16 LIDs per terminal, "), std::string::npos) << recommendation(c);
}

// The dynamic leader is the deployable routing of the highest mean saturation throughput; of
// routings measured equal, the one ranked first (docs/COMPARE.md, "The decision"), whatever
// the names.
TEST(Decision, OfEqualSaturationsTheDynamicLeaderIsTheOneRankedFirst) {
  std::vector<EngineComparison> engines{routing("static", 0), routing("second", 1), routing("also", 2)};
  for (std::size_t i : {1, 2}) engines[i].models[0].abb.mean = 0.45;  // statically behind, equal to each other
  simulated(engines[0], 0.20);
  simulated(engines[1], 0.30);
  simulated(engines[2], 0.30);
  Comparison c = decided(engines);
  ASSERT_EQ(c.engines[1].name, "second");
  EXPECT_EQ(c.verdict.dynamicLeader, "second");
  EXPECT_EQ(c.verdict.recommended, "second");
  simulated(engines[2], 0.31);  // strictly ahead: it leads
  c = decided(engines);
  EXPECT_EQ(c.verdict.dynamicLeader, "also");
}

TEST(Decision, RelaxingAConstraintIsMeasuredAgainstTheRecommendation) {
  std::vector<EngineComparison> engines{routing("lft", 0), routing("adaptive", 1), routing("layers", 2)};
  engines[1].models[0].abb.mean = 0.75;
  engines[1].deployment.switchModel = SwitchModel::Adaptive;
  engines[1].notDeployable = {"needs adaptive switches"};
  engines[2].models[0].abb.mean = 0.6;
  engines[2].deployment.vls = 12;
  engines[2].notDeployable = {"needs 12 VLs, 8 available"};
  simulated(engines[0], 0.2);
  simulated(engines[1], 0.25);
  Comparison c = decided(engines);
  EXPECT_EQ(c.verdict.recommended, "lft");
  ASSERT_EQ(c.verdict.relaxations.size(), 2u);  // adaptive switches, 15 VLs (in order not asked)
  const Relaxation& adaptive = c.verdict.relaxations[0];
  EXPECT_EQ(adaptive.constraint, "adaptive switches");
  EXPECT_EQ(adaptive.engine, "adaptive");
  EXPECT_DOUBLE_EQ(adaptive.abbChange, 0.75 / 0.5 - 1);
  EXPECT_TRUE(adaptive.simulated);
  EXPECT_DOUBLE_EQ(adaptive.saturationChange, 0.25 / 0.2 - 1);
  const Relaxation& vls = c.verdict.relaxations[1];
  EXPECT_EQ(vls.constraint, "15 VLs");
  EXPECT_EQ(vls.engine, "layers");
  EXPECT_DOUBLE_EQ(vls.abbChange, 0.6 / 0.5 - 1);
  EXPECT_FALSE(vls.simulated);
  const std::string text = recommendation(c);
  EXPECT_NE(text.find("With adaptive switches: adaptive, +50 % ABB, +25 % simulated saturation throughput."),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("With 15 VLs: layers, +20 % ABB (not simulated)."), std::string::npos) << text;
  EXPECT_EQ(relaxationLeaders(c), (std::vector<std::string>{"adaptive", "layers"}));
  // How to deploy the recommendation: its commands, joined, once; none without commands.
  EXPECT_EQ(text.find("Deploy: "), std::string::npos) << text;
  engines[0].deployment.deploy = {"routelab route F --engine lft --export-opensm out/", "opensm -R file"};
  c = decided(engines);
  const std::string withCommands = recommendation(c);
  const std::string deploy = "Deploy: routelab route F --engine lft --export-opensm out/ ; opensm -R file.";
  ASSERT_NE(withCommands.find(deploy), std::string::npos) << withCommands;
  EXPECT_EQ(withCommands.find("Deploy: ", withCommands.find(deploy) + 1), std::string::npos) << withCommands;
}

TEST(Decision, NothingDeployableSaysSo) {
  std::vector<EngineComparison> engines{routing("adaptive", 0)};
  engines[0].notDeployable = {"needs adaptive switches"};
  const Comparison c = decided(engines);
  EXPECT_TRUE(c.verdict.recommended.empty());
  EXPECT_EQ(recommendation(c).rfind("No routing that passes verification", 0), 0u) << recommendation(c);
}

// ---- the simulator's evidence, recomputed -----------------------------------------------------

CompareOptions evidenceOptions() {
  CompareOptions options;
  options.spec = "kary-ntree:k=2,n=3";
  options.engines = {"dmodk", "ftree-deterministic", "ftree-adaptive", "updown"};
  options.seed = 5;
  options.simulateCycles = 1500;
  options.simulateSteps = 4;
  options.threads = 2;
  return options;
}

TEST(Evidence, EveryNumberRecomputedFromItsPointsAndTheSimulator) {
  const CompareOptions options = evidenceOptions();
  const Comparison c = compareEngines(options);
  const Fabric fabric = loadFabric(options.spec);
  // dmodk and ftree-deterministic compute identical tables: one of them is simulated.
  std::size_t simulatedCount = 0, identical = 0;
  std::vector<std::string> names;
  for (const EngineComparison& e : c.engines) {
    if (e.name == "dmodk" || e.name == "ftree-deterministic") identical += e.dynamic.simulated() ? 1 : 0;
    if (e.dynamic.simulated()) names.push_back(e.name);
    simulatedCount += e.dynamic.simulated() ? 1 : 0;
  }
  EXPECT_EQ(identical, 1u);
  EXPECT_NE(std::find(names.begin(), names.end(), "ftree-adaptive"), names.end());  // the contrast
  EXPECT_EQ(c.simulationResolution, 0.99 / 16);
  const std::vector<std::string> patterns = evidencePatterns(8);
  ASSERT_EQ(patterns,
            (std::vector<std::string>{"uniform", "random-permutation", "shift:s=4", "uniform-hot-spot:fraction=0.05"}));
  // The half shift from 2 terminals on (s = N / 2, rounded down); one terminal has none.
  EXPECT_EQ(evidencePatterns(2),
            (std::vector<std::string>{"uniform", "random-permutation", "shift:s=1", "uniform-hot-spot:fraction=0.05"}));
  EXPECT_EQ(evidencePatterns(3),
            (std::vector<std::string>{"uniform", "random-permutation", "shift:s=1", "uniform-hot-spot:fraction=0.05"}));
  EXPECT_EQ(evidencePatterns(1),
            (std::vector<std::string>{"uniform", "random-permutation", "uniform-hot-spot:fraction=0.05"}));
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    double reference = 1;
    for (const EngineComparison& e : c.engines) {
      if (e.dynamic.simulated()) reference = std::min(reference, e.dynamic.patterns[p].saturationLoad);
    }
    for (const EngineComparison& e : c.engines) {
      if (!e.dynamic.simulated()) continue;
      const SimulatedPattern& sp = e.dynamic.patterns[p];
      EXPECT_EQ(sp.traffic, patterns[p]);
      EXPECT_EQ(sp.referenceLoad, reference) << e.name;
      // The knee is the highest unsaturated load of the search, or its lowest load (0.01) when
      // every searched load saturated.
      double knee = 0.01;
      for (const auto& point : sp.points) {
        if (!point.saturated && point.load != 0.5 * reference && point.load != 0.8 * reference) {
          knee = std::max(knee, point.load);
        }
      }
      EXPECT_EQ(sp.saturationLoad, knee) << e.name << " " << sp.traffic;
      // Latency at 50%: simulated again here, with the documented configuration.
      RoutingContext context;
      context.seed = options.seed;
      const RoutingResult r = runEngine(e.name, fabric.network, context);
      SimConfig config;
      config.seed = options.seed;
      config.measureCycles = options.simulateCycles;
      config.traffic = patterns[p];
      config.load = 0.5 * reference;
      const SimResult again = simulate(fabric.network, r, config);
      EXPECT_EQ(sp.latencyAt50, again.latencyAvg) << e.name << " " << sp.traffic;
      EXPECT_EQ(sp.acceptedAt50, again.accepted) << e.name << " " << sp.traffic;
      config.load = 0.8 * reference;
      const SimResult at80 = simulate(fabric.network, r, config);
      EXPECT_EQ(sp.latencyAt80, at80.latencyAvg) << e.name << " " << sp.traffic;
      EXPECT_EQ(sp.fairnessAt80, at80.sourceFairness) << e.name << " " << sp.traffic;
      EXPECT_EQ(sp.worstSourceAt80, at80.sourceAcceptedMin) << e.name << " " << sp.traffic;
    }
  }
  for (const EngineComparison& e : c.engines) {
    if (!e.dynamic.simulated()) continue;
    double sum = 0;
    for (const SimulatedPattern& sp : e.dynamic.patterns) sum += sp.saturationAccepted;
    EXPECT_DOUBLE_EQ(e.dynamic.meanSaturation, sum / 4) << e.name;
  }
  EXPECT_GE(simulatedCount, 2u);
}

// The leaders simulated: the first `simulateLeaders` deployable routings in ranking order
// whose tables differ (identical tables are simulated once), each "leading deployable routing";
// the routings simulated beside them are the contrast, not deployable here. Counted from the
// ranking for one, two and three leaders on six routings (dmodk and ftree-deterministic share
// their tables; ftree-adaptive is not deployable; four distinct deployable tables).
TEST(Evidence, TheLeadersSimulatedAreTheFirstDeployableRoutingsWithDistinctTables) {
  for (const std::size_t leaders : {1u, 2u, 3u}) {
    CompareOptions options = evidenceOptions();
    options.engines = {"dmodk", "ftree-deterministic", "ftree-adaptive", "updown", "smodk", "lash"};
    options.simulateLeaders = leaders;
    options.simulateCycles = 500;
    options.simulateSteps = 2;
    const Comparison c = compareEngines(options);
    std::vector<std::string> expected, simulated;
    std::set<std::uint64_t> tables;
    for (const EngineComparison& e : c.engines) {
      if (e.deployable() && e.rankingModel() != nullptr && tables.size() < leaders &&
          tables.insert(e.tablesFingerprint).second) {
        expected.push_back(e.name);
      }
      if (!e.dynamic.simulated()) continue;
      if (e.deployable()) {
        EXPECT_EQ(e.dynamic.why, "leading deployable routing") << e.name;
        simulated.push_back(e.name);
      } else {
        EXPECT_EQ(e.dynamic.why, "best routing a relaxed constraint admits (for contrast)") << e.name;
      }
    }
    EXPECT_EQ(simulated, expected) << leaders << " leaders";
    EXPECT_EQ(expected.size(), leaders);
  }
}

// A fingerprint of 0 means "not computed" (tables too large to hash): such routings are never
// taken as duplicates of one another. Here every fingerprint of a ranked comparison is set to
// 0, and simulateEvidence then simulates dmodk and ftree-deterministic both (identical
// tables, which the real fingerprints reduce to one), the first two deployable routings.
TEST(Evidence, RoutingsWithoutAFingerprintAreNeverDuplicates) {
  CompareOptions options = evidenceOptions();
  options.engines = {"dmodk", "ftree-deterministic", "updown"};
  options.simulate = false;
  options.simulateLeaders = 2;
  options.simulateCycles = 500;
  options.simulateSteps = 2;
  const Fabric fabric = loadFabric(options.spec);
  std::vector<RoutingResult> routings;
  for (const std::string& name : options.engines) {
    RoutingContext context;
    context.seed = options.seed;
    routings.push_back(runEngine(name, fabric.network, context));
  }
  for (const bool computed : {true, false}) {
    Comparison c = compareEngines(options);
    std::vector<const RoutingResult*> byListed(options.engines.size(), nullptr);
    std::vector<std::string> deployable;
    for (EngineComparison& e : c.engines) {
      ASSERT_LT(e.listedOrder, byListed.size()) << e.name;
      byListed[e.listedOrder] = &routings[e.listedOrder];
      ASSERT_EQ(options.engines[e.listedOrder], e.name);
      if (!computed) e.tablesFingerprint = 0;
      if (e.deployable() && e.rankingModel() != nullptr) deployable.push_back(e.name);
    }
    ASSERT_EQ(deployable.size(), 3u);
    ASSERT_EQ(deployable[2], "updown");  // the two identical routings rank first (minimal paths)
    simulateEvidence(fabric.network, byListed, options, c);
    std::vector<std::string> simulated;
    for (const EngineComparison& e : c.engines) {
      if (e.dynamic.simulated()) simulated.push_back(e.name);
    }
    std::vector<std::string> expected(deployable.begin(), deployable.begin() + 2);
    if (computed) {  // one of the two identical routings, then updown
      ASSERT_EQ(simulated.size(), 2u);
      EXPECT_NE(std::find(simulated.begin(), simulated.end(), "updown"), simulated.end());
    } else {
      EXPECT_EQ(simulated, expected);
    }
  }
}

TEST(Evidence, SameResultOnAnyThreadCountAndNoneWhenOff) {
  CompareOptions options = evidenceOptions();
  const Comparison two = compareEngines(options);
  options.threads = 1;
  const Comparison one = compareEngines(options);
  ASSERT_EQ(one.engines.size(), two.engines.size());
  for (std::size_t i = 0; i < one.engines.size(); ++i) {
    ASSERT_EQ(one.engines[i].dynamic.patterns.size(), two.engines[i].dynamic.patterns.size());
    for (std::size_t p = 0; p < one.engines[i].dynamic.patterns.size(); ++p) {
      const auto& a = one.engines[i].dynamic.patterns[p].points;
      const auto& b = two.engines[i].dynamic.patterns[p].points;
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t k = 0; k < a.size(); ++k) {
        EXPECT_EQ(a[k].load, b[k].load);
        EXPECT_EQ(a[k].accepted, b[k].accepted);
        EXPECT_EQ(a[k].latency, b[k].latency);
      }
    }
  }
  options.simulate = false;
  const Comparison off = compareEngines(options);
  for (const EngineComparison& e : off.engines) EXPECT_FALSE(e.dynamic.simulated()) << e.name;
  options.simulate = true;
  options.simulateTerminals = 7;  // 8 terminals: beyond the limit
  for (const EngineComparison& e : compareEngines(options).engines) EXPECT_FALSE(e.dynamic.simulated()) << e.name;
  options.simulateAlways = true;
  bool any = false;
  for (const EngineComparison& e : compareEngines(options).engines) any = any || e.dynamic.simulated();
  EXPECT_TRUE(any);
}

TEST(Evidence, InOrderSimulatesOutOfOrderRoutingsWithReorderBuffers) {
  CompareOptions options = evidenceOptions();
  options.constraints.inOrder = true;
  const Comparison c = compareEngines(options);
  for (const EngineComparison& e : c.engines) {
    if (!e.dynamic.simulated()) continue;
    EXPECT_EQ(e.dynamic.inOrder, !e.deployment.inOrder) << e.name;
  }
}

// ---- JSON and figures -----------------------------------------------------------------------

TEST(CompareJson, CarriesTheDecisionProfilesAndPoints) {
  const Comparison c = compareEngines(evidenceOptions());
  const nlohmann::json j = nlohmann::json::parse(comparisonJson(c));
  EXPECT_EQ(j["verdict"]["recommended"], c.verdict.recommended);
  EXPECT_EQ(j["verdict"]["text"], recommendation(c));
  EXPECT_EQ(j["configuration"]["vls"], 8);
  EXPECT_EQ(j["configuration"]["seed"], 5);
  ASSERT_EQ(j["engines"].size(), c.engines.size());
  // The ranks and groups: docs/COMPARE.md's rule applied to the routings' own metrics.
  std::vector<std::pair<std::string, std::size_t>> reported;
  for (const auto& row : j["engines"]) reported.emplace_back(row["name"], row["group"]);
  EXPECT_EQ(reported, documentedRanking(c.engines));
  for (std::size_t i = 0; i < c.engines.size(); ++i) {
    const EngineComparison& e = c.engines[i];
    const auto& row = j["engines"][i];
    EXPECT_EQ(row["name"], e.name);
    EXPECT_EQ(row["rank"], i + 1);
    EXPECT_EQ(row["deployable"], e.deployable());
    EXPECT_EQ(row["group"], e.group);
    if (e.refused) continue;
    EXPECT_EQ(row["deployment"]["lmc"], e.deployment.lmc);
    EXPECT_EQ(row["deployment"]["kind"], e.deployment.kind);
    EXPECT_EQ(row["not_deployable"].size(), e.notDeployable.size());
    if (!e.dynamic.simulated()) {
      EXPECT_FALSE(row.contains("simulation"));
      continue;
    }
    ASSERT_EQ(row["simulation"]["patterns"].size(), e.dynamic.patterns.size());
    for (std::size_t p = 0; p < e.dynamic.patterns.size(); ++p) {
      const auto& points = row["simulation"]["patterns"][p]["points"];
      ASSERT_EQ(points.size(), e.dynamic.patterns[p].points.size());
      EXPECT_EQ(points[0]["latency"].get<double>(), e.dynamic.patterns[p].points[0].latency);
    }
  }
}

// Each key of compare's JSON reads its own member (docs/COMPARE.md "JSON"): a comparison of
// two routings whose every value is set apart — the configuration, the fabric, the verdict
// and a relaxation, an engine's verification, deployment profile, load models, simulated
// patterns and timings — and the keys a refused routing leaves out.
TEST(CompareJson, EveryKeyReadsItsOwnMember) {
  Comparison c;
  CompareOptions& o = c.options;
  o.engines = {"dmodk", "lash"};
  o.seed = 3;
  o.precision = 0.02;
  o.maxSamples = 111;
  o.maxShifts = 112;
  o.detailTerminals = 113;
  o.maxAddressesPerTerminal = 114;
  o.genericEngineSwitches = 115;
  o.opensmDirectory = "osm";
  o.routings = {{"mine", nullptr}};
  o.constraints.vls = 4;
  o.constraints.adaptiveSwitches = true;
  o.constraints.inOrder = true;
  o.simulate = false;
  o.simulateAlways = true;
  o.simulateTerminals = 116;
  o.simulateLeaders = 117;
  o.simulateCycles = 118;
  o.simulateSteps = 5;
  c.fabricSpec = "kary-ntree:k=2,n=3";
  c.terminals = 8;
  c.switches = 12;
  c.channels = 56;
  c.fatTree = true;
  c.commandLine = "routelab compare x";
  c.version = "v9";
  c.totalSeconds = 1.5;
  c.simulationResolution = 0.0625;

  EngineComparison e;
  e.name = "dmodk";
  e.origin = "routelab";
  e.effective = "dmodk:e=1";
  e.connected = true;
  e.loopFree = true;
  e.deadlockFree = true;
  e.layers = 3;
  e.layersUsed = 2;
  e.method = "acyclic";
  e.meanHops = 3.25;
  e.group = 4;
  e.opensmOptions = "-R x";
  e.tablesFingerprint = 987654321;
  e.notes = {"a note"};
  e.timings = {{"route", 0.25}};
  DeploymentProfile& d = e.deployment;
  d.kind = "multipath";
  d.switchModel = SwitchModel::Lft;
  d.escape = false;
  d.tables = 3;
  d.addressesPerTerminal = 4;
  d.lmc = 2;
  d.pathsPerPair = 5;
  d.sourceClasses = 6;
  d.maxCandidates = 7;
  d.vls = 8;
  d.perPairSl = true;
  d.lids = 44;
  d.entriesPerSwitch = 45;
  d.inOrder = false;
  d.deploy = {"step one"};
  ModelMetrics m;
  m.model = LoadModel::EvenSplit;
  m.worst = 4;
  m.worstLower = 3.5;
  m.abb = {0.5, 0.01, 100, true, 0.55};
  m.afpb = {0.25, 0.02, 200, false, 0.3};
  m.adb = {0.125, 0.03, 300, true, 0.2};
  m.shiftMaxLoad = 2;
  m.shiftMeanBandwidth = 0.75;
  e.models = {m};
  SimulatedPattern p;
  p.traffic = "uniform";
  p.saturationLoad = 0.6;
  p.saturationAccepted = 0.59;
  p.referenceLoad = 0.55;
  p.latencyAt50 = 20.5;
  p.acceptedAt50 = 0.275;
  p.latencyAt80 = 30.5;
  p.acceptedAt80 = 0.44;
  p.fairnessAt80 = 0.97;
  p.worstSourceAt80 = 0.41;
  p.points = {{0.275, 0.28, 0.275, 20.5, false}};
  e.dynamic.why = "leading deployable routing";
  e.dynamic.inOrder = true;
  e.dynamic.meanSaturation = 0.59;
  e.dynamic.patterns = {p};
  e.dynamic.timings = {{"simulate", 2.5}};
  EngineComparison refused;
  refused.name = "lash";
  refused.origin = "routelab";
  refused.refused = true;
  refused.reason = "needs 9 layers";
  c.engines = {e, refused};
  c.verdict.recommended = "dmodk";
  c.verdict.staticLeader = "dmodk";
  c.verdict.dynamicLeader = "dmodk";
  c.verdict.disagree = false;
  c.verdict.costlierAlternative = "";
  c.verdict.equals = {"dmodk", "other"};
  c.verdict.why = "fewest LIDs";
  c.verdict.relaxations = {{"15 VLs", "lash", 0.08, true, 0.05}, {"adaptive switches", "", 0, false, 0}};

  const nlohmann::json j = nlohmann::json::parse(comparisonJson(c));
  const nlohmann::json configuration = {{"fabric", "kary-ntree:k=2,n=3"},
                                        {"engines", {"dmodk", "lash"}},
                                        {"seed", 3},
                                        {"precision", 0.02},
                                        {"max_samples", 111},
                                        {"max_shifts", 112},
                                        {"detail_terminals", 113},
                                        {"max_addresses_per_terminal", 114},
                                        {"generic_engine_switches", 115},
                                        {"opensm_dir", "osm"},
                                        {"routings", {"mine"}},
                                        {"vls", 4},
                                        {"adaptive_switches", true},
                                        {"in_order", true},
                                        {"simulate", false},
                                        {"simulate_always", true},
                                        {"simulate_terminals", 116},
                                        {"simulate_leaders", 117},
                                        {"simulate_cycles", 118},
                                        {"simulate_steps", 5},
                                        {"simulate_patterns", evidencePatterns(8)},
                                        {"command_line", "routelab compare x"},
                                        {"version", "v9"}};
  EXPECT_EQ(j.at("configuration"), configuration);
  EXPECT_EQ(
      j.at("fabric"),
      nlohmann::json(
          {{"spec", "kary-ntree:k=2,n=3"}, {"terminals", 8}, {"switches", 12}, {"channels", 56}, {"fat_tree", true}}));
  EXPECT_EQ(j.at("total_seconds"), 1.5);
  const nlohmann::json verdict = {
      {"recommended", "dmodk"},
      {"static_leader", "dmodk"},
      {"dynamic_leader", "dmodk"},
      {"disagree", false},
      {"costlier_alternative", ""},
      {"equals", {"dmodk", "other"}},
      {"why", "fewest LIDs"},
      {"relaxations",
       {{{"constraint", "15 VLs"},
         {"engine", "lash"},
         {"abb_change", 0.08},
         {"simulated", true},
         {"saturation_change", 0.05}},
        {{"constraint", "adaptive switches"}, {"engine", ""}, {"abb_change", 0.0}, {"simulated", false}}}},
      {"text", recommendation(c)},
      {"simulation_resolution", 0.0625}};
  EXPECT_EQ(j.at("verdict"), verdict);
  ASSERT_EQ(j.at("engines").size(), 2u);
  const nlohmann::json engine = {
      {"rank", 1},
      {"name", "dmodk"},
      {"origin", "routelab"},
      {"effective", "dmodk:e=1"},
      {"refused", false},
      {"reason", ""},
      {"not_run", false},
      {"skipped", false},
      {"connected", true},
      {"loop_free", true},
      {"deadlock_free", true},
      {"passed", true},
      {"layers", 3},
      {"layers_used", 2},
      {"method", "acyclic"},
      {"mean_hops", 3.25},
      {"group", 4},
      {"deployable", true},
      {"not_deployable", nlohmann::json::array()},
      {"opensm_options", "-R x"},
      {"tables_fingerprint", 987654321},
      {"notes", {"a note"}},
      {"deployment",
       {{"kind", "multipath"},
        {"switch_model", "lft"},
        {"escape", false},
        {"tables", 3},
        {"addresses_per_terminal", 4},
        {"lmc", 2},
        {"paths_per_pair", 5},
        {"source_classes", 6},
        {"max_candidates", 7},
        {"vls", 8},
        {"per_pair_sl", true},
        {"lids", 44},
        {"entries_per_switch", 45},
        {"in_order", false},
        {"deploy", {"step one"}}}},
      {"models",
       {{{"model", "even-split"},
         {"worst", 4.0},
         {"worst_lower", 3.5},
         {"abb", {{"mean", 0.5}, {"ci99", 0.01}, {"samples", 100}, {"converged", true}, {"upper_bound", 0.55}}},
         {"afpb", {{"mean", 0.25}, {"ci99", 0.02}, {"samples", 200}, {"converged", false}, {"upper_bound", 0.3}}},
         {"adb", {{"mean", 0.125}, {"ci99", 0.03}, {"samples", 300}, {"converged", true}, {"upper_bound", 0.2}}},
         {"shift_max_load", 2.0},
         {"shift_mean_bandwidth", 0.75}}}},
      {"simulation",
       {{"why", "leading deployable routing"},
        {"in_order", true},
        {"mean_saturation", 0.59},
        {"patterns",
         {{{"traffic", "uniform"},
           {"saturation_load", 0.6},
           {"saturation_accepted", 0.59},
           {"reference_load", 0.55},
           {"latency_at_50", 20.5},
           {"accepted_at_50", 0.275},
           {"latency_at_80", 30.5},
           {"accepted_at_80", 0.44},
           {"fairness_at_80", 0.97},
           {"worst_source_at_80", 0.41},
           {"points",
            {{{"load", 0.275}, {"offered", 0.28}, {"accepted", 0.275}, {"latency", 20.5}, {"saturated", false}}}}}}}}},
      {"timings", {{"route", 0.25}, {"simulate", 2.5}}}};
  EXPECT_EQ(j.at("engines")[0], engine) << j.at("engines")[0].dump(1);
  // A refused routing: its reason, no deployment profile, no simulation, not deployable.
  const nlohmann::json& second = j.at("engines")[1];
  EXPECT_EQ(second.at("rank"), 2);
  EXPECT_EQ(second.at("refused"), true);
  EXPECT_EQ(second.at("reason"), "needs 9 layers");
  EXPECT_EQ(second.at("passed"), false);
  EXPECT_EQ(second.at("deployable"), false);
  EXPECT_FALSE(second.contains("deployment"));
  EXPECT_FALSE(second.contains("simulation"));
  EXPECT_EQ(second.at("models"), nlohmann::json::array());
}

/// The rows of the here-document `$name` of a gnuplot script.
std::vector<std::string> dataBlock(const std::string& script, const std::string& name) {
  std::vector<std::string> rows;
  std::istringstream in(script.substr(script.find("$" + name + " << EOD\n")));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && line != "EOD") rows.push_back(line);
  return rows;
}

TEST(CompareFigures, TheLatencyCurveStopsAtTheKneeAndTheMetricsFollowTheRanking) {
  const Comparison c = compareEngines(evidenceOptions());
  const std::vector<FigureSpec> figures = comparisonFigures(c);
  ASSERT_EQ(figures.size(), 3u + 4u);  // + one heat map per analysed engine (a fat-tree)
  EXPECT_EQ(figures[0].id, "fig-metrics");
  std::size_t analysed = 0;
  for (const EngineComparison& e : c.engines) analysed += e.rankingModel() != nullptr ? 1 : 0;
  EXPECT_EQ(dataBlock(figures[0].script, "metrics").size(), analysed);
  EXPECT_EQ(figures[1].id, "fig-latency");
  const EngineComparison* first = nullptr;
  for (const EngineComparison& e : c.engines) {
    if (first == nullptr && e.dynamic.simulated()) first = &e;
  }
  ASSERT_NE(first, nullptr);
  const SimulatedPattern& uniform = first->dynamic.patterns[0];
  std::size_t below = 0;
  for (const auto& point : uniform.points) below += point.load <= uniform.saturationLoad ? 1 : 0;
  EXPECT_EQ(dataBlock(figures[1].script, "r0p0").size(), below);
  EXPECT_EQ(dataBlock(figures[1].script, "k0p0").size(), 1u);  // the knee
  // The knee's dot, for every simulated routing and pattern, recounted from the points' own
  // flags (docs/COMPARE.md): the highest searched load (on [0.01, 1]) found unsaturated, or
  // 0.01 when every searched load saturated. The points below 0.01 are the latency points.
  std::size_t r = 0, knees = 0, allSaturated = 0;
  for (const EngineComparison& e : c.engines) {
    if (!e.dynamic.simulated()) continue;
    for (std::size_t p = 0; p < e.dynamic.patterns.size(); ++p) {
      const SimulatedPattern::Point* knee = nullptr;
      const SimulatedPattern::Point* lowest = nullptr;
      for (const auto& point : e.dynamic.patterns[p].points) {
        if (point.load < 0.01) continue;
        if (!point.saturated && (knee == nullptr || point.load > knee->load)) knee = &point;
        if (lowest == nullptr || point.load < lowest->load) lowest = &point;
      }
      ASSERT_NE(lowest, nullptr) << e.name << " pattern " << p;
      if (knee == nullptr) {
        EXPECT_EQ(lowest->load, 0.01) << e.name << " pattern " << p;
        knee = lowest;
        ++allSaturated;
      }
      EXPECT_EQ(
          dataBlock(figures[1].script, fmt::format("k{}p{}", r, p)),
          std::vector<std::string>{fmt::format("{:.6g} {:.6g} {:.6g}", knee->offered, knee->accepted, knee->latency)})
          << e.name << " pattern " << p;
      ++knees;
    }
    ++r;
  }
  EXPECT_GT(knees, allSaturated);
  // The legend: each routing's curve is titled with its name in the first pattern's panel
  // (the key is drawn there only), and untitled in the other panels.
  for (const std::size_t f : {1u, 2u}) {
    std::size_t routingIndex = 0;
    for (const EngineComparison& e : c.engines) {
      if (!e.dynamic.simulated()) continue;
      for (std::size_t p = 0; p < e.dynamic.patterns.size(); ++p) {
        const std::string& script = figures[f].script;
        const std::size_t at = script.find(fmt::format("$r{}p{} using", routingIndex, p));
        ASSERT_NE(at, std::string::npos) << figures[f].id << " " << e.name << " pattern " << p;
        const std::string curve = script.substr(at, script.find(", $k", at) - at);
        EXPECT_TRUE(curve.ends_with(p == 0 ? " title '" + e.name + "'" : std::string(" notitle")))
            << figures[f].id << ": " << curve;
      }
      ++routingIndex;
    }
  }
  EXPECT_EQ(dataBlock(figures[2].script, "r0p0").size(), uniform.points.size());
  EXPECT_NE(figures[1].script.find("set xlabel 'accepted traffic (flits/terminal/cycle)'"), std::string::npos);
  EXPECT_NE(figures[1].script.find("set ylabel 'mean latency (cycles)'"), std::string::npos);
  // The heat maps: one row of cells per stage, at most 128 cells of equal width across [0, 1]
  // (centre, stage row, half width), each the largest count of the channels it covers.
  for (const FigureSpec& f : figures) {
    if (f.id.rfind("fig-stages-", 0) != 0) continue;
    const auto e = std::find_if(c.engines.begin(), c.engines.end(),
                                [&](const EngineComparison& x) { return "fig-stages-" + x.name == f.id; });
    ASSERT_NE(e, c.engines.end()) << f.id;
    // Six stage rows (2-ary 3-tree: three pairs of adjacent levels, up and down), at y = 0..5:
    // both y axes span them alike, so each right-hand label stands beside its row.
    ASSERT_EQ(e->stages.size(), 6u) << f.id;
    EXPECT_NE(f.script.find("set yrange [5.5:-0.5] reverse\n"), std::string::npos) << f.script;
    EXPECT_NE(f.script.find("set y2range [5.5:-0.5] reverse\n"), std::string::npos) << f.script;
    std::vector<std::string> expected;
    for (std::size_t row = 0; row < e->stages.size(); ++row) {
      const std::vector<std::uint64_t>& paths = e->stages[row].paths;
      const std::size_t bins = std::min<std::size_t>(paths.size(), 128);
      for (std::size_t b = 0; b < bins; ++b) {
        std::uint64_t largest = 0;  // cell b covers channels [b N / bins, (b + 1) N / bins)
        for (std::size_t i = b * paths.size() / bins; i < (b + 1) * paths.size() / bins; ++i) {
          largest = std::max(largest, paths[i]);
        }
        expected.push_back(
            fmt::format("{:.6g} {} {:.6g} {}", (double(b) + 0.5) / double(bins), row, 0.5 / double(bins), largest));
      }
    }
    EXPECT_EQ(dataBlock(f.script, "cells"), expected) << f.id;
    // Readable at any depth: the figure grows with the stages, 30 pixels per row besides the
    // 90 of the title and the x label (figures.cpp).
    EXPECT_GE(f.height - 90, static_cast<int>(30 * e->stages.size())) << f.id;
  }
}

// The metrics figure's data rows, one per analysed routing in the comparison's order: its
// position, its name as a gnuplot string (a quote, a backslash or a line break in it become
// an apostrophe, which cannot end the string), ABB with its interval, WORST, the shifts' load,
// the VLs and the bar's colour.
TEST(CompareFigures, TheMetricsRowsCarryEachRoutingsNameAndNumbers) {
  Comparison c;
  const std::vector<std::string> names = {"dmodk", "lash:max-layers=2", "say \"hi\"", "back\\slash", "two\nlines"};
  const std::vector<std::string> drawn = {"dmodk", "lash:max-layers=2", "say 'hi'", "back'slash", "two'lines"};
  for (std::size_t r = 0; r < names.size(); ++r) {
    EngineComparison e = routing(names[r], r);
    e.models[0].abb.mean = 0.5 + 0.01 * double(r);
    e.models[0].worst = double(3 + r);
    e.layersUsed = 1 + r;
    c.engines.push_back(e);
  }
  const std::vector<FigureSpec> figures = comparisonFigures(c);
  ASSERT_FALSE(figures.empty());
  ASSERT_EQ(figures[0].id, "fig-metrics");
  const std::vector<std::string> rows = dataBlock(figures[0].script, "metrics");
  ASSERT_EQ(rows.size(), names.size());
  for (std::size_t r = 0; r < names.size(); ++r) {
    EXPECT_EQ(rows[r].substr(0, rows[r].rfind(' ')),
              fmt::format("{} \"{}\" {:.6g} 0.01 {} 2 {}", r, drawn[r], 0.5 + 0.01 * double(r), 3 + r, 1 + r))
        << rows[r];
  }
}

// Each simulated routing's curves take a colour gnuplot reads ('#rrggbb'), the first eight
// distinct, with more routings than the palette's eight colours (`--simulate-leaders` and the
// contrast routings can pass eight): ten routings, in both simulation figures.
TEST(CompareFigures, EverySimulatedRoutingHasAPaletteColourTheFirstEightDistinctAndItsDash) {
  Comparison c;
  for (std::size_t r = 0; r < 10; ++r) {
    EngineComparison e = routing("e" + std::to_string(r), r);
    SimulatedPattern pattern;
    pattern.traffic = "uniform";
    pattern.saturationLoad = 0.5;
    pattern.points = {{0.25, 0.25, 0.25, 20, false}, {0.5, 0.5, 0.49, 40, false}};
    e.dynamic.patterns = {pattern};
    if (r % 3 == 1) e.notDeployable = {"needs adaptive switches"};  // drawn dashed
    c.engines.push_back(e);
  }
  std::size_t figuresRead = 0;
  for (const FigureSpec& f : comparisonFigures(c)) {
    if (f.id != "fig-latency" && f.id != "fig-throughput") continue;
    ++figuresRead;
    std::vector<std::string> colours;
    for (std::size_t r = 0; r < 10; ++r) {
      const std::size_t plot = f.script.find(fmt::format("$r{}p0 using ", r));
      ASSERT_NE(plot, std::string::npos) << f.id << " routing " << r;
      const std::size_t open = f.script.find("lc rgb '", plot) + 8;
      const std::string colour = f.script.substr(open, f.script.find('\'', open) - open);
      EXPECT_EQ(colour.size(), 7u) << f.id << " routing " << r << ": '" << colour << "'";
      EXPECT_EQ(colour.find_first_not_of("0123456789abcdef", 1), std::string::npos) << colour;
      EXPECT_EQ(colour.front(), '#') << colour;
      colours.push_back(colour);
      // Solid for a routing deployable here, dashed for one that is not (the caption's key).
      const std::size_t dash = f.script.find(" dt ", plot) + 4;
      ASSERT_LT(dash, open);
      EXPECT_EQ(f.script.substr(dash, 2), c.engines[r].deployable() ? "1 " : "2 ") << f.id << " routing " << r;
    }
    EXPECT_EQ(std::set<std::string>(colours.begin(), colours.begin() + 8).size(), 8u) << f.id;
  }
  EXPECT_EQ(figuresRead, 2u);
}

// The heat maps' colour scale is shared and ends at the largest count any channel carries,
// however small: a fabric whose busiest channel carries one path is drawn on [0:1], and the
// caption names that darkest value.
TEST(CompareFigures, TheHeatMapScaleEndsAtTheLargestCountEvenAtOne) {
  for (const std::uint64_t largest : {std::uint64_t{1}, std::uint64_t{3}}) {
    Comparison c;
    for (const char* name : {"a", "b"}) {
      EngineComparison e = routing(name, c.engines.size());
      StageHeat stage;
      stage.summary.lowerLevel = 0;
      stage.summary.ascending = true;
      stage.paths = {0, std::string(name) == "a" ? largest : 1, 1};
      stage.summary.minPaths = 0;
      stage.summary.maxPaths = *std::max_element(stage.paths.begin(), stage.paths.end());
      e.stages = {stage};
      c.engines.push_back(e);
    }
    std::size_t maps = 0;
    for (const FigureSpec& f : comparisonFigures(c)) {
      if (f.id.rfind("fig-stages-", 0) != 0) continue;
      ++maps;
      EXPECT_NE(f.script.find(fmt::format("set cbrange [0:{}]\n", largest)), std::string::npos) << f.script;
      EXPECT_NE(f.caption.find(fmt::format("darkest = {} paths", largest)), std::string::npos) << f.caption;
    }
    EXPECT_EQ(maps, 2u);
  }
}

}  // namespace
}  // namespace routelab
