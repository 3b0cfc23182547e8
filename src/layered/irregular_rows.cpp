// The registry table of the engines for any topology (Lysne et al. 2006 and baselines).
#include "layered/engines.h"
#include "layered/rows.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> irregularEngineRows() {
  using namespace layered;
  return {minhopRow(), updownRow(), updownDfsRow(), mrootsRow(), dMrootsRow(),
          lashRow(),   mpLashRow(), aLashRow(),     escapeRow()};
}

}  // namespace routelab
