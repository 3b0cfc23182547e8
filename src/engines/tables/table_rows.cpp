// The `file` engine: the routing a real fabric runs, taken from OpenSM's LFT dump.
#include "engines/families.h"
#include "io/lft_dump.h"

namespace routelab {

std::vector<RegistryRow<EngineFactory>> tableEngineRows() {
  return {{"file",
           "routing loaded from an OpenSM LFT dump (opensm-lfts.dump, .gz ok): --engine file:PATH",
           "OpenSM file routing engine (opensm -R file -U FILE)",
           {{"path", OptionType::String, "", "the LFT dump to load", true}},
           [](const Options& options) -> RoutingFunction {
             const std::string path = options.string("path");
             // The dump fixes the addresses (LIDs, LMC): the context's requests do not apply.
             return [path](const Network& network, const RoutingContext&) { return readLftDump(path, network); };
           }}};
}

}  // namespace routelab
