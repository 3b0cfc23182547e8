// routelab/sweep/point_kinds.cpp — the `analyze` kind (what `routelab analyze` computes), the
// `simulate` kind (one `routelab simulate` run at one offered load), the `verify` kind (one
// `routelab verify` verdict) and the `schedule` kind (one `routelab schedule` experiment).
#include "sweep/point_kinds.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "request/analyze_request.h"
#include "request/request.h"
#include "request/schedule_request.h"
#include "request/simulate_request.h"
#include "request/verify_request.h"
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

/// The keys of `full` (a command's JSON result) that a point records.
nlohmann::json pick(const nlohmann::json& full, std::initializer_list<const char*> keys) {
  nlohmann::json result = nlohmann::json::object();
  for (const char* key : keys) result[key] = full.at(key);
  return result;
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
  return {.name = "analyze",
          .summary = "static congestion analysis, as `routelab analyze` (docs/ANALYSIS.md)",
          .keys = keysOf("analyze", analyzePointKeys()),
          .normalize = normalizeAnalyze,
          .evaluate = evaluateAnalyze};
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
  return {.name = "simulate",
          .summary = "one flit-level simulation at one offered load, as `routelab simulate` (docs/SIMULATION.md)",
          .keys = keysOf("simulate", simulatePointKeys()),
          .normalize = normalizeSimulate,
          .evaluate = evaluateSimulate,
          .plotAxis = "load",
          .plotMeasures = {{"value", "mean packet latency (cycles, injection to delivery)"},
                           {"accepted", "accepted load (flits per terminal per cycle)"}}};
}

// ---- verify ----

void normalizeVerify(nlohmann::json& config) {
  // An SL table and a LID map are files a point may name; absent, they are no part of it.
  for (const char* key : {"sl", "lid_map"}) {
    if (config.value(key, "").empty()) config.erase(key);
  }
  (void)VerifyRequest::fromValues(valuesOf("verify", config));
}

/// The result keys of a point: the verdict and the layers of `routelab verify --format
/// json` (docs/VERIFY.md); "value" is the number of virtual layers the routing uses (Lysne
/// et al. 2006 §6: layers needed for deadlock freedom).
nlohmann::json evaluateVerify(const nlohmann::json& config, const EvaluationContext&) {
  const VerifyRequest request = VerifyRequest::fromValues(valuesOf("verify", config));
  const VerifyOutcome outcome = runVerify(request);
  const nlohmann::json full = verifyResultJson(request, outcome);
  nlohmann::json result =
      pick(full, {"passed", "connected", "loop_free", "deadlock_free", "exit_code", "layers", "layers_used"});
  result["value"] = full.at("layers_used");
  addEffectiveConfiguration(result, outcome.fabric, outcome.routing);
  return result;
}

PointKind verifyKind() {
  return {.name = "verify",
          .summary = "connectivity, loops and deadlock freedom, as `routelab verify` (docs/VERIFY.md)",
          .keys = keysOf("verify", verifyPointKeys()),
          .normalize = normalizeVerify,
          .evaluate = evaluateVerify,
          .plotMeasures = {{"value", "virtual layers used"}}};
}

// ---- schedule ----

/// The result keys of a point: the schedulability figures of `routelab schedule --format
/// json` (docs/SCHEDULING.md); "value" is the mean schedulability ratio (Ding et al. SC'06 §5).
nlohmann::json evaluateSchedule(const nlohmann::json& config, const EvaluationContext&) {
  const ScheduleRequest request = ScheduleRequest::fromValues(valuesOf("schedule", config));
  const ScheduleOutcome outcome = runSchedule(request);
  const nlohmann::json full = scheduleResultJson(request, outcome);
  nlohmann::json result =
      pick(full, {"ratio_mean", "ratio_min", "ratio_max", "ratio_stddev", "requests", "granted_total"});
  for (const auto& [failure, count] : full.at("failures").items()) result["failures_" + failure] = count;
  if (request.rounds) result["rounds_mean"] = full.at("rounds").at("mean");
  result["value"] = full.at("ratio_mean");
  result["terminals"] = full.at("terminals");
  result["effective_fabric"] = full.at("spec");
  result["effective_scheduler"] = full.at("scheduler");
  result["effective_pattern"] = full.at("pattern");
  return result;
}

PointKind scheduleKind() {
  return {.name = "schedule",
          .summary = "circuit schedulability of a fat tree, as `routelab schedule` (docs/SCHEDULING.md)",
          .keys = keysOf("schedule", schedulePointKeys()),
          .normalize = [](nlohmann::json& config) { (void)ScheduleRequest::fromValues(valuesOf("schedule", config)); },
          .evaluate = evaluateSchedule,
          .seriesKey = "scheduler",
          .plotMeasures = {{"value", "mean schedulability ratio (granted / requested)"}}};
}

}  // namespace

const std::vector<PointKind>& pointKinds() {
  // One row per kind.
  static const std::vector<PointKind> kinds = {analyzeKind(), simulateKind(), verifyKind(), scheduleKind()};
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

const std::vector<std::string>& verifyPointKeys() {
  // Every row of verifySchema() but examples (how many failures the text lists), in axis order.
  static const std::vector<std::string> keys = {"fabric", "engine", "sl", "lid-map", "switch-traffic", "seed", "lmc"};
  return keys;
}

const std::vector<std::string>& schedulePointKeys() {
  // Every row of scheduleSchema(), in axis order.
  static const std::vector<std::string> keys = {"fabric", "scheduler",       "pattern", "permutations",
                                                "seed",   "release-on-fail", "rounds"};
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
