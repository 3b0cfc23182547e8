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
  std::string workers;   ///< who computed them, as run: "2 points at a time, 1 thread per point"
};

/// The points computed at once and the threads inside each, as RunOptions asks for `points`
/// points on `cores` cores: jobs (0 = every core) between 1 and the points; threads per point
/// as given, or (0) the cores left to each job, at least 1.
struct Parallelism {
  unsigned jobs = 1;
  int threadsPerPoint = 1;
};
Parallelism parallelismFor(const RunOptions& options, std::size_t points, unsigned cores);

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
