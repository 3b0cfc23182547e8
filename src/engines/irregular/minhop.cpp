// minhop — shortest paths balanced over ports, like OpenSM's default engine
// (osm_ucast_mgr.c): per destination address, every switch forwards on the least-used of
// its minimal-hop ports. Not deadlock-free on cyclic fabrics: the verifier's negative
// baseline. Address mode: destination (2^lmc addresses per terminal, each balanced).
#include <fmt/format.h>

#include "engines/irregular/rows.h"
#include "engines/irregular/switch_view.h"

namespace routelab::irregular {

RegistryRow<EngineFactory> minhopRow() {
  return {"minhop",
          "shortest paths balanced over ports (OpenSM default); NOT deadlock-free; addressing: destination",
          "OpenSM osm_ucast_mgr.c (min-hop); baseline of Lysne et al. 2006 §5",
          {},
          [](const Options&) -> RoutingFunction {
            return [](const Network& network, const RoutingContext& context) {
              const SwitchView view(network, context.routeSwitches);
              RoutingResult result;
              result.addresses = destinationAddresses(network, context);
              const auto groups = groupAddresses(view, result.addresses);
              result.tables.push_back(balancedTable(view, result.addresses, groups,
                                                    [&](std::uint32_t d, HopSets& out) { minimalHops(view, d, out); }));
              result.minimal = true;
              result.deterministic = true;
              result.stats.emplace_back("layers", "1");
              result.stats.emplace_back("deadlock_free", "not guaranteed");
              return result;
            };
          }};
}

}  // namespace routelab::irregular
