// routelab/io/lft_engine.h — the `file` engine: routing taken from an OpenSM LFT dump.
#pragma once

#include <vector>

#include "routing/engine.h"

namespace routelab {

/// Registry rows of imported routings (`file:PATH`), used by engines/registry.cpp.
std::vector<RegistryRow<EngineFactory>> fileEngineRows();

}  // namespace routelab
