// The arbitrations' registry (sim/arbitration/registry.h), derived from the variant's rows.
#include "sim/arbitration/registry.h"

#include "sim/component_rows.h"

namespace routelab::sim {

static_assert(idsAreIndices<ArbitrationFunction>(), "each row's kId is its position (sim/model.h's Arbitration order)");

ArbitrationFunction makeArbitration(Arbitration id) { return makeComponent<ArbitrationFunction>(id); }

const Registry<Arbitration>& arbitrationRegistry() {
  static const Registry<Arbitration> registry("arbitration", componentRows<ArbitrationFunction, Arbitration>());
  return registry;
}

std::string arbitrationNames() { return rowNames(arbitrationRegistry()); }

}  // namespace routelab::sim
