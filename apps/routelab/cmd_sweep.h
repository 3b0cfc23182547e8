// routelab CLI — `sweep`, `results` and `plot` (docs/SWEEPS.md). The computation of the
// pending points is a parameter, so the MPI binary (apps/routelab-mpi) reuses the command
// with its own runner; bin/routelab runs them on threads.
#pragma once

#include <functional>
#include <vector>

#include "cli.h"
#include "sweep/runner.h"

namespace routelab::cli {

/// Computes `points`, calling `onResult` on the calling thread for each finished one.
using PointsRunner = std::function<RunSummary(const std::vector<const SweepPoint*>& points, const RunOptions& options,
                                              const std::function<void(const PointResult&)>& onResult)>;

/// `mpi`: also offer --split-samples (routelab-mpi).
Command sweepCommand(PointsRunner runner, bool mpi = false);
Command resultsCommand();
Command plotCommand();
/// sweep (on threads), results, plot.
std::vector<Command> sweepCommands();

}  // namespace routelab::cli
