// routelab route SPEC --engine NAME — route a fabric, check the routing, print its summary,
// export LFTs (OpenSM dump) and interval-routing registers (docs/ROUTING.md).
//
// Exit codes: 0 the routing passes the checks (routing/checks.h); 5 it does not (undelivered
// terminal pairs, loops, bad candidates, or a failed minimal/deterministic claim); 1 bad
// input; 2 usage.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>

#include "cli.h"
#include "cli_schema.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/lft_dump.h"
#include "io/lid_map.h"
#include "io/output.h"
#include "io/sl_table.h"
#include "request/route_request.h"
#include "routing/checks.h"
#include "routing/interval_routing.h"
#include "routing/lmc_tables.h"

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
                           const std::vector<std::pair<std::string, std::string>>& exported) {
  nlohmann::json j = routeResultJson(request, outcome);
  nlohmann::json exports = nlohmann::json::array();
  for (const auto& [kind, path] : exported) exports.push_back({{"kind", kind}, {"path", path}});
  j["exports"] = exports;
  return j;
}

void printText(const RouteArgs& args, const Fabric& fabric, const RoutingResult& r, const std::string& reference,
               const RoutingCheckReport* checks, const std::vector<std::pair<std::string, std::string>>& exported) {
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
  for (const auto& [kind, path] : exported) fmt::print("exported    {} -> {}\n", kind, path);
}

}  // namespace

