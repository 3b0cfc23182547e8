// The measurement window (sim/measurement_window.h): where each kind of run measures, when a
// run is over, and the automatic warm-up's rule recomputed from its statement.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "sim/measurement_window.h"

namespace routelab {
namespace {

using sim::MeasurementWindow;
using sim::WarmupDetector;

TEST(MeasurementWindow, FixedWarmupTraceAndAutomaticStartAsConfigured) {
  SimConfig config;
  config.warmupCycles = 100;
  config.measureCycles = 50;
  MeasurementWindow fixed = MeasurementWindow::atStart(config, false);
  EXPECT_TRUE(fixed.warmupDone);
  EXPECT_FALSE(fixed.contains(Cycle(99)));
  EXPECT_TRUE(fixed.contains(Cycle(100)));
  EXPECT_TRUE(fixed.contains(Cycle(149)));
  EXPECT_FALSE(fixed.contains(Cycle(150)));
  EXPECT_EQ(fixed.stopGenerating, Cycle::never());
  config.drainAll = true;
  EXPECT_EQ(MeasurementWindow::atStart(config, false).stopGenerating, Cycle(150));

  const MeasurementWindow trace = MeasurementWindow::atStart(config, true);
  EXPECT_TRUE(trace.warmupDone && trace.contains(Cycle(0)) && trace.contains(Cycle(std::uint64_t{1} << 40)));
  EXPECT_EQ(trace.stopGenerating, Cycle::never());
  EXPECT_EQ(trace.warmupCycles(Cycle(500), true), Cycles(0));

  config.warmupCycles = 0;
  MeasurementWindow automatic = MeasurementWindow::atStart(config, false);
  EXPECT_FALSE(automatic.warmupDone);
  EXPECT_FALSE(automatic.contains(Cycle(0)));
  EXPECT_EQ(automatic.warmupCycles(Cycle(700), false), Cycles(700));  // ended before its warm-up did
  EXPECT_EQ(automatic.measuredCycles(Cycle(700)), Cycles(0));
  automatic.endWarmup(Cycle(3000), config);
  EXPECT_TRUE(automatic.contains(Cycle(3000)) && automatic.contains(Cycle(3049)) && !automatic.contains(Cycle(3050)));
  EXPECT_EQ(automatic.stopGenerating, Cycle(3050));
  EXPECT_EQ(automatic.warmupCycles(Cycle(4000), false), Cycles(3000));
  EXPECT_EQ(automatic.measuredCycles(Cycle(3020)), Cycles(20));  // cut short
  EXPECT_EQ(automatic.measuredCycles(Cycle(9000)), Cycles(50));
}

TEST(MeasurementWindow, ARunEndsDrainedOrAtTheDrainsLimit) {
  SimConfig config;
  config.warmupCycles = 10;
  config.measureCycles = 100;
  const MeasurementWindow window = MeasurementWindow::atStart(config, false);  // [10, 110)
  EXPECT_FALSE(window.over(Cycle(109), config, true, true));                   // still measuring
  EXPECT_TRUE(window.over(Cycle(110), config, false, true));                   // measured packets all in
  EXPECT_FALSE(window.over(Cycle(509), config, false, false));                 // draining: 4 x 100 cycles
  EXPECT_TRUE(window.over(Cycle(510), config, false, false));                  // saturated
  config.drainCycles = 7;
  EXPECT_TRUE(window.over(Cycle(117), config, false, false));
  config.drainAll = true;  // every packet, however long it takes
  EXPECT_FALSE(window.over(Cycle(1U << 30), config, false, true));
  EXPECT_TRUE(window.over(Cycle(110), config, true, false));
  config.warmupCycles = 0;
  EXPECT_FALSE(MeasurementWindow::atStart(config, false).over(Cycle(1U << 30), config, true, true));  // warming up
}

TEST(LatencyMoments, AreTheSumSumOfSquaresAndCountOfTheLatencies) {
  sim::LatencyMoments none;
  EXPECT_EQ(none.sum, 0u);
  EXPECT_EQ(none.squares, 0u);
  EXPECT_EQ(none.count, 0u);
  sim::LatencyMoments first, second;
  for (const std::uint64_t x : {3, 4, 5}) first.add(x);
  EXPECT_EQ(first.sum, 12u);
  EXPECT_EQ(first.squares, 50u);
  EXPECT_EQ(first.count, 3u);
  second.add(7);
  second.add(first);  // the blocks of a partitioned run: the latencies 3, 4, 5, 7
  EXPECT_EQ(second.sum, 19u);
  EXPECT_EQ(second.squares, 99u);
  EXPECT_EQ(second.count, 4u);
  // The first merge into an empty one copies it.
  none.add(first);
  EXPECT_EQ(std::make_tuple(none.sum, none.squares, none.count), std::make_tuple(12u, 50u, 3u));
}

/// The detector's rule written out, from the latencies themselves (two-pass variances): the
/// check of window w (cycle w x kWindow) is steady when the window has fewer than 2
/// deliveries, or when its mean is within 5 % of the last mean measured (a window with 2 or
/// more) or within 3 standard errors of their difference; the warm-up ends at the first
/// w >= kMinWindows whose last two checks were steady, or at kMaxWindows. Returns the cycle it
/// ends and whether it was capped.
std::pair<std::uint64_t, bool> expectedEnd(const std::vector<std::vector<std::uint64_t>>& windows) {
  int stable = 0;
  bool measured = false;
  double lastMean = 0, lastErrorSquared = 0;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const int w = static_cast<int>(i) + 1;
    const std::vector<std::uint64_t>& latencies = windows[i];
    bool steady = true;
    if (latencies.size() >= 2) {
      const double n = double(latencies.size());
      double mean = 0, squares = 0;
      for (const std::uint64_t x : latencies) mean += double(x) / n;
      for (const std::uint64_t x : latencies) squares += (double(x) - mean) * (double(x) - mean);
      const double errorSquared = squares / (n - 1) / n;
      steady = measured && (std::abs(mean - lastMean) <= 0.05 * lastMean ||
                            std::abs(mean - lastMean) <= 3 * std::sqrt(lastErrorSquared + errorSquared));
      measured = true;
      lastMean = mean;
      lastErrorSquared = errorSquared;
    }
    stable = steady ? stable + 1 : 0;
    if (w >= 3 && stable >= 2) return {(WarmupDetector::kWindow * w).count, false};
    if (w >= 10) return {(WarmupDetector::kWindow * w).count, true};
  }
  return {0, false};
}

// Windows of 100 equal latencies (no noise: the 5 % rule alone decides).
std::vector<std::vector<std::uint64_t>> equalWindows(const std::vector<std::uint64_t>& averages) {
  std::vector<std::vector<std::uint64_t>> windows;
  for (const std::uint64_t a : averages) windows.emplace_back(a == 0 ? 0 : 100, a);
  return windows;
}

// Windows of `n` latencies mean +- spread, alternating (sample standard deviation about spread).
std::vector<std::uint64_t> noisy(std::uint64_t mean, std::uint64_t spread, std::size_t n) {
  std::vector<std::uint64_t> latencies;
  for (std::size_t i = 0; i < n; ++i) latencies.push_back(i % 2 == 0 ? mean - spread : mean + spread);
  return latencies;
}

TEST(WarmupDetector, EndsWhereTheRuleSaysSettledOrCapped) {
  const std::vector<std::vector<std::vector<std::uint64_t>>> cases = {
      equalWindows({20, 20, 20, 20}),                                         // steady: the third check
      equalWindows({100, 400, 410, 420, 420}),                                // settles after a jump
      equalWindows({100, 120, 100, 100, 100}),                                // a jump resets
      equalWindows({100, 0, 100, 104, 108, 100}),                             // a window without deliveries: steady
      equalWindows({100, 110, 121, 133, 146, 161, 177, 195, 214, 236, 260}),  // 10 % a window: capped
      equalWindows({500, 520, 540, 560, 580, 600, 620, 640, 660, 680, 700}),  // within 5 % every window: 3
      equalWindows({200, 210, 220, 300, 300, 300}),                           // 5 % and 4.8 %: settled at 3
      // 10 packets of mean 100 +- 60 per window (standard error of their difference 28.3): a 20 %
      // change is noise, not drift; a 100 % one is drift.
      {noisy(100, 60, 10), noisy(120, 60, 10), noisy(100, 60, 10), noisy(120, 60, 10)},
      {noisy(100, 60, 10), noisy(200, 60, 10), noisy(100, 60, 10), noisy(200, 60, 10), noisy(100, 60, 10),
       noisy(200, 60, 10), noisy(100, 60, 10), noisy(200, 60, 10), noisy(100, 60, 10), noisy(200, 60, 10)},
      // 1,000 packets a window: the same 20 % steps are drift (standard error 2.7).
      {noisy(100, 60, 1000), noisy(120, 60, 1000), noisy(100, 60, 1000), noisy(120, 60, 1000), noisy(100, 60, 1000),
       noisy(120, 60, 1000), noisy(100, 60, 1000), noisy(120, 60, 1000), noisy(100, 60, 1000), noisy(120, 60, 1000)},
      // One delivery a window: nothing to measure a drift by.
      {{100}, {900}, {100}},
  };
  for (const auto& windows : cases) {
    WarmupDetector detector;
    std::uint64_t ended = 0;
    for (std::size_t i = 0; i < windows.size() && ended == 0; ++i) {
      const Cycle now = detector.nextCheck();
      EXPECT_EQ(now, Cycle() + WarmupDetector::kWindow * (i + 1));
      sim::LatencyMoments moments;
      for (const std::uint64_t x : windows[i]) moments.add(x);
      if (detector.check(now, moments)) ended = now.value;
    }
    const auto [cycle, capped] = expectedEnd(windows);
    EXPECT_EQ(ended, cycle) << windows.front().size() << " packets, " << windows.size() << " windows";
    EXPECT_EQ(detector.capped(), capped) << windows.front().size() << " packets, " << windows.size() << " windows";
  }
  // The cases' expected ends, stated: the rule above is not only compared with itself.
  EXPECT_EQ(expectedEnd(equalWindows({20, 20, 20, 20})), std::make_pair(std::uint64_t{3000}, false));
  EXPECT_EQ(expectedEnd(equalWindows({100, 0, 100, 104, 108, 100})), std::make_pair(std::uint64_t{3000}, false));
  EXPECT_EQ(expectedEnd(equalWindows({100, 110, 121, 133, 146, 161, 177, 195, 214, 236, 260})),
            std::make_pair(std::uint64_t{10000}, true));
  EXPECT_EQ(expectedEnd({noisy(100, 60, 10), noisy(120, 60, 10), noisy(100, 60, 10)}),
            std::make_pair(std::uint64_t{3000}, false));
  std::vector<std::vector<std::uint64_t>> drift;
  for (int i = 0; i < 10; ++i) drift.push_back(noisy(i % 2 == 0 ? 100 : 120, 60, 1000));
  EXPECT_EQ(expectedEnd(drift), std::make_pair(std::uint64_t{10000}, true));
}

}  // namespace
}  // namespace routelab
