// The conformance sweep (issue 4 item 4): every registered engine (engineRegistry().rows(),
// so new engines are covered automatically; `file` excluded) on every small generated
// fabric — k-ary n-trees, T(n+m, r), random irregular fabrics of 8–32 switches, each also
// with two random link faults — must be connected, loop-free and, except minhop,
// deadlock-free (tests/engines/routing_check.h). An engine may refuse a fabric only with
// UnsupportedTopology, and only if it declares itself fat-tree only (a row of
// fatTreeEngineRows(), or "fat-tree only" in its registry summary); a
// disconnected fabric must be refused with RoutingError by every engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "fabrics.h"
#include "graph/algorithms.h"
#include "routing_check.h"
#include "topology/registry.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

struct NamedFabric {
  std::string name;
  Network network;
};

std::vector<NamedFabric> sweepFabrics() {
  std::vector<NamedFabric> base;
  base.push_back({"kary-ntree:k=2,n=3", makeKaryNtree(2, 3)});
  base.push_back({"kary-ntree:k=3,n=2", makeKaryNtree(3, 2)});
  base.push_back({"kary-ntree:k=4,n=2", makeKaryNtree(4, 2)});
  base.push_back({"gft2:n=3,m=2,r=4", makeGft2(3, 2, 4)});
  base.push_back({"gft2:n=2,m=3,r=5", makeGft2(2, 3, 5)});
  base.push_back({"random:8x16", test::randomFabric(8, 16, 11)});
  base.push_back({"random:16x32", test::randomFabric(16, 32, 12)});
  base.push_back({"random:24x48", test::randomFabric(24, 48, 13)});
  base.push_back({"random:32x64", test::randomFabric(32, 64, 14)});
  base.push_back({"random:12x11(tree)", test::randomFabric(12, 11, 15)});
  base.push_back({"random:10x30,2-terminals", test::randomFabric(10, 30, 16, 2)});
  std::vector<NamedFabric> all = base;
  for (std::size_t i = 0; i < base.size(); ++i) {
    all.push_back(
        {base[i].name + "+fail-links=2,seed=" + std::to_string(i + 1), test::withoutLinks(base[i].network, 2, i + 1)});
  }
  // The topology module's own fault modifier (topology/faults.h): its fabrics must load
  // (an exception fails the sweep) and lack exactly the two cables it removes.
  const std::pair<const char*, Network> faulty[] = {
      {"kary-ntree:k=2,n=3+fail-links=2,seed=3", makeKaryNtree(2, 3)},
      {"gft2:n=3,m=3,r=4+fail-links=2,seed=5", makeGft2(3, 3, 4)},
  };
  for (const auto& [spec, intact] : faulty) {
    Network network = loadFabric(spec).network;
    EXPECT_EQ(network.linkCount() + 2, intact.linkCount()) << spec;
    all.push_back({spec, std::move(network)});
  }
  return all;
}

/// Option variants beyond the defaults, per engine of this module.
std::vector<std::string> variants(const std::string& engine) {
  static const std::map<std::string, std::vector<std::string>> extra = {
      {"lash",
       {"lash:addressing=pair", "lash:balance=true", "lash:fit=suffix", "lash:max-layers=2",
        "lash:max-layers=1,addressing=pair"}},
      {"mp-lash", {"mp-lash:balance=true", "mp-lash:max-layers=2", "mp-lash:max-layers=2,balance=true"}},
      {"a-lash", {"a-lash:balance=true", "a-lash:max-layers=2", "a-lash:max-layers=2,balance=true"}},
      {"mroots", {"mroots:layers=3"}},
      {"d-mroots", {"d-mroots:layers=3"}},
      {"escape", {"escape:layers=3"}},
  };
  std::vector<std::string> out{engine};
  if (auto it = extra.find(engine); it != extra.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  return out;
}

/// An engine declares itself fat-tree only by belonging to the fat-tree family
/// (fatTreeEngineRows(), routing/engine.h) or by saying "fat-tree only" in its summary.
bool declaresFatTreeOnly(const std::string& name, const std::string& summary) {
  for (const auto& row : fatTreeEngineRows()) {
    if (row.name == name) return true;
  }
  std::string lower = summary;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("fat-tree only") != std::string::npos || lower.find("fat-trees only") != std::string::npos;
}

bool connectedTerminals(const Network& network) {
  const auto components = connectedComponents(network);
  std::uint32_t first = UINT32_MAX;
  for (NodeId t : network.terminals()) {
    if (first == UINT32_MAX) first = components[t.index()];
    if (components[t.index()] != first) return false;
  }
  return true;
}

}  // namespace