namespace {

/// What LFT and SL exports write: one table, on the fabric's own LIDs when it has them
/// (docs/FORMATS.md "Fabric LIDs"). A routing with a table per layer group gets a LID per
/// table (LMC) and an SL per pair (routing/lmc_tables.h); others are themselves.
struct Loadable {
  std::optional<RoutingResult> changed;   ///< when tables were merged or LIDs relabelled
  std::string note;                       ///< "T tables on LMC k ..." then
  std::string lidNote;                    ///< where the LIDs come from, when the fabric's
  std::vector<std::uint32_t> switchLids;  ///< switch headers of the LFT dump (fabric LIDs)
  const RoutingResult& of(const RoutingResult& routing) const { return changed ? *changed : routing; }
};

Loadable loadableRouting(const RouteArgs& args, const Network& network, const RoutingResult& routing,
                         const LidMap& lids, bool imported) {
  bool loads = false;
  for (std::size_t i = 0; i + 1 < args.exports.size(); i += 2) {
    loads = loads || args.exports[i] == "lft" || args.exports[i] == "sl";
  }
  Loadable out;
  if (!loads) return out;
  if (routing.tables.size() != 1) {
    out.changed = mergeTablesByLmc(network, routing);
    out.note = fmt::format("{} tables on LMC {} (LID offset t = table t; load the SL file with the LFT)",
                           routing.tables.size(), std::bit_width(routing.tables.size() - 1));
  }
  // An imported LFT dump keeps the LIDs it was written with.
  if (!lids.empty() && !imported) {
    out.changed = withFabricLids(network, out.changed ? std::move(*out.changed) : routing, lids);
    out.switchLids = switchLids(network, lids);
    out.lidNote = fmt::format("the fabric's own (from {})", lids.source);
  }
  return out;
}

/// The engines whose registry rows declare the register export `kind`, comma-separated.
std::string enginesDeclaring(const std::string& kind) {
  std::string out;
  for (const auto& row : engineRegistry().rows()) {
    const std::vector<std::string>& declared = engineRegisterExports(row.name);
    if (std::find(declared.begin(), declared.end(), kind) != declared.end())
      out += (out.empty() ? "" : ", ") + row.name;
  }
  return out;
}

/// Checks every requested export and builds the register files (FIR / IR) in memory; the
/// register files an engine's tables are come from its registry row (engineRegisterExports).
std::vector<std::pair<std::string, IntervalConfiguration>> prepareExports(const RouteArgs& args, const Network& network,
                                                                          const RoutingResult& routing,
                                                                          const std::string& engineName) {
  std::vector<std::pair<std::string, IntervalConfiguration>> registers;
  for (std::size_t i = 0; i + 1 < args.exports.size(); i += 2) {
    const std::string& kind = args.exports[i];
    if (kind == "lft") {
      validateLftExport(routing);  // the loadable routing (one table)
      continue;
    }
    if (kind == "sl") continue;
    const bool fir = kind == "fir";
    const std::vector<std::string>& declared = engineRegisterExports(engineName);
    if (std::find(declared.begin(), declared.end(), kind) == declared.end()) {
      throw SpecError(fmt::format("--export {}: the {} registers describe {} (Gómez §{}); the engine is '{}'", kind,
                                  fir ? "FIR" : "IR", enginesDeclaring(kind), fir ? "4.1" : "3.1", engineName));
    }
    if (args.lmc != 0 || args.switchAddresses) {
      throw SpecError(
          fmt::format("--export {}: the registers route one address per terminal (no --lmc, "
                      "no --switch-addresses)",
                      kind));
    }
    IntervalConfiguration configuration = fir ? buildFirConfiguration(network) : buildIrConfiguration(network);
    const std::uint64_t disagreements = countRegisterDisagreements(network, configuration, routing);
    if (disagreements != 0) {
      throw RoutingError(
          fmt::format("{} registers disagree with the {} tables on {} (switch, destination) "
                      "pairs; please report",
                      fir ? "FIR" : "IR", engineName, disagreements));
    }
    registers.emplace_back(args.exports[i + 1], std::move(configuration));
  }
  return registers;
}

/// The text or JSON summary of a route run, with the notes of the LFT / SL exports.
void printSummary(const RouteArgs& args, const RouteRequest& request, const RouteOutcome& outcome,
                  const std::vector<std::pair<std::string, std::string>>& exported, const Loadable& loadable) {
  const Fabric& fabric = outcome.fabric;
  const RoutingResult& routing = outcome.routing;
  const std::string& reference = outcome.reference;
  const RoutingCheckReport* report = outcome.checks ? &*outcome.checks : nullptr;
  if (args.format == OutputFormat::Json) {
    nlohmann::json j = summaryJson(request, outcome, exported);
    if (!loadable.note.empty()) j["lmc_tables"] = loadable.note;
    if (!loadable.lidNote.empty()) j["lids"] = loadable.lidNote;
    printJson(j);
  } else {
    printText(args, fabric, routing, reference, report, exported);
    if (!loadable.note.empty()) fmt::print("lmc tables  {}\n", loadable.note);
    if (!loadable.lidNote.empty()) fmt::print("lids        {}\n", loadable.lidNote);
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
              for (std::size_t i = 0; i + 1 < args->exports.size(); i += 2) {
                const std::string& kind = args->exports[i];
                if (kind != "lft" && kind != "sl" && kind != "fir" && kind != "ir") {
                  throw SpecError(fmt::format("--export: unknown kind '{}' (lft, sl, fir, ir)", kind));
                }
              }
              // parse (validated by the library) -> runRoute -> exports, summary.
              const RouteRequest request = RouteRequest::fromValues(args->flags.values);
              args->lmc = request.lmc;
              args->switchAddresses = request.switchAddresses;
              args->seed = request.seed;
              const RouteOutcome outcome = runRoute(request);
              const Fabric& fabric = outcome.fabric;
              const RoutingResult& routing = outcome.routing;
              const std::string& engineName = outcome.engineName;

              const Loadable loadable =
                  loadableRouting(*args, fabric.network, routing, fabric.lids, engineName == "file");
              // Build every export in memory first, so a refused one writes nothing.
              std::vector<std::pair<std::string, std::string>> exported;
              const auto registers = prepareExports(*args, fabric.network, loadable.of(routing), engineName);
              std::size_t next = 0;
              std::vector<OutputFile> files;  // all or nothing
              for (std::size_t i = 0; i + 1 < args->exports.size(); i += 2) {
                const std::string& kind = args->exports[i];
                const std::string& path = args->exports[i + 1];
                if (kind == "lft") {
                  files.push_back({path, [&](std::ostream& out) {
                                     writeLftDump(fabric.network, loadable.of(routing), out, loadable.switchLids);
                                   }});
                } else if (kind == "sl") {
                  files.push_back(
                      {path, [&](std::ostream& out) { writeSlTable(fabric.network, loadable.of(routing), out); }});
                } else {
                  const IntervalConfiguration& configuration = registers[next++].second;
                  files.push_back({path, [&fabric, &configuration, &routing](std::ostream& out) {
                                     writeIntervalConfiguration(fabric.network, configuration, routing.engine, out);
                                   }});
                }
                exported.emplace_back(kind, path);
              }
              writeFilesAtomically(files);
              printSummary(*args, request, outcome, exported, loadable);
              return outcome.checks && !outcome.checks->passed() ? kExitChecksFailed : 0;
            });
          }};
}

}  // namespace routelab::cli
