// routelab/request/analyze_request.h — the `analyze` request (request/request.h): which
// congestion metric of docs/ANALYSIS.md to compute for a fabric and routing, and the one
// dispatch from the metric to the analysis/ function (used by `routelab analyze`, the
// sweeps' `analyze` points and Python).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "analysis/loads.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/stages.h"
#include "core/options.h"
#include "fabric/fabric.h"
#include "request/request.h"
#include "routing/routing_result.h"
#include "traffic/pattern.h"

namespace routelab {

/// Nienaber's WORST (Eq. 1) and sampled ABB/AFPB/ADB (§II, §IV), one pattern's link loads,
/// Gómez's per-stage path counts (Fig. 3).
enum class AnalyzeMetric { Worst, Abb, Afpb, Adb, Pattern, Stages };
const char* analyzeMetricName(AnalyzeMetric metric);
bool isSampledMetric(AnalyzeMetric metric);

const OptionSchema& analyzeSchema();

struct AnalyzeRequest {
  Options options;  ///< validated against analyzeSchema(); what toJson() writes
  std::string fabric;
  std::string engine;
  AnalyzeMetric metric = AnalyzeMetric::Worst;
  std::string pattern;  ///< metric pattern only
  std::uint64_t seed = 1;
  std::uint32_t lmc = 0;
  int threads = 0;
  LoadModel loadModel = LoadModel::EvenSplit;
  SamplingOptions sampling;  ///< seed, precision, maxSamples, threads of the sampled metrics
  BestSplitOptions bestSplit;
  /// Samples split over processes (execution only: not an option, never changes a result).
  SampleSplit split;

  /// Throws SpecError when `pattern` is given to another metric than pattern, or metric
  /// pattern has none.
  static AnalyzeRequest fromOptions(const Options& options);
  static AnalyzeRequest fromValues(const KeyValues& values) { return fromOptions(requestOptions("analyze", values)); }
  static AnalyzeRequest fromJson(const nlohmann::json& json) { return fromOptions(optionsFromJson("analyze", json)); }
  nlohmann::json toJson() const { return optionsToJson(options); }
};

struct AnalyzeOutcome {
  Fabric fabric;
  RoutingResult routing;
  bool singlePath = true;
  double value = 0;  ///< the metric's headline number ("value" in every output)
  std::optional<SplitWorstCase> worst;
  std::optional<SampledBandwidth> sampled;
  std::optional<TrafficPattern> pattern;
  std::optional<LinkLoads> loads;
  std::optional<StagePathCounts> stages;
};

/// Loads the fabric, runs the engine (seed, 2^lmc addresses) and computes the metric.
AnalyzeOutcome runAnalyze(const AnalyzeRequest& request);
/// The same on a given fabric and routing.
AnalyzeOutcome runAnalyze(const AnalyzeRequest& request, Fabric fabric, RoutingResult routing);

/// The JSON `routelab analyze --format json` prints (docs/ANALYSIS.md): the configuration
/// (metric, spec, engine, seed, threads, terminals, lmc, single_path, load_model) and the
/// metric's fields.
nlohmann::json analyzeResultJson(const AnalyzeRequest& request, const AnalyzeOutcome& outcome);

}  // namespace routelab
