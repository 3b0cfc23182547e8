#include "layered/engines.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> irregularEngineRows() { return {}; }

}  // namespace routelab
