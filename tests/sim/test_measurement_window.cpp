// The measurement window (sim/measurement_window.h): where each kind of run measures, when a
// run is over, and the automatic warm-up's rule recomputed from its statement.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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

/// The detector's rule written out: the check of window w (cycle w x kWindow) compares its
/// average with the previous window's; the warm-up ends at the first w >= kMinWindows whose
/// last two comparisons were within the tolerance (a window without deliveries never is),
/// or at kMaxWindows. Returns the cycle it ends and whether it was capped.
std::pair<std::uint64_t, bool> expectedEnd(const std::vector<double>& averages) {
  int stable = 0;
  for (std::size_t i = 0; i < averages.size(); ++i) {
    const int w = static_cast<int>(i) + 1;
    const bool within = i > 0 && averages[i] > 0 && averages[i - 1] > 0 &&
                        std::abs(averages[i] - averages[i - 1]) <= 0.05 * averages[i - 1];
    stable = within ? stable + 1 : 0;
    if (w >= 3 && stable >= 2) return {(WarmupDetector::kWindow * w).count, false};
    if (w >= 10) return {(WarmupDetector::kWindow * w).count, true};
  }
  return {0, false};
}

TEST(WarmupDetector, EndsWhereTheRuleSaysSettledOrCapped) {
  const std::vector<std::vector<double>> cases = {
      {20, 20, 20, 20},                                              // steady: the third check
      {10, 40, 41, 42, 42},                                          // settles after a jump
      {10, 0, 10, 10.4, 10.8, 10},                                   // a window without deliveries resets
      {10, 11, 12.1, 13.3, 14.6, 16.1, 17.7, 19.5, 21.4, 23.6, 26},  // 10 % a window: capped
      {50, 52, 54, 56, 58, 60, 62, 64, 66, 68, 70},                  // within 5 % every window: settled at 3
      {200, 210, 220.5, 300, 300, 300}};                             // exactly 5 % twice: "at most", settled at 3
  for (const std::vector<double>& averages : cases) {
    WarmupDetector detector;
    std::uint64_t ended = 0;
    for (std::size_t i = 0; i < averages.size() && ended == 0; ++i) {
      const Cycle now = detector.nextCheck();
      EXPECT_EQ(now, Cycle() + WarmupDetector::kWindow * (i + 1));
      const std::uint64_t count = averages[i] > 0 ? 100 : 0;
      if (detector.check(now, static_cast<std::uint64_t>(averages[i] * 100), count)) ended = now.value;
    }
    const auto [cycle, capped] = expectedEnd(averages);
    EXPECT_EQ(ended, cycle) << averages.front() << ", " << averages.size() << " windows";
    EXPECT_EQ(detector.capped(), capped) << averages.front();
  }
}

}  // namespace
}  // namespace routelab
