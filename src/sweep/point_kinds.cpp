// routelab/sweep/point_kinds.cpp — the `analyze` kind (what `routelab analyze` computes) and
// the `simulate` kind (one `routelab simulate` run at one offered load).
#include "sweep/point_kinds.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "request/analyze_request.h"
#include "request/request.h"
#include "request/simulate_request.h"
#include "sim/sim_json.h"

#ifndef ROUTELAB_VERSION_STRING
#define ROUTELAB_VERSION_STRING "unknown"
#endif

namespace routelab {

namespace {

/// The sweep keys of `operation`'s request (request/request.h) in axis order: each key is
/// the row's key with '-' replaced by '_', its type, default and help are the row's, and its
/// range is checked by the request (one message for every front end). Flags are written
/// 0 or 1 in a sweep file.
std::vector<PointKey> keysOf(const std::string& operation, const std::vector<std::string>& rowKeys) {
  const OptionSchema& schema = requestSchema(operation);
  std::vector<PointKey> keys;
  for (const std::string& name : rowKeys) {
    const auto row = std::find_if(schema.begin(), schema.end(), [&](const OptionSpec& r) { return r.key == name; });
    if (row == schema.end()) throw SpecError(fmt::format("{}: no request row '{}'", operation, name));
    PointKey key;
    key.name = snakeKey(row->key);
    key.help = row->help + (row->bounded() ? ", in " + row->rangeText() : "");
    switch (row->type) {
      case OptionType::Integer: key.type = KeyType::Integer; break;
      case OptionType::Real: key.type = KeyType::Float; break;
      case OptionType::Flag: key.type = KeyType::Integer; break;
      case OptionType::String:
      case OptionType::IntegerList: key.type = KeyType::String; break;
    }
    if (row->required) {
      key.defaultValue = nullptr;
    } else if (row->type == OptionType::Flag) {
      key.defaultValue = row->defaultValue == "true" ? 1 : 0;
    } else if (row->defaultValue.empty()) {
      key.defaultValue = "";
    } else {
      key.defaultValue = optionValueJson(*row, row->defaultValue);
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

/// The point's values as the request's key/value strings (keys it does not give take the
/// row's default; an empty string is an absent optional value).
KeyValues valuesOf(const std::string& operation, const nlohmann::json& config) {
  KeyValues values;
  for (const OptionSpec& row : requestSchema(operation)) {
    const auto it = config.find(snakeKey(row.key));
    if (it == config.end() || (it->is_string() && it->get<std::string>().empty())) continue;
    values.emplace_back(row.key, optionValueText(row, *it, operation));
  }
  return values;
}

/// What every point records of the fabric and routing it really used.
void addEffectiveConfiguration(nlohmann::json& result, const Fabric& fabric, const RoutingResult& routing) {
  result["terminals"] = fabric.network.terminalCount();
  result["effective_fabric"] = fabric.spec;
  result["effective_engine"] = routing.engine;
}

void normalizeAnalyze(nlohmann::json& config) {
  // A grid may cross metrics with patterns: the pattern belongs to metric pattern only.
  if (config.value("metric", "") != "pattern") config.erase("pattern");
  const AnalyzeRequest request = AnalyzeRequest::fromValues(valuesOf("analyze", config));
  config["load_model"] = loadModelName(request.loadModel);
  if (request.metric == AnalyzeMetric::Pattern && request.pattern.empty()) {
    throw SpecError("metric 'pattern' needs a pattern (e.g. pattern = \"shift:s=1\")");
  }
  if (!isSampledMetric(request.metric)) {
    config.erase("precision");
    config.erase("max_samples");
  }
  if (request.metric == AnalyzeMetric::Stages) config.erase("load_model");
  if (config.value("load_model", "") != "best-split") {
    config.erase("split_tolerance");
    config.erase("split_iterations");
  }
}

/// The result keys of a point (a subset of `routelab analyze --format json`, plus the
/// effective configuration).
nlohmann::json evaluateAnalyze(const nlohmann::json& config, const EvaluationContext& context) {
  AnalyzeRequest request = AnalyzeRequest::fromValues(valuesOf("analyze", config));
  request.threads = context.threads;
  request.sampling.threads = context.threads;
  request.split = context.split;
  const AnalyzeOutcome outcome = runAnalyze(request);
  const nlohmann::json full = analyzeResultJson(request, outcome);
  std::vector<std::string> keys;
  switch (request.metric) {
    case AnalyzeMetric::Worst: keys = {"value", "lower_bound", "exact"}; break;
    case AnalyzeMetric::Abb:
    case AnalyzeMetric::Afpb:
    case AnalyzeMetric::Adb:
      keys = {"value", "ci99_halfwidth", "samples", "converged", "mean_max_load", "exact", "bandwidth_upper_bound"};
      break;
    case AnalyzeMetric::Pattern: keys = {"value", "lower_bound", "exact", "pairs", "bandwidth"}; break;
    case AnalyzeMetric::Stages: keys = {"value", "balanced"}; break;
  }
  nlohmann::json result = nlohmann::json::object();
  for (const std::string& key : keys) result[key] = full.at(key);
  addEffectiveConfiguration(result, outcome.fabric, outcome.routing);
  result["single_path"] = outcome.singlePath;
  return result;
}

PointKind analyzeKind() {
  PointKind kind;
  kind.name = "analyze";
  kind.summary = "static congestion analysis, as `routelab analyze` (docs/ANALYSIS.md)";
  kind.keys = keysOf("analyze", analyzePointKeys());
  kind.normalize = normalizeAnalyze;
  kind.evaluate = evaluateAnalyze;
  return kind;
}

// ---- simulate ----

void normalizeSimulate(nlohmann::json& config) {
  const SimulateRequest request = SimulateRequest::fromValues(valuesOf("simulate", config));
  if (!request.config.inOrder) config.erase("reorder_buffer");
  // Added after the first results files: absent at its default, so that their points keep
  // their identity.
  if (config.value("arbitration", "") == "round-robin") config.erase("arbitration");
}

nlohmann::json evaluateSimulate(const nlohmann::json& config, const EvaluationContext& context) {
  SimulateRequest request = SimulateRequest::fromValues(valuesOf("simulate", config));
  // The point's threads split its switches (the result does not depend on it); in-order
  // delivery runs on one thread (sim/model.h).
  request.config.threads = request.config.inOrder ? 1 : static_cast<std::uint32_t>(std::max(1, context.threads));
  const SimulateOutcome outcome = runSimulate(request);
  const SimResult& sim = outcome.results.front();
  nlohmann::json result = simResultJson(sim);
  result["value"] = sim.latencyAvg;
  result["vcs_used"] = sim.vcs;
  addEffectiveConfiguration(result, outcome.fabric, outcome.routing);
  return result;
}

PointKind simulateKind() {
  PointKind kind;
  kind.name = "simulate";
  kind.summary = "one flit-level simulation at one offered load, as `routelab simulate` (docs/SIMULATION.md)";
  kind.keys = keysOf("simulate", simulatePointKeys());
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

const std::vector<std::string>& analyzePointKeys() {
  // Every row of analyzeSchema() but threads (EvaluationContext), in axis order.
  static const std::vector<std::string> keys = {
      "fabric",    "engine",      "metric",          "pattern",         "seed", "lmc", "load-model",
      "precision", "max-samples", "split-tolerance", "split-iterations"};
  return keys;
}

const std::vector<std::string>& simulatePointKeys() {
  // Every row of simulateSchema() but simulateRunModeKeys(), in axis order.
  static const std::vector<std::string> keys = {
      "fabric",          "engine",    "traffic",        "load",           "seed",          "lmc",      "selection",
      "paths",           "injection", "packet-flits",   "buffer-packets", "routing-delay", "fly-time", "vcs",
      "message-packets", "in-order",  "reorder-buffer", "warmup",         "cycles",        "watchdog", "arbitration"};
  return keys;
}

bool splitsSamples(const nlohmann::json& config) {
  const std::string metric = config.value("metric", "");
  return config.value("kind", "") == "analyze" && (metric == "abb" || metric == "afpb" || metric == "adb");
}

nlohmann::json evaluatePoint(const nlohmann::json& config, const EvaluationContext& context) {
  return findPointKind(config.at("kind").get<std::string>()).evaluate(config, context);
}

std::string routelabVersion() { return ROUTELAB_VERSION_STRING; }

}  // namespace routelab
