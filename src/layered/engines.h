// routelab/layered/engines.h — engines for any topology (Lysne et al. 2006 and baselines):
// minhop, updown, updown-dfs, mroots, d-mroots, lash, mp-lash, a-lash, escape.
#pragma once

#include <vector>

#include "routing/engine.h"

namespace routelab {

/// Registry rows of this family (one row per engine), used by engines/registry.cpp.
std::vector<RegistryRow<EngineFactory>> irregularEngineRows();

}  // namespace routelab
