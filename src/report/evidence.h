// routelab/report/evidence.h — the simulator's evidence in a comparison (docs/COMPARE.md
// "Dynamic evidence").
#pragma once

#include <vector>

#include "graph/network.h"
#include "report/comparison.h"
#include "routing/routing_result.h"

namespace routelab {

/// Simulates, on a ranked `comparison`, up to options.simulateLeaders deployable routings with
/// distinct tables and, for contrast, the best routing each relaxed constraint admits
/// (relaxationLeaders),
/// each under every pattern of evidencePatterns(): the saturation knee (bisection on
/// [0.01, 1] with options.simulateSteps halvings; the knee is the highest load found
/// unsaturated), then the latency at 50% and 80% of the lowest knee of the pattern over the
/// simulated routings. `byListed[e.listedOrder]` is the routing of engine e (nullptr: not
/// kept, not simulated). Fills EngineComparison::dynamic and
/// Comparison::simulationResolution. Simulations run in parallel on options.threads; the
/// result does not depend on it. Throws the simulator's errors, and SimulationError when a
/// verified routing deadlocks in the simulator.
void simulateEvidence(const Network& network, const std::vector<const RoutingResult*>& byListed,
                      const CompareOptions& options, Comparison& comparison);

}  // namespace routelab
