#include "topology/faults.h"

namespace routelab {

std::vector<RegistryRow<ModifierFactory>> faultModifierRows() { return {}; }

const Registry<ModifierFactory>& modifierRegistry() {
  static const Registry<ModifierFactory> registry("modifier", faultModifierRows());
  return registry;
}

}  // namespace routelab
