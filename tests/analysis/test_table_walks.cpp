// First-path loads by walking the tables (analysis/table_walks.h): the same numbers as the
// stored pair paths and as analyze's pattern and stage metrics.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/loads.h"
#include "analysis/paths.h"
#include "analysis/split.h"
#include "analysis/stages.h"
#include "analysis/table_walks.h"
#include "core/errors.h"
#include "engines/fabrics.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "traffic/pattern.h"

namespace routelab {
namespace {

// The walk sampler gives analyze's first-path numbers bit for bit (same patterns, same
// summary), for a single-path and an adaptive routing and any thread count.
TEST(TableWalks, EqualsThePairPathSampler) {
  const Fabric fabric = loadFabric("gft2:n=6,m=4,r=8");
  for (const std::string engine : {"dmodk", "ftree-adaptive", "smodk"}) {
    const RoutingResult routing = runEngine(engine, fabric.network);
    for (const SampledPattern pattern :
         {SampledPattern::Bisect, SampledPattern::FullPermutation, SampledPattern::Dissemination}) {
      SamplingOptions options;
      options.seed = 7;
      options.threads = 1;
      const SampledBandwidth reference =
          sampleBandwidthUnderModel(fabric.network, routing, pattern, LoadModel::FirstPath, options);
      options.threads = 2;
      const SampledBandwidth walked = sampleByWalks(fabric.network, routing, pattern, options);
      EXPECT_EQ(walked.samples, reference.samples) << engine;
      EXPECT_EQ(walked.mean, reference.mean) << engine;
      EXPECT_EQ(walked.ci99HalfWidth, reference.ci99HalfWidth) << engine;
      EXPECT_EQ(walked.maxLoadHistogram, reference.maxLoadHistogram) << engine;
      EXPECT_EQ(walked.converged, reference.converged) << engine;
    }
  }
}

// Every shift: the ML of each equals patternLoads', and the channel totals are the all-pairs
// path counts of `routelab analyze --metric stages`.
TEST(TableWalks, ShiftLoadsEqualPatternLoadsAndStageCounts) {
  const Fabric fabric = loadFabric("kary-ntree:k=3,n=3");
  for (const std::string engine : {"updown", "ftree-adaptive"}) {
    const RoutingResult routing = runEngine(engine, fabric.network);
    std::vector<std::int64_t> shifts(fabric.network.terminalCount() - 1);
    std::iota(shifts.begin(), shifts.end(), 1);
    const ShiftLoads loads = shiftLoads(fabric.network, routing, shifts, 2);
    ASSERT_EQ(loads.maxLoads.size(), shifts.size());
    for (std::size_t i = 0; i < shifts.size(); ++i) {
      const TrafficPattern pattern = makePattern(fmt::format("shift:s={}", shifts[i]), fabric.network, 1);
      EXPECT_EQ(loads.maxLoads[i], std::max(1.0, patternLoads(fabric.network, routing, pattern).maxLoad)) << shifts[i];
    }
    EXPECT_EQ(loads.channelTotals, stagePathCounts(fabric.network, routing).pathsPerChannel) << engine;
    EXPECT_EQ(loads, shiftLoads(fabric.network, routing, shifts, 1)) << engine;
  }
}

// A walked pair is refused when either end has no address, the message naming that end
// (analysis/paths.h routePair): a table walk never reads the missing block as another's.
TEST(TableWalks, APairWithAnEndWithoutAddressIsRefusedNamingThatEnd) {
  const Network net = test::twoSwitches();  // t0 on s0, t1 on s1
  RoutingResult r;
  r.engine = "partial";
  r.addresses = AddressMap::fromBlocks(net, {{net.terminalNode(0), 1}}, {});  // t1 has no address
  r.tables.emplace_back(net.switchCount(), 1);
  r.tables[0].set(0, 0, 1);
  r.tables[0].set(1, 0, 2);
  for (const auto& [s, d, message] :
       {std::tuple{0U, 1U, std::string("routing 'partial' gives terminal 't1' no address")},
        std::tuple{1U, 0U, std::string("routing 'partial' gives terminal 't1' no address (it cannot be a source)")}}) {
    std::vector<ChannelId> path;
    try {
      routePair(net, r, s, d, path);
      ADD_FAILURE() << s << " -> " << d << " was walked";
    } catch (const AnalysisError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
}

}  // namespace
}  // namespace routelab
