// routelab/engines/families.h — the registry rows of each engine family, one folder each
// under src/engines/ (engines/registry.cpp concatenates them in this order):
//   fatTreeEngineRows()   — fattree/fat_tree_rows.cpp: Gómez et al. 2007, Nienaber et al. 2011
//   irregularEngineRows() — irregular/irregular_rows.cpp: minhop, UpDown, MROOTS, LASH
//                           family, Escape (Lysne et al. 2006 and baselines)
//   tableEngineRows()     — tables/table_rows.cpp: routings imported from OpenSM (`file:PATH`)
// A family's rows function lists one row per engine; adding an engine adds one line there
// (see engines/template_engine.cpp).
#pragma once

#include <vector>

#include "routing/engine.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> fatTreeEngineRows();
std::vector<RegistryRow<EngineFactory>> irregularEngineRows();
std::vector<RegistryRow<EngineFactory>> tableEngineRows();

}  // namespace routelab
