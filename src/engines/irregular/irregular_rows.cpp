// The registry table of the engines for any topology (Lysne et al. 2006 and baselines).
#include "engines/families.h"
#include "engines/irregular/rows.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> irregularEngineRows() {
  using namespace irregular;
  return {minhopRow(), updownRow(), updownDfsRow(), mrootsRow(), dMrootsRow(),
          lashRow(),   mpLashRow(), aLashRow(),     escapeRow()};
}

}  // namespace routelab
