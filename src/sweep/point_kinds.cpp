// routelab/sweep/point_kinds.cpp — the `analyze` kind (what `routelab analyze` computes) and
// the `simulate` kind (one `routelab simulate` run at one offered load).
#include "sweep/point_kinds.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "analysis/loads.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/stages.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "sim/sim_json.h"
#include "sim/simulator.h"
#include "traffic/pattern.h"

#ifndef ROUTELAB_VERSION_STRING
#define ROUTELAB_VERSION_STRING "unknown"
#endif

namespace routelab {

namespace {

const std::vector<std::string> kMetrics = {"worst", "abb", "afpb", "adb", "pattern", "stages"};

/// The point's routing: its engine on `fabric` with its seed and 2^lmc addresses per terminal.
RoutingResult routeOf(const nlohmann::json& config, const Fabric& fabric) {
  RoutingContext context;
  context.seed = config["seed"].get<std::uint64_t>();
  context.addressesPerTerminal = std::uint32_t{1} << config["lmc"].get<std::uint32_t>();
  return runEngine(config["engine"].get<std::string>(), fabric.network, context);
}

/// What every point records of the fabric and routing it really used.
void addEffectiveConfiguration(nlohmann::json& result, const Fabric& fabric, const RoutingResult& routing) {
  result["terminals"] = fabric.network.terminalCount();
  result["effective_fabric"] = fabric.spec;
  result["effective_engine"] = routing.engine;
}

bool isSampled(const std::string& metric) { return metric == "abb" || metric == "afpb" || metric == "adb"; }

void normalizeAnalyze(nlohmann::json& config) {
  const std::string metric = config.at("metric").get<std::string>();
  if (std::find(kMetrics.begin(), kMetrics.end(), metric) == kMetrics.end()) {
    throw SpecError("metric '" + metric + "' is not one of worst, abb, afpb, adb, pattern, stages");
  }
  config["load_model"] = loadModelName(parseLoadModel(config.at("load_model").get<std::string>()));
  if (config.at("lmc").get<std::int64_t>() < 0 || config.at("lmc").get<std::int64_t>() > 7) {
    throw SpecError("lmc must be in 0..7");
  }
  if (config.at("seed").get<std::int64_t>() < 0) throw SpecError("seed must not be negative");
  if (metric == "pattern" && config.at("pattern").get<std::string>().empty()) {
    throw SpecError("metric 'pattern' needs a pattern (e.g. pattern = \"shift:s=1\")");
  }
  if (metric != "pattern") config.erase("pattern");
  if (!isSampled(metric)) {
    config.erase("precision");
    config.erase("max_samples");
  } else if (config.at("precision").get<double>() <= 0 || config.at("max_samples").get<std::int64_t>() < 2) {
    throw SpecError("precision must be > 0 and max_samples >= 2");
  }
  if (metric == "stages") config.erase("load_model");
  if (config.value("load_model", "") != "best-split") {
    config.erase("split_tolerance");
    config.erase("split_iterations");
  }
}

BestSplitOptions bestSplitOf(const nlohmann::json& config) {
  BestSplitOptions options;
  if (config.contains("split_tolerance")) options.tolerance = config["split_tolerance"].get<double>();
  if (config.contains("split_iterations")) options.maxIterations = config["split_iterations"].get<std::uint32_t>();
  return options;
}

nlohmann::json sampledResult(const Fabric& fabric, const RoutingResult& routing, const nlohmann::json& config,
                             LoadModel model, const EvaluationContext& context) {
  const std::string metric = config["metric"].get<std::string>();
  const SampledPattern pattern = metric == "abb"    ? SampledPattern::Bisect
                                 : metric == "afpb" ? SampledPattern::FullPermutation
                                                    : SampledPattern::Dissemination;
  SamplingOptions options;
  options.seed = config["seed"].get<std::uint64_t>();
  options.precision = config["precision"].get<double>();
  options.maxSamples = config["max_samples"].get<std::uint64_t>();
  options.threads = context.threads;
  options.split = context.split;
  const SampledBandwidth r =
      sampleBandwidthUnderModel(fabric.network, routing, pattern, model, options, bestSplitOf(config));
  return {{"value", r.mean},
          {"ci99_halfwidth", r.ci99HalfWidth},
          {"samples", r.samples},
          {"converged", r.converged},
          {"mean_max_load", r.meanMaxLoad},
          {"exact", r.exact},
          {"bandwidth_upper_bound", r.bandwidthUpperBound}};
}

nlohmann::json evaluateAnalyze(const nlohmann::json& config, const EvaluationContext& context) {
  const Fabric fabric = loadFabric(config["fabric"].get<std::string>());
  const RoutingResult routing = routeOf(config, fabric);
  const std::string metric = config["metric"].get<std::string>();
  const LoadModel model =
      config.contains("load_model") ? parseLoadModel(config["load_model"].get<std::string>()) : LoadModel::FirstPath;
  nlohmann::json result;
  if (metric == "worst") {
    const SplitWorstCase w = worstUnderModel(fabric.network, routing, model, context.threads, bestSplitOf(config));
    result = {{"value", w.value}, {"lower_bound", w.lower}, {"exact", w.lower == w.value}};
  } else if (isSampled(metric)) {
    result = sampledResult(fabric, routing, config, model, context);
  } else if (metric == "pattern") {
    const TrafficPattern pattern =
        makePattern(config["pattern"].get<std::string>(), fabric.network, config["seed"].get<std::uint64_t>());
    const LinkLoads loads = patternLoads(fabric.network, routing, pattern, model, bestSplitOf(config));
    result = {{"value", loads.maxLoad},
              {"lower_bound", loads.lowerBound},
              {"exact", loads.lowerBound == loads.maxLoad},
              {"pairs", loads.pairs},
              {"bandwidth", loads.maxLoad > 0 ? nlohmann::json(1.0 / loads.maxLoad) : nlohmann::json(nullptr)}};
  } else {
    const StagePathCounts counts = stagePathCounts(fabric.network, routing, context.threads);
    std::uint64_t maxPaths = 0;
    bool balanced = true;
    for (const StageCount& s : counts.stages) {
      maxPaths = std::max(maxPaths, s.maxPaths);
      balanced = balanced && s.balanced();
    }
    result = {{"value", maxPaths}, {"balanced", balanced}};
  }
  addEffectiveConfiguration(result, fabric, routing);
  result["single_path"] = isSinglePath(fabric.network, routing);
  return result;
}

PointKind analyzeKind() {
  PointKind kind;
  kind.name = "analyze";
  kind.summary = "static congestion analysis, as `routelab analyze` (docs/ANALYSIS.md)";
  kind.keys = {
      {"fabric", KeyType::String, nullptr, "fabric spec (routelab list)"},
      {"engine", KeyType::String, nullptr, "routing engine spec"},
      {"metric", KeyType::String, "worst", "worst | abb | afpb | adb | pattern | stages"},
      {"pattern", KeyType::String, "", "pattern spec, metric 'pattern' only"},
      {"seed", KeyType::Integer, 1, "seed of the engine and of the sampled or random patterns"},
      {"lmc", KeyType::Integer, 0, "2^lmc addresses per terminal"},
      {"load_model", KeyType::String, "even-split", "first-path | even-split | best-split"},
      {"precision", KeyType::Float, 0.01, "abb/afpb/adb: stop at 99% half-width <= precision x mean"},
      {"max_samples", KeyType::Integer, std::int64_t{1} << 24, "abb/afpb/adb: most samples"},
      {"split_tolerance", KeyType::Float, 0.01, "best-split tolerance"},
      {"split_iterations", KeyType::Integer, 400, "best-split solver iterations"},
  };
  kind.normalize = normalizeAnalyze;
  kind.evaluate = evaluateAnalyze;
  return kind;
}

// ---- simulate ----

void requireRange(const nlohmann::json& config, const char* key, std::int64_t low, std::int64_t high) {
  const std::int64_t value = config.at(key).get<std::int64_t>();
  if (value < low || value > high) {
    throw SpecError(fmt::format("{} must be in {}..{} (got {})", key, low, high, value));
  }
}

void normalizeSimulate(nlohmann::json& config) {
  const double load = config.at("load").get<double>();
  if (!(load > 0 && load <= 1))
    throw SpecError(fmt::format("load must be in (0, 1] flits/terminal/cycle (got {})", load));
  parseSelection(config.at("selection").get<std::string>());
  parsePathPolicy(config.at("paths").get<std::string>());
  parseInjection(config.at("injection").get<std::string>());
  requireRange(config, "seed", 0, std::numeric_limits<std::int64_t>::max());
  requireRange(config, "lmc", 0, 7);
  requireRange(config, "packet_flits", 1, 1 << 16);
  requireRange(config, "buffer_packets", 1, 1 << 12);
  requireRange(config, "routing_delay", 0, 1 << 20);
  requireRange(config, "fly_time", 1, 1 << 20);
  requireRange(config, "vcs", 0, 64);
  requireRange(config, "message_packets", 1, 1 << 20);
  requireRange(config, "in_order", 0, 1);
  requireRange(config, "warmup", 0, std::int64_t{1} << 40);
  requireRange(config, "cycles", 1, std::int64_t{1} << 40);
  requireRange(config, "watchdog", 1, std::int64_t{1} << 40);
  if (config.at("in_order").get<int>() == 0) {
    config.erase("reorder_buffer");
  } else {
    requireRange(config, "reorder_buffer", 1, 1 << 20);
  }
}

SimConfig simConfigOf(const nlohmann::json& config) {
  SimConfig sim;
  sim.traffic = config["traffic"].get<std::string>();
  sim.load = config["load"].get<double>();
  sim.seed = config["seed"].get<std::uint64_t>();
  sim.selection = parseSelection(config["selection"].get<std::string>());
  sim.pathPolicy = parsePathPolicy(config["paths"].get<std::string>());
  sim.injection = parseInjection(config["injection"].get<std::string>());
  sim.packetFlits = config["packet_flits"].get<std::uint32_t>();
  sim.bufferPackets = config["buffer_packets"].get<std::uint32_t>();
  sim.routingDelay = config["routing_delay"].get<std::uint32_t>();
  sim.flyTime = config["fly_time"].get<std::uint32_t>();
  sim.vcs = config["vcs"].get<std::uint32_t>();
  sim.messagePackets = config["message_packets"].get<std::uint32_t>();
  sim.inOrder = config["in_order"].get<int>() != 0;
  if (sim.inOrder) sim.reorderPackets = config["reorder_buffer"].get<std::uint32_t>();
  sim.warmupCycles = config["warmup"].get<std::uint64_t>();
  sim.measureCycles = config["cycles"].get<std::uint64_t>();
  sim.watchdogCycles = config["watchdog"].get<std::uint64_t>();
  return sim;
}

nlohmann::json evaluateSimulate(const nlohmann::json& config, const EvaluationContext& context) {
  const Fabric fabric = loadFabric(config["fabric"].get<std::string>());
  const RoutingResult routing = routeOf(config, fabric);
  SimConfig simConfig = simConfigOf(config);
  // The point's threads split its switches (the result does not depend on it); in-order
  // delivery runs on one thread (sim/model.h).
  simConfig.threads = simConfig.inOrder ? 1 : static_cast<std::uint32_t>(std::max(1, context.threads));
  const SimResult sim = simulate(fabric.network, routing, simConfig);
  nlohmann::json result = simResultJson(sim);
  result["value"] = sim.latencyAvg;
  result["vcs_used"] = sim.vcs;
  addEffectiveConfiguration(result, fabric, routing);
  return result;
}

PointKind simulateKind() {
  PointKind kind;
  kind.name = "simulate";
  kind.summary = "one flit-level simulation at one offered load, as `routelab simulate` (docs/SIMULATION.md)";
  kind.keys = {
      {"fabric", KeyType::String, nullptr, "fabric spec (routelab list)"},
      {"engine", KeyType::String, nullptr, "routing engine spec"},
      {"traffic", KeyType::String, "uniform", "uniform | uniform-hot-spot:fraction=F | a pattern spec"},
      {"load", KeyType::Float, 0.1, "offered load, flits per terminal per cycle, in (0, 1]"},
      {"seed", KeyType::Integer, 1, "seed of the engine, the traffic and the switches' choices"},
      {"lmc", KeyType::Integer, 0, "2^lmc addresses per terminal"},
      {"selection", KeyType::String, "sadp", "ff | sadp | random | least-occupied"},
      {"paths", KeyType::String, "random", "multipath sources: random | round-robin | adaptive"},
      {"injection", KeyType::String, "bernoulli", "bernoulli | poisson"},
      {"packet_flits", KeyType::Integer, 8, "flits per packet"},
      {"buffer_packets", KeyType::Integer, 2, "packets per VC buffer"},
      {"routing_delay", KeyType::Integer, 20, "cycles"},
      {"fly_time", KeyType::Integer, 8, "cycles"},
      {"vcs", KeyType::Integer, 0, "virtual channels; 0 = one per routing layer"},
      {"message_packets", KeyType::Integer, 1, "packets per message"},
      {"in_order", KeyType::Integer, 0, "1 = in-order delivery (reorder buffer, end-to-end flow control)"},
      {"reorder_buffer", KeyType::Integer, 64, "in_order only: reorder buffer per destination, packets"},
      {"warmup", KeyType::Integer, 0, "warm-up cycles; 0 = automatic"},
      {"cycles", KeyType::Integer, 10000, "measured cycles"},
      {"watchdog", KeyType::Integer, 20000, "cycles without movement that mean deadlock"},
  };
  kind.normalize = normalizeSimulate;
  kind.evaluate = evaluateSimulate;
  kind.plotAxis = "load";
  kind.plotMeasures = {{"value", "mean packet latency (cycles, injection to delivery)"},
                       {"accepted", "accepted load (flits per terminal per cycle)"}};
  return kind;
}

}  // namespace

const std::vector<PointKind>& pointKinds() {
  // One row per kind.
  static const std::vector<PointKind> kinds = {analyzeKind(), simulateKind()};
  return kinds;
}

const PointKind& findPointKind(const std::string& name) {
  std::string known;
  for (const PointKind& kind : pointKinds()) {
    if (kind.name == name) return kind;
    known += (known.empty() ? "" : ", ") + kind.name;
  }
  throw SpecError("unknown point kind '" + name + "' (known: " + known + ")");
}

bool splitsSamples(const nlohmann::json& config) {
  return config.value("kind", "") == "analyze" && isSampled(config.value("metric", ""));
}

nlohmann::json evaluatePoint(const nlohmann::json& config, const EvaluationContext& context) {
  return findPointKind(config.at("kind").get<std::string>()).evaluate(config, context);
}

std::string routelabVersion() { return ROUTELAB_VERSION_STRING; }

}  // namespace routelab
