#include "routing/engine.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> fatTreeEngineRows() { return {}; }

}  // namespace routelab
