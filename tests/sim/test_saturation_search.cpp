// The saturation search (`simulate --saturation`, sim/simulator.h findSaturation) against its
// statement in docs/SIMULATION.md: the highest load that is not `saturated`, found by bisection
// between 0.01 and 1 in 7 halvings, to within 0.99 / 2^7. The answer is recomputed by a plain
// scan of every load the bisection can visit (the grid 0.01 + k x 0.99 / 128), one simulation
// each: the last unsaturated load before the first saturated one, where the flag is monotone
// on that grid (checked, so the comparison means something). Every point the search visits is
// that scan's run at its load, in the documented order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/errors.h"
#include "deadlock_fixtures.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "sim/simulator.h"

namespace routelab {
namespace {

constexpr double kLow = 0.01;
constexpr double kHigh = 1.0;
constexpr int kSteps = 7;

SimConfig shortRuns() {
  SimConfig config;
  config.warmupCycles = 1000;
  config.measureCycles = 4000;
  config.packetFlits = 4;  // enough packets at 0.01 for the 0.95 x offered rule
  config.seed = 5;
  return config;
}

/// One run of `config` at `load`, as simulate gives it.
SimResult simulatedAt(const Network& network, const RoutingResult& routing, SimConfig config, double load) {
  config.load = load;
  return simulate(network, routing, config);
}

TEST(SaturationSearch, FindsTheLastUnsaturatedLoadOfTheDocumentedGrid) {
  const Fabric ring = loadFabric(test::ringFabric(6, "saturation_search"));
  RoutingContext context;
  const RoutingResult routing = runEngine("updown", ring.network, context);
  const SimConfig config = shortRuns();

  // The scan: every load of the grid, in order.
  constexpr int kGrid = 1 << kSteps;
  const double step = (kHigh - kLow) / kGrid;
  int firstSaturated = -1;
  std::vector<SimResult> scan;
  for (int k = 0; k <= kGrid; ++k) {
    const double load = kLow + k * step;
    scan.push_back(simulatedAt(ring.network, routing, config, load));
    const bool saturated = scan.back().saturated;
    if (saturated && firstSaturated < 0) firstSaturated = k;
    if (firstSaturated >= 0) {
      ASSERT_TRUE(saturated) << "the flag is not monotone at load " << load;
    }
  }
  // A knee strictly inside the range: both ends of the search are exercised.
  ASSERT_GT(firstSaturated, 0);
  ASSERT_LE(firstSaturated, kGrid);

  std::vector<int> progress;
  std::vector<double> visitedLoads;
  const SaturationPoint search = findSaturation(ring.network, routing, config, kLow, kHigh, kSteps,
                                                [&](int index, double load, const SimResult& result) {
                                                  progress.push_back(index);
                                                  visitedLoads.push_back(load);
                                                  // Each visited point is the scan's run at its grid load.
                                                  const long k = std::lround((load - kLow) / step);
                                                  ASSERT_NEAR(load, kLow + k * step, 1e-12);
                                                  EXPECT_EQ(result.saturated, scan[k].saturated) << load;
                                                  EXPECT_EQ(result.accepted, scan[k].accepted) << load;
                                                });
  const SimResult& found = search.result;
  // The answer is the scan's last unsaturated load, and the run there as simulate gives it.
  const double knee = kLow + (firstSaturated - 1) * step;
  const SimResult expected = simulatedAt(ring.network, routing, config, knee);
  EXPECT_NEAR(search.load, knee, 1e-12);
  EXPECT_FALSE(found.saturated);
  EXPECT_EQ(found.offered, expected.offered);
  EXPECT_EQ(found.accepted, expected.accepted);
  EXPECT_EQ(found.latencyAvg, expected.latencyAvg);
  EXPECT_EQ(found.packetsGenerated, expected.packetsGenerated);
  // To within the documented step: one grid step further is saturated.
  EXPECT_TRUE(simulatedAt(ring.network, routing, config, knee + step).saturated);
  // Progress: the top of the range, the bottom, then one call per halving, in order.
  std::vector<int> expectedProgress;
  for (int done = 0; done < kSteps + 2; ++done) expectedProgress.push_back(done);
  EXPECT_EQ(progress, expectedProgress);
  // The loads in the documented order: the top, the bottom, then each halving's middle.
  ASSERT_EQ(visitedLoads.size(), std::size_t{kSteps + 2});
  EXPECT_EQ(visitedLoads[0], kHigh);
  EXPECT_EQ(visitedLoads[1], kLow);
  double low = kLow, high = kHigh;
  for (int i = 2; i < kSteps + 2; ++i) {
    const double middle = (low + high) / 2;
    EXPECT_EQ(visitedLoads[i], middle) << "halving " << i - 1;
    (scan[std::lround((middle - kLow) / step)].saturated ? high : low) = middle;
  }
}

TEST(SaturationSearch, StopsAtAnEndOfTheRangeThatDecidesAlone) {
  const Fabric ring = loadFabric(test::ringFabric(6, "saturation_ends"));
  RoutingContext context;
  const RoutingResult routing = runEngine("updown", ring.network, context);
  const SimConfig config = shortRuns();

  // Not saturated at the top: that run is the answer, after one simulation.
  std::vector<int> progress;
  auto record = [&](int index, double, const SimResult&) { progress.push_back(index); };
  const SaturationPoint lowSearch = findSaturation(ring.network, routing, config, 0.01, 0.05, kSteps, record);
  const SimResult& low = lowSearch.result;
  const SimResult atTop = simulatedAt(ring.network, routing, config, 0.05);
  ASSERT_FALSE(atTop.saturated);
  EXPECT_EQ(lowSearch.load, 0.05);
  EXPECT_EQ(low.accepted, atTop.accepted);
  EXPECT_EQ(low.packetsGenerated, atTop.packetsGenerated);
  EXPECT_EQ(progress, (std::vector<int>{0}));

  // Saturated already at the bottom: the bottom's run, after two.
  progress.clear();
  const SaturationPoint highSearch = findSaturation(ring.network, routing, config, 0.9, 0.95, kSteps, record);
  const SimResult& high = highSearch.result;
  const SimResult atBottom = simulatedAt(ring.network, routing, config, 0.9);
  ASSERT_TRUE(atBottom.saturated);
  EXPECT_EQ(highSearch.load, 0.9);
  EXPECT_TRUE(high.saturated);
  EXPECT_EQ(high.accepted, atBottom.accepted);
  EXPECT_EQ(high.packetsGenerated, atBottom.packetsGenerated);
  EXPECT_EQ(progress, (std::vector<int>{0, 1}));
}

TEST(SaturationSearch, RefusesARangeOutsideZeroToOne) {
  const Fabric ring = loadFabric(test::ringFabric(4, "saturation_range"));
  RoutingContext context;
  const RoutingResult routing = runEngine("updown", ring.network, context);
  const SimConfig config = shortRuns();
  for (const auto& [low, high] :
       std::vector<std::pair<double, double>>{{0, 0.5}, {0.5, 0.5}, {0.6, 0.5}, {0.1, 1.01}}) {
    EXPECT_THROW(findSaturation(ring.network, routing, config, low, high, kSteps), SpecError) << low << " " << high;
  }
  // The limits themselves are accepted (0 < low, high <= 1).
  EXPECT_NO_THROW(findSaturation(ring.network, routing, config, 0.001, 1.0, 1));
}

}  // namespace
}  // namespace routelab
