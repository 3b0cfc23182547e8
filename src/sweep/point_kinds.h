// routelab/sweep/point_kinds.h — the kinds of sweep points: one row per kind.
//
// A sweep point is a JSON object, its *configuration*: "kind" plus one value per key of
// its kind (defaults filled in, keys the kind does not use for this point removed). Its
// canonical text (nlohmann::json::dump(): sorted keys, no spaces) is the point's identity
// in the results file. A kind row says which keys a grid of that kind may give (each a
// scalar or a list = an axis of the grid), their types and defaults, how to drop the keys
// a point does not use (normalize), and how to compute the point (evaluate).
//
// Adding a kind (analyze, simulate, verify, schedule today) is one more row in pointKinds():
// the sweep file reader, the runner, the results file, the exports and MPI are generic.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "analysis/sampling.h"
#include "analysis/split.h"
#include "sim/model.h"

namespace routelab {

enum class KeyType { String, Integer, Float };

/// One key of a point kind. In a sweep file it is written as `name = value` or, as an axis,
/// `name = [values]` or `<name>s = [values]` (e.g. `engines = ["dmodk", "sssp"]`).
struct PointKey {
  std::string name;
  KeyType type = KeyType::String;
  nlohmann::json defaultValue;  ///< null: the key is required
  std::string help;
};

/// What evaluate() may use besides the configuration; nothing here changes a result.
struct EvaluationContext {
  int threads = 1;    ///< threads inside the point (results do not depend on it)
  SampleSplit split;  ///< samples of a sampled metric split over processes (nor on this)
};

struct PointKind {
  std::string name;
  std::string summary;
  std::vector<PointKey> keys;  ///< in axis order (the first key varies slowest)
  /// Removes the keys this point does not use and checks combinations; throws SpecError
  /// naming the key (the sweep file reader adds file:line).
  std::function<void(nlohmann::json& config)> normalize;
  /// The result of one point: a JSON object with at least "value" (a number or null).
  /// Deterministic: the same configuration gives the same JSON at any thread count.
  /// Throws routelab::Error for a point that cannot be computed (recorded as failed).
  std::function<nlohmann::json(const nlohmann::json& config, const EvaluationContext& context)> evaluate;
  /// Standard plots (sweep/report.h): the configuration key on the x axis (one line per
  /// engine), and the result keys drawn on the y axis, each with its axis label.
  std::string plotAxis = "fabric";
  /// The configuration key whose values are the plots' series (one line each).
  std::string seriesKey = "engine";
  struct Measure {
    std::string key;    ///< result key ("value", "accepted", ...)
    std::string label;  ///< y axis label; empty = by the point's metric (analyze)
  };
  std::vector<Measure> plotMeasures = {{"value", ""}};
};

/// Every kind, in the order `routelab sweep --help-kinds` lists them.
const std::vector<PointKind>& pointKinds();

/// The kind called `name`; SpecError listing the known kinds otherwise.
const PointKind& findPointKind(const std::string& name);

/// The request rows (request/request.h, CLI spelling) a sweep point of each kind takes, in
/// axis order; a sweep key is the row's key with '-' replaced by '_'.
const std::vector<std::string>& analyzePointKeys();
const std::vector<std::string>& simulatePointKeys();
const std::vector<std::string>& verifyPointKeys();
const std::vector<std::string>& schedulePointKeys();

/// Whether the point samples (analyze abb/afpb/adb): EvaluationContext::split applies.
bool splitsSamples(const nlohmann::json& config);

/// Evaluate one configuration with its kind (config["kind"]).
nlohmann::json evaluatePoint(const nlohmann::json& config, const EvaluationContext& context);

/// The simulator's configuration of a normalized `simulate` configuration (its keys as in
/// the sweep file; the Python package's simulate() keywords are the same keys).
SimConfig simConfigOf(const nlohmann::json& config);
/// The best-split solver options of a normalized `analyze` configuration.
BestSplitOptions bestSplitOf(const nlohmann::json& config);

/// The version of routelab recorded in every point's configuration ("0.1.0").
std::string routelabVersion();

}  // namespace routelab
