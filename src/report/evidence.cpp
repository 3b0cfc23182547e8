// The dynamic evidence of a comparison (report/comparison.h, docs/COMPARE.md "Dynamic
// evidence"): the leading deployable routings and the best one that is not deployable here,
// simulated with Gómez §5.1's model (sim/model.h defaults) under the patterns of
// evidencePatterns(): the saturation knee by bisection of the offered load, then the latency
// at 50% and 80% of the lowest knee of each pattern, so every routing is measured at the same
// loads.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>

#include "core/errors.h"
#include "core/parallel.h"
#include "report/evidence.h"
#include "sim/simulator.h"

namespace routelab {

namespace {

constexpr double kLowestLoad = 0.01;

SimulatedPattern::Point pointOf(double load, const SimResult& r) {
  return {load, r.offered, r.accepted, r.latencyAvg, r.saturated};
}

/// The saturation knee of one pattern: the simulator's saturation search (findSaturation) on
/// [kLowestLoad, 1] in `steps` halvings, every point kept; a deadlock ends it with an error.
SimulatedPattern saturationOf(const Network& network, const RoutingResult& routing, const SimConfig& config,
                              int steps) {
  SimulatedPattern pattern;
  pattern.traffic = config.traffic;
  const SaturationPoint knee =
      findSaturation(network, routing, config, kLowestLoad, 1.0, steps, [&](int, double load, const SimResult& result) {
        if (result.deadlock) {
          throw SimulationError(fmt::format("{} at load {}: the watchdog reported a deadlock", config.traffic, load));
        }
        pattern.points.push_back(pointOf(load, result));
      });
  pattern.saturationLoad = knee.load;
  pattern.saturationAccepted = knee.result.accepted;
  return pattern;
}

/// Runs `task(i)` for i in [0, count) on `threads` workers; the first exception (by index) is
/// rethrown after all finished.
template <class Task>
void forEachParallel(std::size_t count, int threads, Task task) {
  std::vector<std::exception_ptr> errors(count);
  [[maybe_unused]] const int workers = workerThreads(threads);
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
    try {
      task(static_cast<std::size_t>(i));
    } catch (...) {
      errors[static_cast<std::size_t>(i)] = std::current_exception();
    }
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

struct Candidate {
  EngineComparison* engine = nullptr;
  const RoutingResult* routing = nullptr;
};

/// The routings to simulate, in ranking order: up to `leaders` deployable ones with distinct
/// tables, then, for contrast, the best routing each relaxed constraint would admit
/// (relaxationLeaders).
std::vector<Candidate> candidates(Comparison& comparison, const std::vector<const RoutingResult*>& byListed,
                                  std::size_t leaders) {
  std::vector<Candidate> chosen;
  std::vector<std::uint64_t> fingerprints;
  const std::vector<std::string> contrast = relaxationLeaders(comparison);
  for (EngineComparison& e : comparison.engines) {
    const RoutingResult* routing = e.listedOrder < byListed.size() ? byListed[e.listedOrder] : nullptr;
    if (routing == nullptr || !e.passed() || e.skipped || e.rankingModel() == nullptr) continue;
    if (e.deployable()) {
      const bool duplicate = e.tablesFingerprint != 0 && std::find(fingerprints.begin(), fingerprints.end(),
                                                                   e.tablesFingerprint) != fingerprints.end();
      if (duplicate || fingerprints.size() >= leaders) continue;
      fingerprints.push_back(e.tablesFingerprint);
      e.dynamic.why = "leading deployable routing";
      chosen.push_back({&e, routing});
    } else if (std::find(contrast.begin(), contrast.end(), e.name) != contrast.end()) {
      e.dynamic.why = "best routing a relaxed constraint admits (for contrast)";
      chosen.push_back({&e, routing});
    }
  }
  return chosen;
}

}  // namespace

std::vector<std::string> evidencePatterns(std::size_t terminals) {
  std::vector<std::string> patterns{"uniform", "random-permutation"};
  if (terminals >= 2) patterns.push_back(fmt::format("shift:s={}", terminals / 2));
  patterns.push_back("uniform-hot-spot:fraction=0.05");
  return patterns;
}

void simulateEvidence(const Network& network, const std::vector<const RoutingResult*>& byListed,
                      const CompareOptions& options, Comparison& comparison) {
  comparison.simulationResolution = (1.0 - kLowestLoad) / static_cast<double>(1U << options.simulateSteps);
  std::vector<Candidate> chosen = candidates(comparison, byListed, options.simulateLeaders);
  if (chosen.empty()) return;
  const std::vector<std::string> patterns = evidencePatterns(network.terminalCount());
  SimConfig base;
  base.seed = options.seed;
  base.measureCycles = options.simulateCycles;
  auto configOf = [&](const Candidate& c, const std::string& traffic) {
    SimConfig config = base;
    config.traffic = traffic;
    // The application needs in-order delivery: what is not in order by construction pays for
    // reorder buffers and end-to-end flow control (Gómez §5.1).
    config.inOrder = options.constraints.inOrder && !c.engine->deployment.inOrder;
    return config;
  };
  if (options.progress) {
    std::string names;
    for (const Candidate& c : chosen) names += (names.empty() ? "" : ", ") + c.engine->name;
    options.progress(fmt::format("simulate {} x {} patterns: {}", chosen.size(), patterns.size(), names));
  }
  // Saturation knees: every (routing, pattern) in parallel.
  const std::size_t tasks = chosen.size() * patterns.size();
  std::vector<SimulatedPattern> knees(tasks);
  std::vector<double> seconds(tasks, 0);
  forEachParallel(tasks, options.threads, [&](std::size_t i) {
    const auto start = std::chrono::steady_clock::now();
    const Candidate& c = chosen[i / patterns.size()];
    knees[i] = saturationOf(network, *c.routing, configOf(c, patterns[i % patterns.size()]), options.simulateSteps);
    seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  // The latency loads: 50% and 80% of each pattern's lowest knee.
  std::vector<double> reference(patterns.size(), 1.0);
  for (std::size_t i = 0; i < tasks; ++i) {
    reference[i % patterns.size()] = std::min(reference[i % patterns.size()], knees[i].saturationLoad);
  }
  std::vector<SimResult> at50(tasks), at80(tasks);
  std::vector<double> latencySeconds(2 * tasks, 0);  // per run: the two runs of a task may overlap
  forEachParallel(2 * tasks, options.threads, [&](std::size_t j) {
    const std::size_t i = j / 2;
    const auto start = std::chrono::steady_clock::now();
    const Candidate& c = chosen[i / patterns.size()];
    SimConfig config = configOf(c, patterns[i % patterns.size()]);
    config.load = reference[i % patterns.size()] * (j % 2 == 0 ? 0.5 : 0.8);
    (j % 2 == 0 ? at50 : at80)[i] = simulate(network, *c.routing, config);
    latencySeconds[j] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  for (std::size_t i = 0; i < tasks; ++i) {
    seconds[i] += latencySeconds[2 * i] + latencySeconds[2 * i + 1];
    const Candidate& c = chosen[i / patterns.size()];
    SimulatedPattern& p = knees[i];
    p.referenceLoad = reference[i % patterns.size()];
    p.latencyAt50 = at50[i].latencyAvg;
    p.acceptedAt50 = at50[i].accepted;
    p.latencyAt80 = at80[i].latencyAvg;
    p.acceptedAt80 = at80[i].accepted;
    p.fairnessAt80 = at80[i].sourceFairness;
    p.worstSourceAt80 = at80[i].sourceAcceptedMin;
    p.points.push_back(pointOf(0.5 * p.referenceLoad, at50[i]));
    p.points.push_back(pointOf(0.8 * p.referenceLoad, at80[i]));
    std::sort(p.points.begin(), p.points.end(),
              [](const SimulatedPattern::Point& a, const SimulatedPattern::Point& b) { return a.load < b.load; });
    DynamicEvidence& d = c.engine->dynamic;
    d.inOrder = configOf(c, p.traffic).inOrder;
    d.timings.push_back({"simulate " + p.traffic, seconds[i]});
    d.patterns.push_back(std::move(p));
  }
  for (const Candidate& c : chosen) {
    DynamicEvidence& d = c.engine->dynamic;
    double sum = 0;
    for (const SimulatedPattern& p : d.patterns) sum += p.saturationAccepted;
    d.meanSaturation = sum / static_cast<double>(d.patterns.size());
  }
}

}  // namespace routelab
