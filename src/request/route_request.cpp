#include "request/route_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "core/errors.h"
#include "engines/registry.h"
#include "io/lid_map.h"

namespace routelab {

const OptionSchema& routeSchema() {
  static const OptionSchema rows = {
      {"fabric", OptionType::String, "", "fabric spec, e.g. kary-ntree:k=4,n=3 (see README)", true},
      {"engine", OptionType::String, "", "routing engine spec (routelab list), or file:PATH", true},
      {"lmc", OptionType::Integer, "0", "LMC: 2^lmc addresses (paths) per terminal", false, "0", "7"},
      {"switch-addresses", OptionType::Flag, "false",
       "give every switch an address and route management traffic to it"},
      {"seed", OptionType::Integer, "1", "seed for engines with random choices", false, "0", "9223372036854775807"},
      {"no-checks", OptionType::Flag, "false", "skip the routing checks (large fabrics)"},
      {"lid-map", OptionType::String, "",
       "OpenSM guid2lid file: export with these LIDs (an ibnetdiscover fabric brings its own)"},
  };
  return rows;
}

RouteRequest RouteRequest::fromOptions(const Options& o) {
  RouteRequest r;
  r.options = o;
  r.fabric = o.string("fabric");
  r.engine = o.string("engine");
  r.lmc = static_cast<std::uint32_t>(o.integer("lmc"));
  r.switchAddresses = o.flag("switch-addresses");
  r.seed = static_cast<std::uint64_t>(o.integer("seed"));
  r.noChecks = o.flag("no-checks");
  if (o.has("lid-map")) r.lidMap = o.string("lid-map");
  return r;
}

RoutingContext RouteRequest::context() const {
  RoutingContext context;
  context.addressesPerTerminal = std::uint32_t{1} << lmc;
  context.routeSwitches = switchAddresses;
  context.seed = seed;
  return context;
}

std::string routeEngineRow(const std::string& engine) {
  return parseComponent(engine.rfind("file:", 0) == 0 ? "file" : engine).name;
}

LidMap routeLidMap(const RouteRequest& request) {
  if (request.lidMap.empty()) return {};
  LidMap lids = readGuid2Lid(request.lidMap);
  if (lids.empty()) throw SpecError(fmt::format("--lid-map {}: no LIDs in the file", request.lidMap));
  return lids;
}

RouteOutcome runRoute(const RouteRequest& request) {
  RouteOutcome out;
  out.fabric = loadFabric(request.fabric);
  if (!request.lidMap.empty()) out.fabric.lids = routeLidMap(request);
  out.routing = runEngine(request.engine, out.fabric.network, request.context());
  out.engineName = routeEngineRow(request.engine);
  out.reference = engineRegistry().find(out.engineName).reference;
  if (!request.noChecks) out.checks = checkRouting(out.fabric.network, out.routing);
  return out;
}

namespace {
/// An engine statistic as JSON: a number when the whole text is one ("4", "2.5"), else the text.
nlohmann::json statValue(const std::string& text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  return parsed.is_number() ? parsed : nlohmann::json(text);
}

}  // namespace

nlohmann::json routeChecksJson(const RoutingCheckReport& c) {
  nlohmann::json stages = nlohmann::json::array();
  for (const auto& s : c.stages) {
    stages.push_back({{"level", s.fromLevel()},
                      {"direction", s.ascending ? "up" : "down"},
                      {"channels", s.channels},
                      {"min_paths", s.minPaths},
                      {"max_paths", s.maxPaths},
                      {"mean_paths", s.meanPaths}});
  }
  return {{"passed", c.passed()},
          {"pairs", c.pairs},
          {"delivered", c.delivered},
          {"terminal_pairs", c.terminalPairs},
          {"terminal_pairs_delivered", c.terminalPairsDelivered},
          {"management_pairs", c.managementPairs},
          {"management_pairs_delivered", c.managementPairsDelivered},
          {"no_route", c.noRoute},
          {"loops", c.loops},
          {"dead_ports", c.deadPorts},
          {"no_address", c.noAddress},
          {"non_minimal_paths", c.nonMinimalPaths},
          {"non_minimal_candidates", c.nonMinimalCandidates},
          {"bad_candidates", c.badCandidates},
          {"candidate_cycles", c.candidateCycles},
          {"incomplete_choices", c.incompleteChoices},
          {"entries", c.entries},
          {"multi_candidate_entries", c.multiCandidateEntries},
          {"deterministic_ok", c.deterministicOk},
          {"minimal_ok", c.minimalOk},
          {"max_hops", c.maxHops},
          {"mean_hops", c.meanHops},
          {"stages", stages},
          {"failures", c.failures}};
}

nlohmann::json routeResultJson(const RouteRequest& request, const RouteOutcome& outcome) {
  const Fabric& fabric = outcome.fabric;
  const RoutingResult& r = outcome.routing;
  const std::string& reference = outcome.reference;
  const RoutingCheckReport* checks = outcome.checks ? &*outcome.checks : nullptr;
  nlohmann::json j;
  j["spec"] = fabric.spec;
  j["engine"] = r.engine;
  j["reference"] = reference;
  j["seed"] = request.seed;
  j["lmc"] = request.lmc;
  j["switch_addresses"] = request.switchAddresses;
  j["deterministic"] = r.deterministic;
  j["minimal_claimed"] = r.minimal;
  const AddressMap& a = r.addresses;
  std::size_t switchAddresses = 0;
  std::uint32_t minLid = UINT32_MAX, maxLid = 0;
  for (NodeId n : a.owners()) switchAddresses += fabric.network.isSwitch(n) ? 1 : 0;
  for (Address x = 0; x < a.count(); ++x) {
    minLid = std::min(minLid, a.lid(x));
    maxLid = std::max(maxLid, a.lid(x));
  }
  j["addresses"] = {{"count", a.count()},
                    {"per_terminal", a.perTerminal()},
                    {"source_classes", r.sourceClasses},
                    {"switch_addresses", switchAddresses},
                    {"min_lid", a.count() ? minLid : 0},
                    {"max_lid", maxLid}};
  std::size_t memory = 0;
  for (const auto& t : r.tables) memory += t.memoryBytes();
  j["tables"] = {{"count", r.tables.size()},
                 {"switches", fabric.network.switchCount()},
                 {"memory_bytes", memory},
                 {"layers", r.layerCount()}};
  nlohmann::json stats = nlohmann::json::object();
  for (const auto& [key, value] : r.stats) stats[key] = statValue(value);
  j["stats"] = stats;
  j["checks"] = checks != nullptr ? routeChecksJson(*checks) : nlohmann::json(nullptr);
  return j;
}

}  // namespace routelab
