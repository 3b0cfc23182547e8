// routelab/engines/families.h — the registry rows of each engine family, one folder each
// under src/engines/ (engines/registry.cpp concatenates them in this order):
//   fatTreeEngineRows()   — fattree/fat_tree_rows.cpp: Gómez et al. 2007, Nienaber et al. 2011
//   irregularEngineRows() — irregular/irregular_rows.cpp: minhop, UpDown, MROOTS, LASH
//                           family, Escape (Lysne et al. 2006 and baselines)
//   tableEngineRows()     — tables/table_rows.cpp: routings imported from OpenSM (`file:PATH`)
// A family's rows function lists one row per engine; adding an engine adds one line there
// (see engines/template_engine.cpp).
#pragma once

#include <string>
#include <vector>

#include "routing/engine.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> fatTreeEngineRows();
std::vector<RegistryRow<EngineFactory>> irregularEngineRows();
std::vector<RegistryRow<EngineFactory>> tableEngineRows();

/// The interval-routing register files (io/interval_registers.h) that an engine's tables are,
/// so that `routelab route --export FORMAT` can write them: "ir" (Gómez et al. 2007 §3.1, the
/// minimal adaptive routing) or "fir" (§4.1, the deterministic one). A family lists its
/// engines that have any, next to its rows; engines not listed have none.
struct EngineRegisterExports {
  std::string engine;                ///< a row's name
  std::vector<std::string> formats;  ///< "ir", "fir"
};
std::vector<EngineRegisterExports> fatTreeEngineRegisterExports();

}  // namespace routelab
