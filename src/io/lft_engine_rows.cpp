#include "io/lft_engine.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> fileEngineRows() { return {}; }

}  // namespace routelab
