// routelab/schedule/experiment.h — schedulability experiments (Ding §5) and multi-round
// scheduling (beyond the paper).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/random.h"
#include "schedule/scheduler.h"

namespace routelab {

// ---- request patterns (terminal indices; pairs with source == destination are dropped) ----

/// Ding §5 "randomly generated communication permutations": a uniform random permutation
/// of the terminals (Fisher–Yates with `rng`), fixed points dropped. `out` is refilled.
void randomPermutationRequests(std::size_t terminals, Rng& rng, std::vector<CircuitRequest>& out);
/// Terminal i to (i + shift) mod N, for every i (empty when shift is a multiple of N).
std::vector<CircuitRequest> shiftRequests(std::size_t terminals, std::int64_t shift);
/// Every terminal to every other, grouped by shift s = 1 .. N-1 (N (N-1) requests).
std::vector<CircuitRequest> allToAllRequests(std::size_t terminals);

// ---- schedulability ----------------------------------------------------------------------

/// Fills `out` with sample `sample`'s requests, drawing only from `rng` (called
/// concurrently from several threads: it must not share mutable state).
using RequestSampler = std::function<void(std::size_t sample, Rng& rng, std::vector<CircuitRequest>& out)>;

struct SchedulabilityStats {
  std::string scheduler;  ///< effective scheduler spec
  std::uint64_t seed = 0;
  std::size_t samples = 0;
  std::size_t requests = 0;  ///< summed over samples
  std::size_t granted = 0;
  double ratioMean = 0, ratioMin = 0, ratioMax = 0, ratioStddev = 0;  ///< over samples
  std::size_t noCommonPort = 0, noUpPort = 0, downConflict = 0;       ///< failures, summed
  std::vector<double> ratios;                                         ///< per sample
};

/// Schedule `samples` independent request sets on an idle fabric each. Sample s draws its
/// requests and then its scheduler seed from Rng(deriveSeed(seed, s)), so the result does
/// not depend on the number of threads (OpenMP over samples). O(samples × run).
SchedulabilityStats measureSchedulability(const CircuitFabric& fabric, const SchedulerConfig& config,
                                          std::size_t samples, std::uint64_t seed, const RequestSampler& sampler);

// ---- multi-round scheduling ------------------------------------------------------------------

/// Lower bound on the rounds any circuit scheduler needs, from static link loads: at
/// scheduling level k every circuit leaving (entering) a level-k subtree — the terminals
/// with equal group(k, .) — needs one of the subtree's W_{k+1} up (down) channels, so
/// rounds >= ceil(circuits across the cut / W_{k+1}). At k = 0 with w_1 = 1 this is the
/// load of each terminal's own link (every circuit of a source needs its injection
/// channel). O(levels × (requests + terminals)).
struct LoadBound {
  std::size_t terminalLinks = 0;  ///< k = 0: max circuits per terminal link / w_1
  std::size_t switchCuts = 0;     ///< k >= 1: max over subtrees
  std::size_t level = 0;          ///< level k of the tightest cut
  std::size_t lowerBound() const { return terminalLinks > switchCuts ? terminalLinks : switchCuts; }
};
LoadBound staticLoadBound(const CircuitFabric& fabric, std::span<const CircuitRequest> requests);

struct RoundsResult {
  std::size_t requests = 0;
  std::size_t rounds = 0;
  std::vector<std::size_t> grantedPerRound;
  std::vector<std::uint32_t> roundOf;  ///< per request, 0-based
  /// Every request granted, with the ancestor level and ports of its circuit in its round.
  CircuitSchedule circuits;
  LoadBound bound;
};

/// Rounds of conflict-free circuits until every request is granted: round i schedules the
/// still-waiting requests, in their original order, on an idle fabric with scheduler seed
/// deriveSeed(seed, i). Each round grants at least its first request (an idle fat-tree
/// always has a path), so at most `requests` rounds. O(rounds × requests × levels).
RoundsResult scheduleInRounds(const CircuitFabric& fabric, const SchedulerConfig& config,
                              std::span<const CircuitRequest> requests, std::uint64_t seed);

}  // namespace routelab
