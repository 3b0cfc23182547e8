// routelab/sim/measurement_window.h — the phases of a run in cycles (docs/SIMULATION.md
// "Measurement"): the warm-up, the measurement window and the drain after it; the rule that
// ends an automatic warm-up; and the rule that ends a run (drained, or saturated: the drain's
// limit). Shared by every engine of a partitioned run: the decisions are taken between
// windows, on the totals of all blocks (Engine::decide).
#pragma once

#include <cstdint>

#include "core/units.h"
#include "sim/simulator.h"

namespace routelab::sim {

/// The warm-up [0, start), the measurement window [start, end) and the drain after it: a
/// packet generated in the window is measured, a flit crossing a channel in it counts for the
/// channel's utilization. Sources generate until stopGenerating (the window's end with
/// SimConfig::drainAll, else never). While an automatic warm-up runs, warmupDone is false and
/// start and end are never; a trace is measured whole ([0, never)).
struct MeasurementWindow {
  Cycle start = Cycle::never(), end = Cycle::never(), stopGenerating = Cycle::never();
  bool warmupDone = false;

  /// The window at cycle 0: a trace's, a fixed warm-up's (SimConfig::warmupCycles > 0), or
  /// open until the automatic warm-up ends.
  static MeasurementWindow atStart(const SimConfig& config, bool trace);
  /// The automatic warm-up ended at cycle `now`: the window is [now, now + measureCycles).
  void endWarmup(Cycle now, const SimConfig& config);
  /// Cycle `at` lies in the window.
  bool contains(Cycle at) const { return at >= start && at < end; }
  /// A generated (not trace-driven) run is over at cycle `now`, after its window: with
  /// SimConfig::drainAll when every packet generated has been handed over (`allReleased`);
  /// otherwise when every measured packet has been delivered (`measuredDelivered`) or the
  /// drain (SimConfig::drainCycles, default 4 x measureCycles) has passed — a saturated run.
  bool over(Cycle now, const SimConfig& config, bool allReleased, bool measuredDelivered) const;
  /// The cycles reported as warm-up and as measured for a run that ended at cycle `now`.
  Cycles warmupCycles(Cycle now, bool trace) const;
  Cycles measuredCycles(Cycle now) const;
};

/// The latencies of the packets delivered in a window, in cycles: their sum, sum of squares
/// and count (integers: the blocks of a partitioned run add up to the same totals).
struct LatencyMoments {
  std::uint64_t sum = 0, squares = 0, count = 0;
  void add(std::uint64_t latency) {
    sum += latency;
    squares += latency * latency;
    ++count;
  }
  void add(const LatencyMoments& other) {
    sum += other.sum;
    squares += other.squares;
    count += other.count;
  }
};

/// The automatic warm-up (SimConfig::warmupCycles 0; docs/SIMULATION.md "Warm-up"): every
/// kWindow cycles, the average latency of the packets delivered since the previous check.
/// A window is steady when its average differs from the last average measured (a window with
/// at least 2 deliveries) by at most kTolerance of it, or by at most kNoise standard errors of
/// the difference (sqrt(s1^2 / n1 + s2^2 / n2), sample variances s^2): a change the sampling
/// noise of a few packets explains is no drift. A window with fewer than 2 deliveries shows no
/// drift either (it is steady and measures nothing). The warm-up ends at the first check,
/// after at least kMinWindows windows, whose window and the one before were steady — or at
/// kMaxWindows windows, capped: the latency never settled (the network is saturated).
class WarmupDetector {
 public:
  static constexpr Cycles kWindow{1000};
  static constexpr int kMinWindows = 3, kMaxWindows = 10;
  static constexpr double kTolerance = 0.05;
  static constexpr double kNoise = 3;
  /// The cycle of the next check.
  Cycle nextCheck() const { return check_; }
  /// The check at cycle `now` (at least nextCheck()) with the latencies delivered since the
  /// last one. True: the warm-up ends at `now`.
  bool check(Cycle now, const LatencyMoments& window);
  /// The warm-up ended at its cap, its latency unsettled.
  bool capped() const { return capped_; }

 private:
  Cycle check_ = Cycle() + kWindow;
  double previous_ = -1;         ///< the last measured average (-1: none yet)
  double previousVariance_ = 0;  ///< its squared standard error, s^2 / n
  int stable_ = 0;
  bool capped_ = false;
};

}  // namespace routelab::sim