TEST(Conformance, EveryEngineOnEverySmallFabric) {
  const auto fabrics = sweepFabrics();
  std::size_t routed = 0, refused = 0;
  bool minhopCycleSeen = false;
  for (const auto& row : engineRegistry().rows()) {
    if (row.name == "file") continue;
    for (const std::string& spec : variants(row.name)) {
      for (const auto& fabric : fabrics) {
        SCOPED_TRACE(spec + " on " + fabric.name);
        const bool connected = connectedTerminals(fabric.network);
        RoutingResult result;
        try {
          result = runEngine(spec, fabric.network);
        } catch (const UnsupportedTopology& e) {
          EXPECT_TRUE(declaresFatTreeOnly(row.name, row.summary) || !connected) << "refused: " << e.what();
          ++refused;
          continue;
        } catch (const RoutingError& e) {
          EXPECT_FALSE(connected) << "failed on a connected fabric: " << e.what();
          ++refused;
          continue;
        }
        ASSERT_TRUE(connected) << "routed a disconnected fabric without an error";
        ++routed;
        const test::RoutingCheck check = test::checkRouting(fabric.network, result);
        EXPECT_TRUE(check.connected) << check.problem;
        EXPECT_TRUE(check.loopFree) << check.problem;
        if (row.name == "minhop") {
          minhopCycleSeen = minhopCycleSeen || !check.deadlockFree;
        } else {
          EXPECT_TRUE(check.deadlockFree) << check.problem;
        }
        if (result.minimal) {
          EXPECT_TRUE(check.minimal) << "claims minimal routes but is not";
        }
        EXPECT_FALSE(result.engine.empty());
      }
    }
  }
  EXPECT_GT(routed, 0u);
  // The negative baseline: minhop must deadlock somewhere on these cyclic fabrics.
  if (engineRegistry().contains("minhop")) {
    EXPECT_TRUE(minhopCycleSeen);
  }
  RecordProperty("routed", static_cast<int>(routed));
  RecordProperty("refused", static_cast<int>(refused));
}

TEST(Conformance, SwitchTrafficToo) {
  // Management traffic (switch addresses) on an irregular and a faulty fabric.
  const Network random = test::randomFabric(16, 32, 21);
  const Network faulty = test::withoutLinks(makeKaryNtree(2, 3), 2, 4);
  RoutingContext context;
  context.routeSwitches = true;
  for (const auto& row : engineRegistry().rows()) {
    if (row.name == "file" || row.name == "minhop") continue;
    for (const Network* network : {&random, &faulty}) {
      SCOPED_TRACE(row.name + " on " + network->origin());
      const bool connected = componentCount(connectedComponents(*network)) == 1;
      RoutingResult result;
      try {
        result = runEngine(row.name, *network, context);
      } catch (const UnsupportedTopology&) {
        EXPECT_TRUE(declaresFatTreeOnly(row.name, row.summary) || !connected);
        continue;
      } catch (const RoutingError& e) {
        EXPECT_FALSE(connected) << e.what();
        continue;
      }
      ASSERT_TRUE(connected) << "routed switch traffic on a disconnected fabric";
      ASSERT_TRUE(result.addresses.includesSwitches());
      const auto check = test::checkRouting(*network, result);
      EXPECT_TRUE(check.connected && check.loopFree && check.deadlockFree) << check.problem;
    }
  }
}
