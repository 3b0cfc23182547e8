// routelab/request/compare_request.h — the `compare` request (request/request.h): every
// engine (or a list) on one fabric, routed, verified, analysed, checked against what the
// fabric offers and the leaders simulated (report/comparison.h, docs/COMPARE.md). Its rows
// are the options of report/comparison.h's CompareOptions; how the decision is written (the
// HTML report's directory, the terminal format, OpenSM's run under ibsim) is the front end's.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/options.h"
#include "report/comparison.h"
#include "request/request.h"
#include "routing/routing_result.h"

namespace routelab {

/// Separates the engine specs of the row `engines` ("dmodk;lash:layers=4"); the CLI's
/// `--engine` is repeatable and its values are joined with it.
inline constexpr char kEngineListSeparator = ';';

/// fabric, engines, opensm-dir, seed, precision, max-samples, max-shifts, detail-terminals,
/// max-addresses-per-terminal, generic-engine-switches, threads, vls, adaptive-switches,
/// in-order, simulate, simulate-terminals, simulate-leaders, simulate-cycles, simulate-steps.
const OptionSchema& compareSchema();

struct CompareRequest {
  Options options;         ///< validated against compareSchema(); what toJson() writes
  CompareOptions compare;  ///< the typed options compareEngines() runs (no routings, no progress)

  /// The engine list split at kEngineListSeparator (SpecError for an empty spec in it, or a
  /// ',' before a spec's ':', which can only be a list written with the wrong separator);
  /// `simulate` absent: the leaders are simulated on fabrics up to simulate-terminals, true:
  /// at any size, false: never.
  static CompareRequest fromOptions(const Options& options);
  static CompareRequest fromValues(const KeyValues& values) { return fromOptions(requestOptions("compare", values)); }
  static CompareRequest fromJson(const nlohmann::json& json) { return fromOptions(optionsFromJson("compare", json)); }
  nlohmann::json toJson() const { return optionsToJson(options); }
};

/// Routings built by the caller (the Python package's), ranked beside the engines' under
/// their name (CompareOptions::routings).
using CallerRoutings = std::vector<std::pair<std::string, std::shared_ptr<const RoutingResult>>>;

/// Runs the comparison (compareEngines) of the request, with `routings` ranked too and
/// `progress` called before each long step. The caller sets commandLine and version of the
/// result before writing it.
Comparison runCompare(const CompareRequest& request, const CallerRoutings& routings = {},
                      const std::function<void(const std::string&)>& progress = {});

/// The decision as `routelab compare --format json` prints it and compare.json holds
/// (docs/COMPARE.md "Output"): report/comparison.h's comparisonJson.
std::string compareResultJson(const Comparison& comparison);

}  // namespace routelab
