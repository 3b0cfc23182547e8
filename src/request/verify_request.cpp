#include "request/verify_request.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "engines/registry.h"
#include "io/lid_map.h"
#include "io/sl_table.h"

namespace routelab {

const OptionSchema& verifySchema() {
  static const OptionSchema rows = {
      {"fabric", OptionType::String, "", "fabric spec, e.g. random:switches=16 or file:ibnetdiscover.txt", true},
      {"engine", OptionType::String, "", "routing engine spec, e.g. lash or file:lfts.dump", true},
      {"sl",
       OptionType::String,
       "",
       "per-pair layers: lines 'slid dlid sl' (OpenSM pathsl / dfsssp-vl-table); SL = layer",
       false,
       "",
       "",
       false,
       {},
       "docs/FORMATS.md"},
      {"lid-map", OptionType::String, "", "OpenSM guid2lid file: the fabric's LIDs, which the SL file refers to"},
      {"switch-traffic", OptionType::Flag, "false", "also verify traffic from and to switch addresses (management)"},
      {"seed", OptionType::Integer, "1", "seed of engines with random choices", false, "0", "9223372036854775807"},
      {"lmc", OptionType::Integer, "0", "LMC: 2^lmc addresses per terminal", false, "0", "7"},
      {"examples", OptionType::Integer, "10", "failure examples shown per kind", false, "0", "1000000"},
  };
  return rows;
}

VerifyRequest VerifyRequest::fromOptions(const Options& o) {
  VerifyRequest r;
  r.options = o;
  r.fabric = o.string("fabric");
  r.engine = o.string("engine");
  if (o.has("sl")) r.slFile = o.string("sl");
  if (o.has("lid-map")) r.lidMap = o.string("lid-map");
  r.switchTraffic = o.flag("switch-traffic");
  r.seed = static_cast<std::uint64_t>(o.integer("seed"));
  r.lmc = static_cast<std::uint32_t>(o.integer("lmc"));
  r.examples = static_cast<std::size_t>(o.integer("examples"));
  return r;
}

VerifyOutcome runVerify(const VerifyRequest& request) {
  VerifyOutcome out;
  out.fabric = loadFabric(request.fabric);
  if (!request.lidMap.empty()) {
    out.fabric.lids = readGuid2Lid(request.lidMap);
    if (out.fabric.lids.empty()) throw SpecError(fmt::format("--lid-map {}: no LIDs in the file", request.lidMap));
  }
  const Network& network = out.fabric.network;
  RoutingContext context;
  context.addressesPerTerminal = 1U << request.lmc;
  context.routeSwitches = request.switchTraffic;
  context.seed = request.seed;
  out.routing = runEngine(request.engine, network, context);
  // An SL file names LIDs: the fabric's own (docs/FORMATS.md "Fabric LIDs"); an imported LFT
  // dump keeps the LIDs it was written with. Without an SL file (or a LID map) the LIDs only
  // label failures, and any lmc is accepted.
  const bool namesLids = !request.slFile.empty() || !request.lidMap.empty();
  if (namesLids && !out.fabric.lids.empty() && request.engine.rfind("file:", 0) != 0) {
    out.routing = withFabricLids(network, std::move(out.routing), out.fabric.lids);
  }
  if (!request.slFile.empty()) {
    out.routing = applySlTable(network, std::move(out.routing), readSlTable(request.slFile), request.switchTraffic);
  }
  VerifyOptions options;
  options.switchTraffic = request.switchTraffic;
  options.maxExamples = request.examples;
  out.result = verifyRouting(network, out.routing, options);
  return out;
}

int verifyVerdictCode(const VerifyResult& r) {
  if (!r.connected || !r.loopFree) return 5;
  if (!r.deadlockFree) return 4;
  return 0;
}

namespace {
nlohmann::json failureJson(const VerifyFailure& f) {
  auto lid = [](std::uint32_t value) { return value == 0 ? nlohmann::json(nullptr) : nlohmann::json(value); };
  return {{"source", f.source},
          {"source_lid", lid(f.sourceLid)},
          {"destination", f.destination},
          {"destination_lid", lid(f.destinationLid)},
          {"layer", f.layer},
          {"status", f.status},
          {"stopped_at", f.where.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.where)}};
}

nlohmann::json failuresJson(const std::vector<VerifyFailure>& failures) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : failures) out.push_back(failureJson(f));
  return out;
}
}  // namespace

nlohmann::json verifyResultJson(const VerifyRequest& request, const VerifyOutcome& outcome) {
  const VerifyResult& r = outcome.result;
  nlohmann::json j;
  j["spec"] = outcome.fabric.spec;
  j["engine"] = r.engine;
  j["sl_file"] = request.slFile.empty() ? nlohmann::json(nullptr) : nlohmann::json(request.slFile);
  j["switch_traffic"] = r.switchTraffic;
  j["seed"] = request.seed;
  j["lmc"] = request.lmc;
  j["connected"] = r.connected;
  j["loop_free"] = r.loopFree;
  j["deadlock_free"] = r.deadlockFree;
  j["passed"] = r.passed();
  j["exit_code"] = verifyVerdictCode(r);
  j["layers"] = r.layers;
  j["layers_used"] = r.layersUsed;
  j["highest_layer"] = r.highestLayer >= 0 ? nlohmann::json(r.highestLayer) : nlohmann::json(nullptr);
  j["method"] = r.method;
  j["escape_layer"] = r.escapeLayer >= 0 ? nlohmann::json(r.escapeLayer) : nlohmann::json(nullptr);
  j["dependencies"] = r.dependencies;
  j["cyclic_layers"] = r.cyclicLayers;
  j["cycle_layer"] = r.cycleLayer ? nlohmann::json(*r.cycleLayer) : nlohmann::json(nullptr);
  j["cycle"] = r.cycleLayer ? nlohmann::json(r.cycleChannels) : nlohmann::json(nullptr);
  j["counts"] = {{"sources", r.sources},
                 {"destinations", r.destinations},
                 {"routes", r.routes},
                 {"delivered", r.delivered},
                 {"no_route", r.noRoute},
                 {"loops", r.loops},
                 {"dead_ports", r.deadPorts},
                 {"no_address", r.noAddress},
                 {"unrouted_switch_pairs", r.unroutedSwitchPairs},
                 {"escape_failures", r.escapeFailures}};
  j["failures"] = failuresJson(r.failures);
  j["unrouted_switch_pair_examples"] = failuresJson(r.unroutedSwitchExamples);
  j["escape_failure_examples"] = failuresJson(r.escapeFailureExamples);
  return j;
}

}  // namespace routelab
