// routelab/request/route_request.h — the `route` request (request/request.h): a fabric routed
// by an engine (seed, 2^lmc addresses per terminal, switch addresses), checked
// (routing/checks.h) unless no-checks, with the LIDs of a guid2lid file (docs/ROUTING.md).
// Its exports (LFT, SL, FIR/IR files): request/route_export.h, writeRouteExports(outcome's
// fabric, routing, engineName, files).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "core/options.h"
#include "fabric/fabric.h"
#include "io/lid_map.h"
#include "request/request.h"
#include "routing/checks.h"
#include "routing/engine.h"
#include "routing/routing_result.h"

namespace routelab {

/// fabric, engine, lmc, switch-addresses, seed, no-checks, lid-map.
const OptionSchema& routeSchema();

struct RouteRequest {
  Options options;  ///< validated against routeSchema(); what toJson() writes
  std::string fabric;
  std::string engine;
  std::uint32_t lmc = 0;
  bool switchAddresses = false;
  std::uint64_t seed = 1;
  bool noChecks = false;
  std::string lidMap;  ///< OpenSM guid2lid file: the fabric's LIDs (empty: none given)

  static RouteRequest fromOptions(const Options& options);
  static RouteRequest fromValues(const KeyValues& values) { return fromOptions(requestOptions("route", values)); }
  static RouteRequest fromJson(const nlohmann::json& json) { return fromOptions(optionsFromJson("route", json)); }
  nlohmann::json toJson() const { return optionsToJson(options); }
  /// What the engine runs with: 2^lmc addresses per terminal, switch addresses, seed.
  RoutingContext context() const;
};

/// The engine's registry row of an engine spec ("file" for `file:PATH`).
std::string routeEngineRow(const std::string& engine);

/// The LIDs of the request's lid-map file (SpecError when it has none); empty when none given.
LidMap routeLidMap(const RouteRequest& request);

struct RouteOutcome {
  Fabric fabric;  ///< with the LID map's LIDs when one was given
  RoutingResult routing;
  std::string engineName;  ///< the engine's registry row ("file" for an imported dump)
  std::string reference;   ///< the row's paper reference
  std::optional<RoutingCheckReport> checks;
};

/// Loads the fabric (and the LID map: SpecError when it has no LIDs), runs the engine and,
/// unless no-checks, checks the routing.
RouteOutcome runRoute(const RouteRequest& request);

/// The `checks` object of routeResultJson: pairs walked and delivered, failures by kind,
/// minimal and deterministic claims, path lengths, per-stage path counts.
nlohmann::json routeChecksJson(const RoutingCheckReport& checks);

/// The JSON `routelab route --format json` prints (docs/ROUTING.md) without the CLI's
/// `exports`, `lmc_tables` and `lids`.
nlohmann::json routeResultJson(const RouteRequest& request, const RouteOutcome& outcome);

}  // namespace routelab
