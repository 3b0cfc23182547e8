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
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/lft_dump.h"
#include "io/lid_map.h"
#include "io/output.h"
#include "io/sl_table.h"
#include "routing/checks.h"
#include "routing/interval_routing.h"
#include "routing/lmc_tables.h"

namespace routelab::cli {

namespace {

constexpr int kExitChecksFailed = 5;

struct RouteArgs {
  std::string spec;
  std::string engine;
  std::uint32_t lmc = 0;
  bool switchAddresses = false;
  std::uint64_t seed = 1;
  bool noChecks = false;
  std::vector<std::string> exports;  // pairs: kind, path
  std::string lidMap;                // guid2lid file: the fabric's LIDs
  OutputFormat format = OutputFormat::Text;
};

std::string stageName(const StageCount& s) {
  return s.ascending ? fmt::format("level {} up", s.fromLevel()) : fmt::format("level {} down", s.fromLevel());
}

/// An engine statistic as JSON: a number when the whole text is one ("4", "2.5"), else the text.
nlohmann::json statValue(const std::string& text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  return parsed.is_number() ? parsed : nlohmann::json(text);
}

nlohmann::json summaryJson(const RouteArgs& args, const Fabric& fabric, const RoutingResult& r,
                           const std::string& reference, const RoutingCheckReport* checks,
                           const std::vector<std::pair<std::string, std::string>>& exported) {
  nlohmann::json j;
  j["spec"] = fabric.spec;
  j["engine"] = r.engine;
  j["reference"] = reference;
  j["seed"] = args.seed;
  j["lmc"] = args.lmc;
  j["switch_addresses"] = args.switchAddresses;
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
  if (checks != nullptr) {
    const RoutingCheckReport& c = *checks;
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& s : c.stages) {
      stages.push_back({{"level", s.fromLevel()},
                        {"direction", s.ascending ? "up" : "down"},
                        {"channels", s.channels},
                        {"min_paths", s.minPaths},
                        {"max_paths", s.maxPaths},
                        {"mean_paths", s.meanPaths}});
    }
    j["checks"] = {{"passed", c.passed()},
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
  } else {
    j["checks"] = nullptr;
  }
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
void printSummary(const RouteArgs& args, const Fabric& fabric, const RoutingResult& routing,
                  const std::string& reference, const RoutingCheckReport* report,
                  const std::vector<std::pair<std::string, std::string>>& exported, const Loadable& loadable) {
  if (args.format == OutputFormat::Json) {
    nlohmann::json j = summaryJson(args, fabric, routing, reference, report, exported);
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
  return {
      "route", "route a fabric with an engine, check it, export LFT / IR / FIR", [](CLI::App& command) {
        auto args = std::make_shared<RouteArgs>();
        command.add_option("spec", args->spec, "fabric spec, e.g. kary-ntree:k=4,n=3 (see README)")->required();
        command.add_option("--engine", args->engine, "routing engine spec (routelab list), or file:PATH")->required();
        command.add_option("--lmc", args->lmc, "LMC: 2^lmc addresses (paths) per terminal")
            ->check(CLI::Range(0, 7))
            ->default_str("0");
        command.add_flag("--switch-addresses", args->switchAddresses,
                         "give every switch an address and route management traffic to it");
        command.add_option("--seed", args->seed, "seed for engines with random choices")
            ->check(unsignedDecimal())
            ->default_str("1");
        command.add_flag("--no-checks", args->noChecks, "skip the routing checks (large fabrics)");
        command
            .add_option("--export", args->exports,
                        "KIND FILE: write lft (OpenSM dump) | sl (slid dlid sl per terminal pair) | fir | ir")
            ->expected(2)
            ->type_name("KIND FILE")
            ->take_all();
        requireExportPairs(command, args->exports);
        command.add_option("--lid-map", args->lidMap,
                           "OpenSM guid2lid file: export with these LIDs (an ibnetdiscover fabric brings its own)");
        addFormatOption(command, args->format);
        return std::function<int()>([args] {
          for (std::size_t i = 0; i + 1 < args->exports.size(); i += 2) {
            const std::string& kind = args->exports[i];
            if (kind != "lft" && kind != "sl" && kind != "fir" && kind != "ir") {
              throw SpecError(fmt::format("--export: unknown kind '{}' (lft, sl, fir, ir)", kind));
            }
          }
          Fabric fabric = loadFabric(args->spec);
          if (!args->lidMap.empty()) {
            fabric.lids = readGuid2Lid(args->lidMap);
            if (fabric.lids.empty()) throw SpecError(fmt::format("--lid-map {}: no LIDs in the file", args->lidMap));
          }
          RoutingContext context;
          context.addressesPerTerminal = std::uint32_t{1} << args->lmc;
          context.routeSwitches = args->switchAddresses;
          context.seed = args->seed;
          const RoutingResult routing = runEngine(args->engine, fabric.network, context);
          const std::string engineName =
              parseComponent(args->engine.rfind("file:", 0) == 0 ? "file" : args->engine).name;
          const std::string reference = engineRegistry().find(engineName).reference;

          const Loadable loadable = loadableRouting(*args, fabric.network, routing, fabric.lids, engineName == "file");
          // Build every export in memory first, so a refused one writes nothing.
          std::vector<std::pair<std::string, std::string>> exported;
          const auto registers = prepareExports(*args, fabric.network, loadable.of(routing), engineName);
          std::optional<RoutingCheckReport> checks;
          if (!args->noChecks) checks = checkRouting(fabric.network, routing);
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
          const RoutingCheckReport* report = checks ? &*checks : nullptr;
          printSummary(*args, fabric, routing, reference, report, exported, loadable);
          return report != nullptr && !report->passed() ? kExitChecksFailed : 0;
        });
      }};
}

}  // namespace routelab::cli
