// routelab/topology/faults.h — fault modifiers: remove given or random (seeded) links or
// switches from any fabric and report what became unreachable.
#pragma once

#include "topology/registry.h"

namespace routelab {

/// Rows of the modifier registry (implemented in faults.cpp).
std::vector<RegistryRow<ModifierFactory>> faultModifierRows();

}  // namespace routelab
