// The grouped traversal of buildRoutingDependencies (cdg/from_routing.h, "Sources grouped
// by switch") against the per-source traversal (buildRoutingDependenciesPerSource, the
// reference): the same dependency graph in every layer, the same counts, layers used and
// failure examples, on k-ary n-trees, XGFTs, generalized fat-trees, random irregular and
// faulted fabrics, deterministic, adaptive, LMC, switch traffic, layered and escape
// engines, OpenSM dumps (switch LIDs, a host without a LID) and routings with holes,
// dead ports, loops and wrong deliveries; and at any thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

#include "cdg/from_routing.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "routing/semantics.h"
#include "test_support.h"
#include "verify/verify.h"

using namespace routelab;

namespace {

std::string text(const RouteFailure& f) {
  return std::to_string(f.source.value) + ">" + std::to_string(f.destination.value) + "@" + std::to_string(f.address) +
         "/" + std::to_string(f.layer.index()) + ":" + pathStatusText(f.status);
}

std::vector<std::string> texts(const std::vector<RouteFailure>& failures) {
  std::vector<std::string> result;
  for (const auto& f : failures) result.push_back(text(f));
  return result;
}

/// Every field of two results, the graphs layer by layer (dependencies and cycle witness).
void expectSame(const RoutingDependencies& fast, const RoutingDependencies& reference, const std::string& what) {
  EXPECT_EQ(fast.routes, reference.routes) << what;
  EXPECT_EQ(fast.delivered, reference.delivered) << what;
  EXPECT_EQ(fast.noRoute, reference.noRoute) << what;
  EXPECT_EQ(fast.loops, reference.loops) << what;
  EXPECT_EQ(fast.deadPorts, reference.deadPorts) << what;
  EXPECT_EQ(fast.noAddress, reference.noAddress) << what;
  EXPECT_EQ(fast.unroutedSwitchPairs, reference.unroutedSwitchPairs) << what;
  EXPECT_EQ(fast.escapeFailures, reference.escapeFailures) << what;
  EXPECT_EQ(fast.sources, reference.sources) << what;
  EXPECT_EQ(fast.destinations, reference.destinations) << what;
  EXPECT_EQ(fast.layerUsed, reference.layerUsed) << what;
  EXPECT_EQ(texts(fast.failures), texts(reference.failures)) << what;
  EXPECT_EQ(texts(fast.unroutedSwitchExamples), texts(reference.unroutedSwitchExamples)) << what;
  EXPECT_EQ(texts(fast.escapeFailureExamples), texts(reference.escapeFailureExamples)) << what;
  ASSERT_EQ(fast.graph.layerCount(), reference.graph.layerCount()) << what;
  for (std::size_t l = 0; l < fast.graph.layerCount(); ++l) {
    const LayerId layer = LayerId::fromIndex(l);
    EXPECT_EQ(fast.graph.dependencies(layer), reference.graph.dependencies(layer)) << what << " layer " << l;
    EXPECT_EQ(fast.graph.findCycle(layer), reference.graph.findCycle(layer)) << what << " layer " << l;
  }
}

void compare(const Network& network, const RoutingResult& routing, const std::string& what,
             std::size_t maxExamples = 10) {
  for (bool switchTraffic : {false, true}) {
    if (switchTraffic && !routing.addresses.includesSwitches()) continue;
    TrafficScope scope;
    scope.switchTraffic = switchTraffic;
    scope.maxExamples = maxExamples;
    expectSame(buildRoutingDependencies(network, routing, scope),
               buildRoutingDependenciesPerSource(network, routing, scope), what + (switchTraffic ? " +switches" : ""));
  }
}

/// Small deterministic generator for the corruptions (not a statistics tool).
struct Lcg {
  std::uint64_t state;
  std::uint32_t next(std::uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>((state >> 33) % bound);
  }
};

/// `count` random entries of every table set to a random port (0 .. radix): holes, port 0
/// away from the target, dead ports, loops and deliveries to the wrong terminal.
RoutingResult corrupted(const Network& network, RoutingResult routing, std::size_t count, std::uint64_t seed) {
  Lcg lcg{seed};
  for (ForwardingTable& table : routing.tables) {
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t s = lcg.next(static_cast<std::uint32_t>(table.switchCount()));
      const Address a = lcg.next(static_cast<std::uint32_t>(table.addressCount()));
      const PortNumber radix = network.portCount(network.switchNode(s));
      const PortNumber port = static_cast<PortNumber>(lcg.next(radix + 2U));
      if (i % 3 == 2 && port > 0 && port <= radix) {
        const std::vector<PortNumber> ports{port, static_cast<PortNumber>(1 + lcg.next(radix))};
        table.setCandidates(s, a, ports);  // an adaptive entry
      } else {
        table.set(s, a, port == radix + 1 ? kNoRoute : port);
      }
    }
  }
  return routing;
}

}  // namespace

