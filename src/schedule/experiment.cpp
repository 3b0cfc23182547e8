#include "schedule/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "core/errors.h"

namespace routelab {

std::uint64_t drawSample(const DemandSampler& sampler, std::uint64_t seed, std::size_t sample,
                         std::vector<SourceDestination>& out) {
  Rng rng(deriveSeed(seed, sample));
  sampler(rng, out);
  return rng();
}

SchedulabilityStats measureSchedulability(const CircuitFabric& fabric, const SchedulerConfig& config,
                                          std::size_t samples, std::uint64_t seed, const DemandSampler& sampler) {
  SchedulabilityStats stats;
  stats.scheduler = config.effective;
  stats.seed = seed;
  stats.samples = samples;
  const CircuitScheduler scheduler(fabric, config);
  std::vector<std::size_t> requested(samples), granted(samples), noCommon(samples), noUp(samples), down(samples);
  const auto count = static_cast<std::int64_t>(samples);
  bool failed = false;
  std::string failure;
#pragma omp parallel
  {
    LinkState state(fabric);
    CircuitSchedule out;
    std::vector<SourceDestination> requests;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t s = 0; s < count; ++s) {
      try {
        const auto sample = static_cast<std::size_t>(s);
        const std::uint64_t schedulerSeed = drawSample(sampler, seed, sample, requests);
        state.reset();
        scheduler.run(requests, schedulerSeed, state, out);
        requested[sample] = out.requests();
        granted[sample] = out.granted;
        for (CircuitStatus status : out.status) {
          noCommon[sample] += status == CircuitStatus::NoCommonPort;
          noUp[sample] += status == CircuitStatus::NoUpPort;
          down[sample] += status == CircuitStatus::DownConflict;
        }
      } catch (const std::exception& e) {
#pragma omp critical(routelab_schedule_failure)
        {
          if (!failed) failure = e.what();
          failed = true;
        }
      }
    }
  }
  if (failed) throw AnalysisError(failure);
  stats.ratios.resize(samples);
  double sum = 0, sumSquares = 0;
  stats.ratioMin = samples ? 1.0 : 0.0;
  for (std::size_t s = 0; s < samples; ++s) {
    const double ratio = requested[s] == 0 ? 1.0 : static_cast<double>(granted[s]) / static_cast<double>(requested[s]);
    stats.ratios[s] = ratio;
    sum += ratio;
    sumSquares += ratio * ratio;
    stats.ratioMin = std::min(stats.ratioMin, ratio);
    stats.ratioMax = std::max(stats.ratioMax, ratio);
    stats.requests += requested[s];
    stats.granted += granted[s];
    stats.noCommonPort += noCommon[s];
    stats.noUpPort += noUp[s];
    stats.downConflict += down[s];
  }
  if (samples > 0) {
    const auto n = static_cast<double>(samples);
    stats.ratioMean = sum / n;
    stats.ratioStddev = samples > 1 ? std::sqrt(std::max(0.0, (sumSquares - sum * sum / n) / (n - 1))) : 0.0;
  }
  return stats;
}

LoadBound staticLoadBound(const CircuitFabric& fabric, std::span<const SourceDestination> requests) {
  LoadBound bound;
  std::vector<std::uint32_t> top(requests.size());
  for (std::size_t r = 0; r < requests.size(); ++r) {
    top[r] = fabric.ancestorLevel(requests[r].source, requests[r].destination);
  }
  for (std::size_t k = 0; k < fabric.levels(); ++k) {
    const std::uint64_t groups = fabric.nodesAt(k) / fabric.weight(k);
    std::vector<std::size_t> out(groups, 0), in(groups, 0);
    for (std::size_t r = 0; r < requests.size(); ++r) {
      if (top[r] <= k) continue;
      ++out[fabric.group(k, requests[r].source)];
      ++in[fabric.group(k, requests[r].destination)];
    }
    const std::uint64_t capacity = fabric.weight(k + 1);
    std::size_t worst = 0;
    for (std::uint64_t g = 0; g < groups; ++g) worst = std::max({worst, out[g], in[g]});
    const auto needed = static_cast<std::size_t>((worst + capacity - 1) / capacity);
    if (needed > bound.lowerBound()) bound.level = k;  // the lowest level reaching the bound
    if (k == 0) {
      bound.terminalLinks = needed;
    } else {
      bound.switchCuts = std::max(bound.switchCuts, needed);
    }
  }
  return bound;
}

