// routelab route SPEC --engine NAME — route a fabric, check the routing, print its summary,
// export LFTs (OpenSM dump), SL files and interval-routing registers (docs/ROUTING.md) through
// the library's one export dispatch (request/route_export.h).
//
// Exit codes: 0 the routing passes the checks (routing/checks.h); 5 it does not (undelivered
// terminal pairs, loops, bad candidates, or a failed minimal/deterministic claim); 1 bad
// input; 2 usage.
#include <fmt/format.h>

#include "cli.h"
#include "cli_schema.h"
#include "core/errors.h"
#include "fabric/fabric.h"
#include "io/output.h"
#include "request/route_export.h"
#include "request/route_request.h"
#include "routing/checks.h"

namespace routelab::cli {

namespace {

constexpr int kExitChecksFailed = 5;

// The request's flags are generated from routeSchema() (cli_schema.h); the others choose
// what is written besides the summary. lmc, switchAddresses and seed: the request's.
struct RouteArgs {
  RequestFlags flags{"route", {}};
  std::uint32_t lmc = 0;
  bool switchAddresses = false;
  std::uint64_t seed = 1;
  std::vector<std::string> exports;  // pairs: kind, path
  OutputFormat format = OutputFormat::Text;
};

std::string stageName(const StageCount& s) {
  return s.ascending ? fmt::format("level {} up", s.fromLevel()) : fmt::format("level {} down", s.fromLevel());
}

/// The library's summary (routeResultJson) with the CLI's exports.
nlohmann::json summaryJson(const RouteRequest& request, const RouteOutcome& outcome,
                           const std::vector<ExportFile>& exported) {
  nlohmann::json j = routeResultJson(request, outcome);
  nlohmann::json exports = nlohmann::json::array();
  for (const ExportFile& e : exported) exports.push_back({{"kind", e.kind}, {"path", e.path}});
  j["exports"] = exports;
  return j;
}

void printText(const RouteArgs& args, const Fabric& fabric, const RoutingResult& r, const std::string& reference,
               const RoutingCheckReport* checks, const std::vector<ExportFile>& exported) {
  const AddressMap& a = r.addresses;
  std::size_t switchAddresses = 0;
  for (NodeId n : a.owners()) switchAddresses += fabric.network.isSwitch(n) ? 1 : 0;
  std::size_t memory = 0;
  for (const auto& t : r.tables) memory += t.memoryBytes();
  fmt::print("fabric      {}\n", fabric.spec);
  fmt::print("engine      {}  [{}]\n", r.engine, reference);
  fmt::print("context     lmc {}, switch addresses {}, seed {}\n", args.lmc, args.switchAddresses ? "yes" : "no",
             args.seed);
  fmt::print("addresses   {} ({} per terminal{}, {} switch addresses)\n", a.count(), a.perTerminal(),
             r.sourceClasses > 1
                 ? fmt::format(" = {} source classes x {} paths", r.sourceClasses, a.perTerminal() / r.sourceClasses)
                 : std::string(),
             switchAddresses);
  fmt::print("tables      {} x {} switches x {} addresses, {} bytes, {}, {}\n", r.tables.size(),
             fabric.network.switchCount(), a.count(), memory, r.deterministic ? "deterministic" : "adaptive",
             r.minimal ? "minimal (claimed)" : "minimality not claimed");
  if (!r.stats.empty()) {
    std::string stats;
    for (const auto& [key, value] : r.stats) stats += fmt::format("{}{}={}", stats.empty() ? "" : " ", key, value);
    fmt::print("stats       {}\n", stats);
  }
  if (checks == nullptr) {
    fmt::print("checks      skipped (--no-checks)\n");
  } else {
    const RoutingCheckReport& c = *checks;
    fmt::print("checks      {}\n", c.passed() ? "PASSED" : "FAILED");
    fmt::print("  terminal pairs  {} walked, {} delivered\n", c.terminalPairs, c.terminalPairsDelivered);
    if (c.managementPairs) {
      fmt::print("  management      {} walked, {} delivered (switch addresses; unrouted pairs are not failures)\n",
                 c.managementPairs, c.managementPairsDelivered);
    }
    fmt::print(
        "  failures        {} no route, {} loops, {} dead ports, {} bad candidates, {} candidate cycles, {} "
        "incomplete choices{}\n",
        c.noRoute, c.loops, c.deadPorts, c.badCandidates, c.candidateCycles, c.incompleteChoices,
        c.noAddress ? fmt::format(", {} pairs without an address", c.noAddress) : "");
    fmt::print("  minimal         {} ({} longer paths, {} candidates off shortest paths)\n",
               !c.claimsMinimal ? "not claimed"
               : c.minimalOk    ? "yes"
                                : "NO",
               c.nonMinimalPaths, c.nonMinimalCandidates);
    fmt::print("  deterministic   {} ({} of {} entries with several candidates)\n",
               !c.claimsDeterministic ? "not claimed (adaptive)"
               : c.deterministicOk    ? "yes"
                                      : "NO",
               c.multiCandidateEntries, c.entries);
    fmt::print("  path length     max {} hops, mean {:.4f} (terminal pairs, channels incl. injection)\n", c.maxHops,
               c.meanHops);
    for (const auto& s : c.stages) {
      if (s.channels == 0) continue;
      fmt::print("  stage {:<13} {:>6} channels, paths per channel min {} max {} mean {:.3f}\n", stageName(s),
                 s.channels, s.minPaths, s.maxPaths, s.meanPaths);
    }
    for (const auto& f : c.failures) fmt::print("  failure         {}\n", f);
  }
  for (const ExportFile& e : exported) fmt::print("exported    {} -> {}\n", e.kind, e.path);
}

}  // namespace

namespace {

/// The text or JSON summary of a route run, with the notes of the LFT / SL exports.
void printSummary(const RouteArgs& args, const RouteRequest& request, const RouteOutcome& outcome,
                  const std::vector<ExportFile>& exported, const RouteExportNotes& notes) {
  const Fabric& fabric = outcome.fabric;
  const RoutingResult& routing = outcome.routing;
  const std::string& reference = outcome.reference;
  const RoutingCheckReport* report = outcome.checks ? &*outcome.checks : nullptr;
  if (args.format == OutputFormat::Json) {
    nlohmann::json j = summaryJson(request, outcome, exported);
    if (!notes.lmcTables.empty()) j["lmc_tables"] = notes.lmcTables;
    if (!notes.lids.empty()) j["lids"] = notes.lids;
    printJson(j);
  } else {
    printText(args, fabric, routing, reference, report, exported);
    if (!notes.lmcTables.empty()) fmt::print("lmc tables  {}\n", notes.lmcTables);
    if (!notes.lids.empty()) fmt::print("lids        {}\n", notes.lids);
  }
}

}  // namespace

Command routeCommand() {
  return {"route", "route a fabric with an engine, check it, export LFT / IR / FIR", [](CLI::App& command) {
            auto args = std::make_shared<RouteArgs>();
            addRequestOptions(command, args->flags);
            command
                .add_option("--export", args->exports,
                            "KIND FILE: write lft (OpenSM dump) | sl (slid dlid sl per terminal pair) | fir | ir")
                ->expected(2)
                ->type_name("KIND FILE")
                ->take_all();
            requireExportPairs(command, args->exports);
            addFormatOption(command, args->format);
            return std::function<int()>([args] {
              // parse (validated by the library) -> runRoute -> writeRouteExports, summary.
              const std::vector<ExportFile> files = exportFiles(args->exports);
              routelab::requireExportKinds(files, routeExportKinds(), "kind");  // before routing
              const RouteRequest request = RouteRequest::fromValues(args->flags.values);
              args->lmc = request.lmc;
              args->switchAddresses = request.switchAddresses;
              args->seed = request.seed;
              const RouteOutcome outcome = runRoute(request);
              const RouteExportNotes notes =
                  writeRouteExports(outcome.fabric, outcome.routing, outcome.engineName, files);
              printSummary(*args, request, outcome, files, notes);
              return outcome.checks && !outcome.checks->passed() ? kExitChecksFailed : 0;
            });
          }};
}

}  // namespace routelab::cli
