// routelab/request/verify_request.h — the `verify` request (request/request.h): a fabric and
// a routing (an engine, or an imported LFT dump with its SL table and LIDs), checked for
// connectivity, loops and deadlock freedom (verify/verify.h, docs/VERIFY.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/options.h"
#include "fabric/fabric.h"
#include "request/request.h"
#include "routing/routing_result.h"
#include "verify/verify.h"

namespace routelab {

/// fabric, engine, sl, lid-map, switch-traffic, seed, lmc, examples.
const OptionSchema& verifySchema();

struct VerifyRequest {
  Options options;  ///< validated against verifySchema(); what toJson() writes
  std::string fabric;
  std::string engine;
  std::string slFile;  ///< per-pair layers (OpenSM pathsl); empty: the engine's layers
  std::string lidMap;  ///< OpenSM guid2lid file: the LIDs the SL file names
  bool switchTraffic = false;
  std::uint64_t seed = 1;
  std::uint32_t lmc = 0;
  std::size_t examples = 10;

  static VerifyRequest fromOptions(const Options& options);
  static VerifyRequest fromValues(const KeyValues& values) { return fromOptions(requestOptions("verify", values)); }
  static VerifyRequest fromJson(const nlohmann::json& json) { return fromOptions(optionsFromJson("verify", json)); }
  nlohmann::json toJson() const { return optionsToJson(options); }
};

struct VerifyOutcome {
  Fabric fabric;
  RoutingResult routing;
  VerifyResult result;
};

/// Loads the fabric (and --lid-map's LIDs: SpecError when the file has none), runs the
/// engine (seed, 2^lmc addresses, switch routes when switch-traffic), gives the routing the
/// fabric's LIDs when an SL file or LID map names them (an imported dump keeps its own),
/// applies the SL table, and verifies.
VerifyOutcome runVerify(const VerifyRequest& request);

/// The verdict as docs/VERIFY.md numbers it (and `routelab verify` exits): 0 passed, 4
/// connected and loop-free but not deadlock-free, 5 not connected or not loop-free.
int verifyVerdictCode(const VerifyResult& result);

/// The JSON `routelab verify --format json` prints (docs/VERIFY.md).
nlohmann::json verifyResultJson(const VerifyRequest& request, const VerifyOutcome& outcome);

}  // namespace routelab
