#include "schedule/experiment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/errors.h"

namespace routelab {

void randomPermutationRequests(std::size_t terminals, Rng& rng, std::vector<CircuitRequest>& out) {
  out.resize(terminals);
  for (std::size_t i = 0; i < terminals; ++i) {
    out[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i)};
  }
  // Fisher–Yates on the destinations.
  for (std::size_t i = terminals; i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng.below(i));
    std::swap(out[i - 1].destination, out[j].destination);
  }
  std::erase_if(out, [](const CircuitRequest& r) { return r.source == r.destination; });
}

std::vector<CircuitRequest> shiftRequests(std::size_t terminals, std::int64_t shift) {
  std::vector<CircuitRequest> out;
  if (terminals == 0) return out;
  const auto n = static_cast<std::int64_t>(terminals);
  const std::int64_t s = ((shift % n) + n) % n;
  if (s == 0) return out;
  out.reserve(terminals);
  for (std::int64_t i = 0; i < n; ++i) {
    out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + s) % n)});
  }
  return out;
}

std::vector<CircuitRequest> allToAllRequests(std::size_t terminals) {
  std::vector<CircuitRequest> out;
  out.reserve(terminals * (terminals > 0 ? terminals - 1 : 0));
  for (std::size_t s = 1; s < terminals; ++s) {
    for (std::size_t i = 0; i < terminals; ++i) {
      out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + s) % terminals)});
    }
  }
  return out;
}

SchedulabilityStats measureSchedulability(const CircuitFabric& fabric, const SchedulerConfig& config,
                                          std::size_t samples, std::uint64_t seed, const RequestSampler& sampler) {
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
    std::vector<CircuitRequest> requests;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t s = 0; s < count; ++s) {
      try {
        const auto sample = static_cast<std::size_t>(s);
        Rng rng(deriveSeed(seed, sample));
        sampler(sample, rng, requests);
        const std::uint64_t schedulerSeed = rng();
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

LoadBound staticLoadBound(const CircuitFabric& fabric, std::span<const CircuitRequest> requests) {
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
                              std::span<const CircuitRequest> requests, std::uint64_t seed) {
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
  std::vector<CircuitRequest> batch;
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

}  // namespace routelab