TEST(GroupedTraversal, SameAsPerSourceOnFatTreesAndIrregularFabrics) {
  const std::vector<std::pair<const char*, std::vector<const char*>>> cases = {
      {"kary-ntree:k=4,n=3", {"dmodk", "ftree-adaptive", "ftree-deterministic", "smodk", "minhop", "updown"}},
      {"kary-ntree:k=2,n=4", {"dmodk", "ftree-adaptive", "lash", "escape"}},
      {"xgft:h=3,m=4.3.2,w=1.2.3", {"dmodk", "ftree-adaptive", "ftree-deterministic", "smodk", "updown"}},
      {"gft2:n=4,m=3,r=6", {"dmodk", "opt", "opt-balanced", "ftree-adaptive"}},
      {"ft:l=3,m=4,w=2", {"dmodk", "ftree-adaptive", "minhop"}},
      {"kary-ntree:k=4,n=3+fail-links=5,seed=3", {"minhop", "updown", "updown-dfs", "lash", "escape", "mroots"}},
      {"xgft:h=3,m=4.3.2,w=1.2.3+fail-links=4,seed=2", {"minhop", "updown", "escape"}},
      {"random:switches=24,terminals=3,seed=5",
       {"minhop", "updown", "lash", "lash:addressing=pair", "escape", "mroots", "d-mroots:layers=3", "mp-lash",
        "a-lash"}},
  };
  for (const auto& [spec, engines] : cases) {
    const Fabric fabric = loadFabric(spec);
    for (const char* engine : engines) {
      const std::string name = engine;
      const bool pairAddressing = name.find("pair") != std::string::npos || name == "mp-lash" || name == "a-lash";
      for (std::uint32_t perTerminal : {1U, 4U}) {
        if (pairAddressing && perTerminal > 1) continue;  // one address per source switch and path
        for (bool routeSwitches : {false, true}) {
          RoutingContext context;
          context.addressesPerTerminal = perTerminal;
          context.routeSwitches = routeSwitches;
          const RoutingResult routing = runEngine(engine, fabric.network, context);
          compare(fabric.network, routing,
                  std::string(spec) + " " + engine + " lmc-addresses=" + std::to_string(perTerminal) +
                      (routeSwitches ? " switch-addresses" : ""));
        }
      }
    }
  }
}

TEST(GroupedTraversal, SameAsPerSourceOnBrokenRoutings) {
  for (const char* spec : {"kary-ntree:k=4,n=3", "xgft:h=3,m=4.3.2,w=1.2.3", "random:switches=16,terminals=2,seed=3"}) {
    const Fabric fabric = loadFabric(spec);
    const bool fatTree = std::string(spec).rfind("random", 0) != 0;
    for (const char* engine : {"dmodk", "ftree-adaptive", "updown"}) {
      if (!fatTree && std::string(engine) != "updown") continue;
      for (bool routeSwitches : {false, true}) {
        RoutingContext context;
        context.routeSwitches = routeSwitches;
        const RoutingResult routing = runEngine(engine, fabric.network, context);
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
          for (std::size_t count : {3U, 40U}) {
            const RoutingResult broken = corrupted(fabric.network, routing, count, seed);
            const std::string what = std::string(spec) + " " + engine + " seed " + std::to_string(seed) + " x" +
                                     std::to_string(count) + (routeSwitches ? " switch-addresses" : "");
            const RoutingDependencies reference = buildRoutingDependenciesPerSource(fabric.network, broken);
            if (count == 40U) {
              EXPECT_LT(reference.delivered, reference.routes) << what;  // failures to report
            }
            compare(fabric.network, broken, what, 3);
            compare(fabric.network, broken, what + " all examples", 100000);
          }
        }
      }
    }
  }
}

