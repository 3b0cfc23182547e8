// routelab/sweep/runner.h — computing sweep points on worker threads.
//
// The runner only computes; storing and reporting are the caller's: `onResult` runs on the
// calling thread for every finished point, in completion order. A point whose evaluation
// throws routelab::Error is a finished, failed point (deterministic: it fails again on a
// rerun); any other exception stops the run and is rethrown by runPoints().
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "analysis/sampling.h"
#include "sweep/results_store.h"
#include "sweep/sweep_file.h"

namespace routelab {

struct RunOptions {
  unsigned jobs = 0;                        ///< points computed at once; 0 = every core
  int threadsPerPoint = 0;                  ///< threads inside a point; 0 = cores / jobs (>= 1)
  std::size_t maxPoints = 0;                ///< start at most this many points; 0 = all
  const std::atomic<bool>* stop = nullptr;  ///< when set, no further point is started
  bool splitSamples = false;                ///< routelab-mpi: sampled points use every rank
};

struct RunSummary {
  std::size_t computed = 0;  ///< points finished in this run (failed ones included)
  std::size_t failed = 0;
  bool stopped = false;  ///< points were left (maxPoints or stop)
};

/// Evaluate one point, timing it; errors of the point become a failed result.
/// `split`: the samples of a sampled point over processes (same result; analysis/sampling.h).
PointResult computePoint(const SweepPoint& point, int threads, const std::string& worker,
                         const SampleSplit& split = {});

/// Compute `points` on worker threads. `onResult` may throw (e.g. a full disk): the
/// workers then finish their current points and the exception propagates.
RunSummary runPoints(const std::vector<const SweepPoint*>& points, const RunOptions& options,
                     const std::function<void(const PointResult&)>& onResult);

/// The points of `sweep` whose keys are not in `finished`, in sweep order.
std::vector<const SweepPoint*> pendingPoints(const Sweep& sweep, const std::set<std::string>& finished);

}  // namespace routelab
