// simulate() and the curves built from it. Contract: sim/simulator.h.
#include "sim/simulator.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "core/errors.h"
#include "core/parallel.h"
#include "sim/engine.h"

namespace routelab {

namespace {

/// One engine per block of the partitioning, under memory policy Policy, run to the end.
template <class Policy>
SimResult runEngines(const Network& network, const RoutingSemantics& semantics, const SimConfig& config,
                     const Trace* trace, const sim::Partitioning& partitioning, const SimProgress& progress) {
  std::vector<std::unique_ptr<sim::Engine<Policy>>> engines;
  std::vector<sim::Engine<Policy>*> blocks;
  for (std::uint32_t block = 0; block < partitioning.count; ++block) {
    engines.push_back(std::make_unique<sim::Engine<Policy>>(network, semantics, config, trace, partitioning, block));
    blocks.push_back(engines.back().get());
  }
  if (partitioning.count > 1 && config.inOrder) {
    // End-to-end flow control couples blocks without delay: a source may inject only while
    // its destination's reorder buffer, in another block, has room in the same cycle.
    throw SpecError(
        "--threads: in-order delivery runs on one thread (its end-to-end flow control lets a source inject "
        "only on its destination's state of the same cycle, which another thread's block holds)");
  }
  return sim::Engine<Policy>::runPartitioned(blocks, progress);
}

}  // namespace

SimResult simulate(const Network& network, const RoutingResult& routing, const SimConfig& config, const Trace* trace,
                   const SimProgress& progress) {
  const RoutingSemantics semantics(network, routing);
  const std::uint32_t threads = config.threads > 0 ? config.threads : std::max(1U, std::thread::hardware_concurrency());
  const sim::Partitioning partitioning = sim::partitionSwitches(network, threads);
  return sim::streams(network, semantics, config)
             ? runEngines<sim::Streaming>(network, semantics, config, trace, partitioning, progress)
             : runEngines<sim::CacheResident>(network, semantics, config, trace, partitioning, progress);
}

std::vector<SimResult> simulateLoads(const Network& network, const RoutingResult& routing, const SimConfig& config,
                                     std::span<const double> loads, int threads,
                                     const std::function<void(std::size_t)>& done) {
  std::vector<SimResult> results(loads.size());
  std::vector<std::exception_ptr> errors(loads.size());
  std::mutex doneMutex;
  const auto count = static_cast<std::int64_t>(loads.size());
  [[maybe_unused]] const int workers = workerThreads(threads);
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers)
  for (std::int64_t i = 0; i < count; ++i) {
    const auto point = static_cast<std::size_t>(i);
    try {
      SimConfig pointConfig = config;
      pointConfig.load = loads[point];
      results[point] = simulate(network, routing, pointConfig);
    } catch (...) {
      errors[point] = std::current_exception();
    }
    if (done) {
      const std::lock_guard<std::mutex> lock(doneMutex);
      done(point);
    }
  }
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  return results;
}

SaturationPoint findSaturation(const Network& network, const RoutingResult& routing, const SimConfig& config,
                               double low, double high, int steps,
                               const std::function<void(int, double, const SimResult&)>& visited) {
  if (!(low > 0 && low < high && high <= 1)) throw SpecError("saturation search needs 0 < low < high <= 1");
  int index = 0;
  auto run = [&](double load) {
    SimConfig pointConfig = config;
    pointConfig.load = load;
    SaturationPoint point{load, simulate(network, routing, pointConfig)};
    if (visited) visited(index, load, point.result);
    ++index;
    return point;
  };
  SaturationPoint best = run(high);
  if (!best.result.saturated) return best;
  best = run(low);
  if (best.result.saturated) return best;
  for (int step = 0; step < steps; ++step) {
    const double middle = (low + high) / 2;
    SaturationPoint point = run(middle);
    if (point.result.saturated) {
      high = middle;
    } else {
      low = middle;
      best = std::move(point);
    }
  }
  return best;
}

std::vector<double> parseLoadRange(const std::string& text) {
  double values[3] = {0, 0, 0};
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const std::size_t end = i < 2 ? text.find(':', start) : text.size();
    if (end == std::string::npos) throw SpecError(fmt::format("--loads '{}': expected FROM:TO:STEP", text));
    const char* first = text.data() + start;
    const char* last = text.data() + end;
    const auto [ptr, error] = std::from_chars(first, last, values[i]);
    if (error != std::errc() || ptr != last || first == last) {
      throw SpecError(fmt::format("--loads '{}': '{}' is not a number", text, std::string(first, last)));
    }
    start = end + 1;
  }
  const double from = values[0], to = values[1], step = values[2];
  if (!(from > 0 && to <= 1 && from <= to && step > 0)) {
    throw SpecError(fmt::format("--loads '{}': needs 0 < FROM <= TO <= 1 and STEP > 0", text));
  }
  const auto count = static_cast<std::size_t>(std::floor((to - from) / step + 1e-9)) + 1;
  if (count > 1000) throw SpecError(fmt::format("--loads '{}': {} points (at most 1000)", text, count));
  std::vector<double> loads;
  for (std::size_t i = 0; i < count; ++i) loads.push_back(std::round((from + double(i) * step) * 1e9) / 1e9);
  return loads;
}

}  // namespace routelab