// The examples of each kind are the `maxExamples` smallest failures (address, source,
// destination), recomputed from the complete list: at a cap of 0 (none), 1 and 2, in both
// traversals.
TEST(GroupedTraversal, ExamplesAreTheSmallestFailuresUpToTheCap) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=3");
  RoutingContext context;
  context.routeSwitches = true;
  const RoutingResult broken = corrupted(fabric.network, runEngine("dmodk", fabric.network, context), 40, 1);
  TrafficScope scope;
  scope.switchTraffic = true;
  scope.maxExamples = 1000000;
  const RoutingDependencies all = buildRoutingDependenciesPerSource(fabric.network, broken, scope);
  ASSERT_GT(all.failures.size(), 2U);
  ASSERT_LT(all.failures.size(), scope.maxExamples);
  EXPECT_EQ(all.failures.size(), all.noRoute + all.loops + all.deadPorts);  // every failure, none dropped
  EXPECT_TRUE(std::is_sorted(all.failures.begin(), all.failures.end()));
  for (const std::size_t cap : {0U, 1U, 2U}) {
    scope.maxExamples = cap;
    for (const bool grouped : {true, false}) {
      const RoutingDependencies some = grouped ? buildRoutingDependencies(fabric.network, broken, scope)
                                               : buildRoutingDependenciesPerSource(fabric.network, broken, scope);
      const std::vector<RouteFailure> smallest(all.failures.begin(),
                                               all.failures.begin() + static_cast<std::ptrdiff_t>(cap));
      EXPECT_EQ(texts(some.failures), texts(smallest)) << "cap " << cap << " grouped " << grouped;
      EXPECT_EQ(some.noRoute + some.loops + some.deadPorts, all.failures.size()) << "the counts are not capped";
    }
  }
}

// OpenSM dumps: switch LIDs (root-to-root pairs unrouted) and a host without a LID.
TEST(GroupedTraversal, SameAsPerSourceOnOpenSmDumps) {
  const std::string dir = test::fixturesDir();
  std::size_t compared = 0;
  for (const char* fixture : {"k4n2", "k4n3", "rnd16_s1"}) {
    const Fabric fabric = loadFabric("file:" + dir + "/" + fixture + "/ibnetdiscover.txt");
    for (const char* engine : {"minhop", "updn", "ftree"}) {
      std::string dump = dir + "/" + fixture + "/lfts." + engine + ".dump";
      if (!std::filesystem::exists(dump)) dump += ".gz";
      if (!std::filesystem::exists(dump)) continue;
      compare(fabric.network, runEngine("file:" + dump, fabric.network), std::string(fixture) + " " + engine);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 8u);  // rnd16_s1 has no ftree dump
  // The k4n2 minhop dump without host kt-h01's LID (every pair from and to it fails).
  std::ifstream in(dir + "/k4n2/lfts.minhop.dump");
  const std::filesystem::path without = test::scratchDir() / "grouped-no-lid.dump";
  std::ofstream out(without);
  for (std::string line; std::getline(in, line);) {
    if (line.find("'kt-h01'") == std::string::npos) out << line << '\n';
  }
  out.close();
  const Fabric fabric = loadFabric("file:" + dir + "/k4n2/ibnetdiscover.txt");
  const RoutingResult routing = runEngine("file:" + without.string(), fabric.network);
  ASSERT_FALSE(routing.addresses.hasAddresses(fabric.network.terminalNode(1)));
  compare(fabric.network, routing, "k4n2 minhop without kt-h01");
}

TEST(GroupedTraversal, SameAtAnyThreadCount) {
#ifdef ROUTELAB_HAVE_OPENMP
  // Large enough to run in parallel, over several blocks of addresses, the last one partial:
  // 512 terminals x 4 LMC addresses, or 512 terminal + 192 switch addresses.
  const Fabric fabric = loadFabric("kary-ntree:k=8,n=3");
  const int threads = omp_get_max_threads();
  for (const char* engine : {"dmodk", "ftree-adaptive"}) {
    for (bool switchTraffic : {false, true}) {
      RoutingContext context;
      context.addressesPerTerminal = switchTraffic ? 1 : 4;
      context.routeSwitches = switchTraffic;
      const RoutingResult routing = corrupted(fabric.network, runEngine(engine, fabric.network, context), 20, 7);
      TrafficScope scope;
      scope.switchTraffic = switchTraffic;
      const std::string what = std::string(engine) + (switchTraffic ? " +switches" : " lmc-addresses=4");
      omp_set_num_threads(1);
      const RoutingDependencies one = buildRoutingDependencies(fabric.network, routing, scope);
      const RoutingDependencies reference = buildRoutingDependenciesPerSource(fabric.network, routing, scope);
      omp_set_num_threads(3);
      const RoutingDependencies three = buildRoutingDependencies(fabric.network, routing, scope);
      omp_set_num_threads(threads);
      expectSame(three, one, what + " 3 threads");
      expectSame(one, reference, what + " reference");
      EXPECT_GT(one.routes - one.delivered, 0u) << what;
    }
  }
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}
