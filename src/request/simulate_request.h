// routelab/request/simulate_request.h — the `simulate` request (request/request.h): the
// simulator's rows (sim/sim_options.h) plus the fabric, the routing and how the run is
// driven (one load, a curve of loads, the saturation search or a trace).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/options.h"
#include "fabric/fabric.h"
#include "request/request.h"
#include "routing/routing_result.h"
#include "sim/model.h"
#include "sim/simulator.h"

namespace routelab {

/// Every row of the request: fabric, engine, the simulator's rows, lmc, threads, loads,
/// saturation, trace, trace-generate, compression, payload.
const OptionSchema& simulateSchema();

/// The keys that choose how a run is driven rather than what one simulation is (loads,
/// saturation, trace, trace-generate, compression, payload, threads, check): a sweep's
/// `simulate` point is one run at one load and takes every other key.
const std::vector<std::string>& simulateRunModeKeys();

struct SimulateRequest {
  Options options;  ///< validated against simulateSchema(); what toJson() writes
  std::string fabric;
  std::string engine;
  SimConfig config;  ///< threads: the threads of one simulation (see `threads`)
  std::uint32_t lmc = 0;
  std::optional<int> threads;  ///< absent: every core for `loads`, one thread for one run
  std::vector<double> loads;   ///< a latency-throughput curve (empty: one run at config.load)
  bool saturation = false;
  std::string traceFile;
  std::string traceGenerate;
  double compression = 1;
  std::uint32_t payload = 1024;

  /// Throws SpecError for exclusive modes given together ("--loads, --saturation and
  /// --trace/--trace-generate exclude each other") and malformed `loads`.
  static SimulateRequest fromOptions(const Options& options);
  static SimulateRequest fromValues(const KeyValues& values) { return fromOptions(requestOptions("simulate", values)); }
  static SimulateRequest fromJson(const nlohmann::json& json) { return fromOptions(optionsFromJson("simulate", json)); }
  nlohmann::json toJson() const { return optionsToJson(options); }
  bool usesTrace() const { return !traceFile.empty() || !traceGenerate.empty(); }
};

struct SimulateOutcome {
  Fabric fabric;
  RoutingResult routing;
  std::optional<Trace> trace;
  std::vector<SimResult> results;  ///< one per load of `loads`, else one
  /// With `saturation`: the offered load of the search's answer (SaturationPoint::load).
  double saturationLoad = 0;
};

/// (points done, points in all) while a curve or a saturation search runs.
using SimulateProgress = std::function<void(std::size_t, std::size_t)>;

/// Loads the fabric, runs the engine (seed, 2^lmc addresses) and simulates.
SimulateOutcome runSimulate(const SimulateRequest& request, const SimulateProgress& progress = {});
/// The same on a given fabric and routing (the request's fabric and engine are echoed only).
SimulateOutcome runSimulate(const SimulateRequest& request, Fabric fabric, RoutingResult routing,
                            const SimulateProgress& progress = {});

/// The JSON `routelab simulate --format json` prints (docs/SIMULATION.md "Output"): the
/// effective configuration, then the result, or "points" for a curve.
nlohmann::json simulateResultJson(const SimulateRequest& request, const SimulateOutcome& outcome);

}  // namespace routelab
