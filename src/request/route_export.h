// routelab/request/route_export.h — the files a routing is exported to (docs/ROUTING.md,
// "routelab route" and the sections of each format): the one dispatch behind `routelab route --export KIND FILE` and
// Python's `Routing.export(kind, path)`.
//
//   lft  OpenSM LFT dump (io/lft_dump.h)                         every routing
//   sl   one SL per terminal pair, "slid dlid sl" (io/sl_table.h)  every routing
//   fir  FIR registers (Gómez et al. 2007 §4.1)                  engines whose row declares it
//   ir   IR registers (Gómez et al. 2007 §3.1)                   engines whose row declares it
//
// LFT and SL files are what a subnet manager loads: one table, so a routing with a table per
// layer group gets a LID per table (LMC) and an SL per pair (routing/lmc_tables.h), and a
// fabric with LIDs of its own (docs/FORMATS.md "Fabric LIDs") is exported on them — except an
// imported LFT dump, which keeps the LIDs it was written with. The register files are the
// registers of engines/families.h EngineRegisterExports, checked against the routing's tables.
#pragma once

#include <string>
#include <vector>

#include "fabric/fabric.h"
#include "io/output.h"
#include "routing/routing_result.h"

namespace routelab {

/// Every kind: lft, sl, fir, ir.
const std::vector<std::string>& routeExportKinds();

/// The kinds a routing of the engine row `engine` exports: lft, sl and the register files its
/// row declares. `engine` "" is a routing built outside the registry (Python's from_tables):
/// lft, sl. Throws SpecError for a name that is no row.
std::vector<std::string> routeExportKindsOf(const std::string& engine);

/// What the LFT and SL exports wrote besides the tables (empty when nothing of the kind).
struct RouteExportNotes {
  std::string lmcTables;  ///< "T tables on LMC k (...)" when the tables were merged
  std::string lids;       ///< "the fabric's own (from SOURCE)" when the fabric's LIDs were used
};

/// Writes `routing` (of `fabric`, by engine row `engine`, "file" for an imported dump, "" for
/// one built outside the registry) to every export, all or nothing: every file is built and
/// checked before any is written (writeFilesAtomically: temporaries renamed at the end), so a
/// refusal leaves no file. Throws SpecError "export: unknown kind 'K' (lft, sl, fir, ir)",
/// SpecError "export K: ..." for a register file the engine's row does not declare (naming
/// the engines that do and the kinds this one exports) or for a routing with more than one
/// address per terminal or switch addresses; RoutingError for tables an LFT cannot hold
/// (validateLftExport, mergeTablesByLmc); IoError for a file that cannot be written.
RouteExportNotes writeRouteExports(const Fabric& fabric, const RoutingResult& routing, const std::string& engine,
                                   const std::vector<ExportFile>& exports);

}  // namespace routelab
