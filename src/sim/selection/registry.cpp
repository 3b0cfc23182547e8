// The selection functions' registry (sim/selection/registry.h), derived from the variant's rows.
#include "sim/selection/registry.h"

#include "sim/component_rows.h"

namespace routelab::sim {

static_assert(idsAreIndices<SelectionFunction>(), "each row's kId is its position (sim/model.h's Selection order)");

SelectionFunction makeSelection(Selection id, const SelectionSetup& setup) {
  return makeComponent<SelectionFunction>(id, setup);
}

const Registry<Selection>& selectionRegistry() {
  static const Registry<Selection> registry("selection function", componentRows<SelectionFunction, Selection>());
  return registry;
}

std::string selectionNames() { return rowNames(selectionRegistry()); }

}  // namespace routelab::sim
