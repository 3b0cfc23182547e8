// routelab/schedule/experiment.h — schedulability experiments (Ding §5) and multi-round
// scheduling (beyond the paper).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/random.h"
#include "schedule/circuits.h"
#include "schedule/scheduler.h"
#include "traffic/demand.h"

namespace routelab {

// Demands come from the traffic module (traffic/pattern.h: DemandSource turns a pattern spec
// into per-sample demands; sampleDingPermutation is Ding §5's random permutation).

/// Fills `out` with one sample's demands, drawing only from `rng` (called concurrently
/// from several threads: it must not share mutable state). DemandSource::draw is one.
using DemandSampler = std::function<void(Rng& rng, std::vector<SourceDestination>& out)>;

/// The seed scheme of every schedule experiment, stated once: sample `sample` draws its
/// demands and then its scheduler seed from Rng(deriveSeed(seed, sample)). Fills `out` and
/// returns the scheduler seed. So any one sample can be redrawn exactly, on any thread.
std::uint64_t drawSample(const DemandSampler& sampler, std::uint64_t seed, std::size_t sample,
                         std::vector<SourceDestination>& out);

// ---- schedulability ----------------------------------------------------------------------

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

/// Schedule `samples` independent request sets on an idle fabric each, sample s drawn by
/// drawSample(sampler, seed, s), so the result does not depend on the number of threads
/// (OpenMP over samples). O(samples × run). An exception of the sampler or the scheduler in a
/// sample is thrown again as AnalysisError with its message (one of them where several fail).
SchedulabilityStats measureSchedulability(const CircuitFabric& fabric, const SchedulerConfig& config,
                                          std::size_t samples, std::uint64_t seed, const DemandSampler& sampler);

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
LoadBound staticLoadBound(const CircuitFabric& fabric, std::span<const SourceDestination> requests);

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
                              std::span<const SourceDestination> requests, std::uint64_t seed);

// ---- the whole experiment -------------------------------------------------------------------

/// Rounds over the samples of an experiment.
struct RoundsSummary {
  double mean = 0;
  std::size_t min = 0, max = 0;
  std::size_t lowerBoundMax = 0;  ///< max over samples of LoadBound::lowerBound
};
/// O(results). `results` must not be empty.
RoundsSummary summarizeRounds(std::span<const RoundsResult> results);

/// A schedulability experiment as `routelab schedule` runs it (docs/SCHEDULING.md).
struct ScheduleExperiment {
  SchedulabilityStats stats;
  /// Sample 0 redrawn (drawSample) and scheduled again: its demands, scheduler seed,
  /// schedule and the independent check of its circuits (always ok: else it throws).
  std::vector<SourceDestination> firstDemands;
  std::uint64_t firstSchedulerSeed = 0;
  CircuitSchedule first;
  CircuitCheck firstCheck;
  /// With rounds: scheduleInRounds of every sample (its demands and the scheduler seed
  /// drawn by drawSample), and their summary.
  std::vector<RoundsResult> rounds;
  RoundsSummary roundsSummary;
};

/// measureSchedulability over `samples` samples; sample 0 scheduled again and checked by
/// checkCircuits (AnalysisError "schedule check failed (please report): ..." if a scheduler
/// ever grants conflicting circuits); with `rounds`, every sample scheduled in rounds.
/// Deterministic for a seed, whatever the thread count.
ScheduleExperiment runScheduleExperiment(const CircuitFabric& fabric, const SchedulerConfig& config,
                                         const DemandSampler& sampler, std::size_t samples, std::uint64_t seed,
                                         bool rounds);

}  // namespace routelab