RoundsResult scheduleInRounds(const CircuitFabric& fabric, const SchedulerConfig& config,
                              std::span<const SourceDestination> requests, std::uint64_t seed) {
  RoundsResult result;
  result.requests = requests.size();
  result.roundOf.assign(requests.size(), 0);
  result.bound = staticLoadBound(fabric, requests);
  const std::size_t h = fabric.levels();
  result.circuits.levels = h;
  result.circuits.status.assign(requests.size(), CircuitStatus::Granted);
  result.circuits.ancestor.assign(requests.size(), 0);
  result.circuits.failedLevel.assign(requests.size(), 0);
  result.circuits.ports.assign(requests.size() * h, 0);
  result.circuits.granted = requests.size();
  const CircuitScheduler scheduler(fabric, config);
  LinkState state(fabric);
  CircuitSchedule out;
  std::vector<std::uint32_t> waiting(requests.size());
  std::iota(waiting.begin(), waiting.end(), 0U);
  std::vector<SourceDestination> batch;
  while (!waiting.empty()) {
    batch.clear();
    for (std::uint32_t r : waiting) batch.push_back(requests[r]);
    state.reset();
    scheduler.run(batch, deriveSeed(seed, result.rounds), state, out);
    if (out.granted == 0) {
      throw AnalysisError(fmt::format("round {} granted no circuit of {} waiting", result.rounds, waiting.size()));
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      if (out.status[i] == CircuitStatus::Granted) {
        result.roundOf[waiting[i]] = static_cast<std::uint32_t>(result.rounds);
        result.circuits.ancestor[waiting[i]] = out.ancestor[i];
        std::copy_n(out.ports.begin() + static_cast<std::ptrdiff_t>(i * h), h,
                    result.circuits.ports.begin() + static_cast<std::ptrdiff_t>(waiting[i] * h));
      } else {
        waiting[kept++] = waiting[i];
      }
    }
    waiting.resize(kept);
    result.grantedPerRound.push_back(out.granted);
    ++result.rounds;
  }
  return result;
}

RoundsSummary summarizeRounds(std::span<const RoundsResult> results) {
  RoundsSummary summary;
  summary.min = SIZE_MAX;
  double sum = 0;
  for (const RoundsResult& result : results) {
    summary.min = std::min(summary.min, result.rounds);
    summary.max = std::max(summary.max, result.rounds);
    summary.lowerBoundMax = std::max(summary.lowerBoundMax, result.bound.lowerBound());
    sum += static_cast<double>(result.rounds);
  }
  summary.mean = sum / static_cast<double>(results.size());
  return summary;
}

ScheduleExperiment runScheduleExperiment(const CircuitFabric& fabric, const SchedulerConfig& config,
                                         const DemandSampler& sampler, std::size_t samples, std::uint64_t seed,
                                         bool rounds) {
  ScheduleExperiment experiment;
  experiment.stats = measureSchedulability(fabric, config, samples, seed, sampler);
  experiment.firstSchedulerSeed = drawSample(sampler, seed, 0, experiment.firstDemands);
  experiment.first = CircuitScheduler(fabric, config).run(experiment.firstDemands, experiment.firstSchedulerSeed);
  experiment.firstCheck = checkCircuits(fabric, experiment.firstDemands, experiment.first);
  if (!experiment.firstCheck.ok) {
    throw AnalysisError("schedule check failed (please report): " + experiment.firstCheck.problem);
  }
  if (rounds) {
    std::vector<SourceDestination> demands;
    for (std::size_t s = 0; s < samples; ++s) {
      const std::uint64_t schedulerSeed = drawSample(sampler, seed, s, demands);
      experiment.rounds.push_back(scheduleInRounds(fabric, config, demands, schedulerSeed));
    }
    experiment.roundsSummary = summarizeRounds(experiment.rounds);
  }
  return experiment;
}

}  // namespace routelab
