// The phases of a run in cycles (sim/measurement_window.h).
#include "sim/measurement_window.h"

#include <algorithm>
#include <cmath>

namespace routelab::sim {

MeasurementWindow MeasurementWindow::atStart(const SimConfig& config, bool trace) {
  MeasurementWindow window;
  if (trace) {
    window.warmupDone = true;
    window.start = Cycle(0);
  } else if (config.warmupCycles > 0) {
    window.warmupDone = true;
    window.start = Cycle(config.warmupCycles);
    window.end = window.start + Cycles(config.measureCycles);
    if (config.drainAll) window.stopGenerating = window.end;
  }
  return window;
}

void MeasurementWindow::endWarmup(Cycle now, const SimConfig& config) {
  warmupDone = true;
  start = now;
  end = now + Cycles(config.measureCycles);
  if (config.drainAll) stopGenerating = end;
}

bool MeasurementWindow::over(Cycle now, const SimConfig& config, bool allReleased, bool measuredDelivered) const {
  if (!warmupDone || now < end) return false;
  if (config.drainAll) return allReleased;
  const Cycles drain(config.drainCycles > 0 ? config.drainCycles : 4 * config.measureCycles);
  return measuredDelivered || now >= end + drain;
}

Cycles MeasurementWindow::warmupCycles(Cycle now, bool trace) const {
  return trace ? Cycles(0) : (warmupDone ? start : now) - Cycle(0);
}

Cycles MeasurementWindow::measuredCycles(Cycle now) const {
  const Cycle last = end < now ? end : now;
  return warmupDone && last > start ? last - start : Cycles(0);
}

bool WarmupDetector::check(Cycle now, const LatencyMoments& window) {
  const int windows = static_cast<int>(now.value / kWindow.count);
  if (window.count < 2) {
    ++stable_;  // too few deliveries to show a drift
  } else {
    const double n = double(window.count);
    const double average = double(window.sum) / n;
    // Sample variance from the moments (clamped: rounding may leave a tiny negative).
    const double variance = std::max(0.0, (double(window.squares) - n * average * average) / (n - 1));
    const double errorOfMean = variance / n;
    const bool steady =
        previous_ >= 0 && std::abs(average - previous_) <=
                              std::max(kTolerance * previous_, kNoise * std::sqrt(previousVariance_ + errorOfMean));
    stable_ = steady ? stable_ + 1 : 0;
    previous_ = average;
    previousVariance_ = errorOfMean;
  }
  check_ = check_ + kWindow;
  const bool settled = windows >= kMinWindows && stable_ >= 2;
  if (!settled && windows < kMaxWindows) return false;
  capped_ = !settled;
  return true;
}

}  // namespace routelab::sim
