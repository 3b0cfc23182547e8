// escape — fully adaptive minimal routing with an UpDown escape layer (Silla & Duato,
// TPDS 2000, as used in Lysne et al. 2006 §8.3: "all layers but one open for fully
// adaptive routing; the last layer ... an escape layer routed according to UpDown").
//
// Layers 0..L-2 share one adaptive table: every minimal port is a candidate (least-used
// first). Layer L-1 (escapeLayer) has a deterministic UpDown table (BFS directions, root =
// lowest id or `root=NAME`) whose route from every switch is legal (irregular/updown.h), so
// a packet may enter the escape layer at any switch. Deadlock freedom follows from Duato's
// theorem (Lysne Theorem 4): the escape subfunction is connected and its extended
// dependency graph is the UpDown dependency graph from every switch, which is acyclic.
// Every source may use every layer (allowedLayers); its injection layer (layerOf) is
// spread over the adaptive layers. Address mode: destination.
#include <fmt/format.h>

#include "core/limits.h"
#include "engines/irregular/rows.h"
#include "engines/irregular/switch_view.h"
#include "engines/irregular/updown.h"

namespace routelab::irregular {

RegistryRow<EngineFactory> escapeRow() {
  return {"escape",
          "fully adaptive minimal routing plus an UpDown escape layer (Duato); addressing: destination",
          "Silla & Duato, TPDS 2000; Lysne et al. 2006 §8.3",
          {{"layers", OptionType::Integer, "2",
            fmt::format("layers, the last one the UpDown escape layer, 2..{}", kMaxLayers)},
           {"root", OptionType::String, "", "root of the escape layer (default: the lowest switch id)"}},
          [](const Options& options) -> RoutingFunction {
            const auto layers =
                static_cast<std::size_t>(options.integerIn("layers", 2, static_cast<std::int64_t>(kMaxLayers)));
            const std::string rootName = options.has("root") ? options.string("root") : std::string();
            return [layers, rootName](const Network& network, const RoutingContext& context) {
              const SwitchView view(network, context.routeSwitches);
              RoutingResult result;
              result.addresses = destinationAddresses(network, context);
              const auto groups = groupAddresses(view, result.addresses);
              result.tables.push_back(adaptiveTable(view, result.addresses, groups,
                                                    [&](std::uint32_t d, HopSets& out) { minimalHops(view, d, out); }));
              const std::uint32_t root = rootName.empty() ? view.lowestSwitch() : switchByName(view, rootName, "root");
              const UpDown updown(view, root, SpanningTree::BreadthFirst);
              result.tables.push_back(balancedTable(view, result.addresses, groups,
                                                    [&](std::uint32_t d, HopSets& out) { updown.nextHops(d, out); }));
              result.tableOfLayer.assign(layers, 0);
              result.tableOfLayer.back() = 1;
              result.escapeLayer = static_cast<int>(layers - 1);
              result.layerOf = spreadLayers(result.addresses, layers - 1);
              result.allowedLayers.assign(result.layerOf.size(), static_cast<std::uint16_t>((1U << layers) - 1));
              result.deterministic = false;
              result.minimal = false;
              result.stats.emplace_back("layers", std::to_string(layers));
              result.stats.emplace_back("escape_layer", std::to_string(layers - 1));
              result.stats.emplace_back("escape_root", root < view.switchCount() ? view.switchName(root) : "");
              return result;
            };
          }};
}

}  // namespace routelab::irregular
