// routelab/sweep/point_kinds.cpp — the `analyze` kind (what `routelab analyze` computes).
#include "sweep/point_kinds.h"

#include <algorithm>

#include "analysis/loads.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/stages.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "traffic/pattern.h"

#ifndef ROUTELAB_VERSION_STRING
#define ROUTELAB_VERSION_STRING "unknown"
#endif

namespace routelab {

namespace {

const std::vector<std::string> kMetrics = {"worst", "abb", "afpb", "adb", "pattern", "stages"};

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
  RoutingContext routingContext;
  routingContext.seed = config["seed"].get<std::uint64_t>();
  routingContext.addressesPerTerminal = std::uint32_t{1} << config["lmc"].get<std::uint32_t>();
  const RoutingResult routing = runEngine(config["engine"].get<std::string>(), fabric.network, routingContext);
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
  result["terminals"] = fabric.network.terminalCount();
  result["effective_fabric"] = fabric.spec;
  result["effective_engine"] = routing.engine;
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

}  // namespace

const std::vector<PointKind>& pointKinds() {
  // One row per kind. A `simulate` kind (fabric, engine, pattern, load, seed ...) is one more row.
  static const std::vector<PointKind> kinds = {analyzeKind()};
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
