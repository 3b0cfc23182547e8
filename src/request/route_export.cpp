#include "request/route_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/errors.h"
#include "engines/registry.h"
#include "io/lft_dump.h"
#include "io/lid_map.h"
#include "io/sl_table.h"
#include "routing/interval_routing.h"
#include "routing/lmc_tables.h"

namespace routelab {

namespace {

/// What LFT and SL exports write: one table, on the fabric's own LIDs when it has them.
struct Loadable {
  std::optional<RoutingResult> changed;   ///< when tables were merged or LIDs relabelled
  std::vector<std::uint32_t> switchLids;  ///< switch headers of the LFT dump (fabric LIDs)
  RouteExportNotes notes;
  const RoutingResult& of(const RoutingResult& routing) const { return changed ? *changed : routing; }
};

bool hasKind(const std::vector<ExportFile>& exports, const std::string& kind) {
  return std::any_of(exports.begin(), exports.end(), [&](const ExportFile& e) { return e.kind == kind; });
}

Loadable loadableRouting(const Fabric& fabric, const RoutingResult& routing, bool imported) {
  Loadable out;
  if (routing.tables.size() != 1) {
    out.changed = mergeTablesByLmc(fabric.network, routing);
    out.notes.lmcTables = fmt::format("{} tables on LMC {} (LID offset t = table t; load the SL file with the LFT)",
                                      routing.tables.size(), lmcOfLargestBlock(out.changed->addresses));
  }
  // An imported LFT dump keeps the LIDs it was written with.
  if (!fabric.lids.empty() && !imported) {
    out.changed = withFabricLids(fabric.network, out.changed ? std::move(*out.changed) : routing, fabric.lids);
    out.switchLids = switchLids(fabric.network, fabric.lids);
    out.notes.lids = fmt::format("the fabric's own (from {})", fabric.lids.source);
  }
  return out;
}

/// The engines whose registry rows declare the register export `kind`, comma-separated.
std::string enginesDeclaring(const std::string& kind) {
  std::vector<std::string> engines;
  for (const auto& row : engineRegistry().rows()) {
    const std::vector<std::string>& declared = engineRegisterExports(row.name);
    if (std::find(declared.begin(), declared.end(), kind) != declared.end()) engines.push_back(row.name);
  }
  return joinKinds(engines);
}

/// The register file `kind` (fir, ir) of `routing` (`loaded`: as the LFT export writes it),
/// after the checks that it is the engine's.
IntervalConfiguration registersOf(const std::string& kind, const Network& network, const RoutingResult& routing,
                                  const RoutingResult& loaded, const std::string& engine) {
  const bool fir = kind == "fir";
  const std::vector<std::string> kinds = routeExportKindsOf(engine);
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    throw SpecError(fmt::format(
        "export {}: the {} registers describe {} (Gómez §{}); {} exports {}", kind, fir ? "FIR" : "IR",
        enginesDeclaring(kind), fir ? "4.1" : "3.1",
        engine.empty() ? "a routing built outside the registry" : fmt::format("the engine is '{}', which", engine),
        joinKinds(kinds)));
  }
  if (routing.addresses.perTerminal() != 1 || routing.addresses.includesSwitches()) {
    throw SpecError(
        fmt::format("export {}: the registers route one address per terminal (lmc 0, no switch addresses)", kind));
  }
  IntervalConfiguration configuration = fir ? buildFirConfiguration(network) : buildIrConfiguration(network);
  const std::uint64_t disagreements = countRegisterDisagreements(network, configuration, loaded);
  if (disagreements != 0) {
    throw RoutingError(
        fmt::format("{} registers disagree with the {} tables on {} (switch, destination) "
                    "pairs; please report",
                    fir ? "FIR" : "IR", engine, disagreements));
  }
  return configuration;
}

}  // namespace

const std::vector<std::string>& routeExportKinds() {
  static const std::vector<std::string> kinds = {"lft", "sl", "fir", "ir"};
  return kinds;
}

std::vector<std::string> routeExportKindsOf(const std::string& engine) {
  std::vector<std::string> kinds = {"lft", "sl"};
  if (engine.empty()) return kinds;
  const std::vector<std::string>& registers = engineRegisterExports(engine);
  // In the order of routeExportKinds(), whatever order the row lists them in.
  for (const std::string& kind : routeExportKinds()) {
    if (std::find(registers.begin(), registers.end(), kind) != registers.end()) kinds.push_back(kind);
  }
  return kinds;
}

RouteExportNotes writeRouteExports(const Fabric& fabric, const RoutingResult& routing, const std::string& engine,
                                   const std::vector<ExportFile>& exports) {
  requireExportKinds(exports, routeExportKinds(), "kind");
  const Network& network = fabric.network;
  Loadable loadable;
  if (hasKind(exports, "lft") || hasKind(exports, "sl")) loadable = loadableRouting(fabric, routing, engine == "file");
  const RoutingResult& loaded = loadable.of(routing);
  // Build and check every export in memory first, so a refused one writes nothing.
  std::vector<IntervalConfiguration> registers;
  registers.reserve(exports.size());
  for (const ExportFile& e : exports) {
    if (e.kind == "lft") validateLftExport(loaded);
    if (e.kind == "fir" || e.kind == "ir") registers.push_back(registersOf(e.kind, network, routing, loaded, engine));
  }
  std::vector<OutputFile> files;  // all or nothing
  std::size_t next = 0;
  for (const ExportFile& e : exports) {
    if (e.kind == "lft") {
      files.push_back({e.path, [&](std::ostream& out) { writeLftDump(network, loaded, out, loadable.switchLids); }});
    } else if (e.kind == "sl") {
      files.push_back({e.path, [&](std::ostream& out) { writeSlTable(network, loaded, out); }});
    } else {
      const IntervalConfiguration& configuration = registers[next++];
      files.push_back({e.path, [&network, &configuration, &routing](std::ostream& out) {
                         writeIntervalConfiguration(network, configuration, routing.engine, out);
                       }});
    }
  }
  writeFilesAtomically(files);
  return loadable.notes;
}

}  // namespace routelab
