// updown and updown-dfs — up*/down* routing with destination-based tables.
// updown: Autonet breadth-first directions (Lysne et al. 2006 §4.1: root = lowest id unless
// `root=NAME`, up-end = end closer to the root, ties to the lower id). updown-dfs: the
// depth-first spanning tree of Sancho, Robles and Duato (TPDS 2004), cited in Lysne §1/§8.
// Tables: for every address, the least-used legal next hop (see irregular/updown.h for the
// consistency rule that makes every switch's table route legal). Address mode: destination.
#include <fmt/format.h>

#include "engines/irregular/rows.h"
#include "engines/irregular/switch_view.h"
#include "engines/irregular/updown.h"

namespace routelab::irregular {

namespace {

RoutingFunction makeUpDown(const Options& options, SpanningTree tree) {
  const std::string rootName = options.has("root") ? options.string("root") : std::string();
  return [rootName, tree](const Network& network, const RoutingContext& context) {
    const SwitchView view(network, context.routeSwitches);
    const std::uint32_t root = rootName.empty() ? view.lowestSwitch() : switchByName(view, rootName, "root");
    const UpDown updown(view, root, tree);
    RoutingResult result;
    result.addresses = destinationAddresses(network, context);
    const auto groups = groupAddresses(view, result.addresses);
    result.tables.push_back(
        balancedTable(view, result.addresses, groups, [&](std::uint32_t d, HopSets& out) { updown.nextHops(d, out); }));
    result.deterministic = true;
    result.minimal = false;
    result.stats.emplace_back("root", root < view.switchCount() ? view.switchName(root) : "");
    result.stats.emplace_back("layers", "1");
    return result;
  };
}

OptionSchema rootSchema() {
  return {{"root", OptionType::String, "", "root switch name (default: the lowest switch id)"}};
}

}  // namespace

RegistryRow<EngineFactory> updownRow() {
  return {"updown", "up*/down* over a BFS spanning tree (Autonet); addressing: destination",
          "Lysne et al. 2006 §4.1; Schroeder et al. (Autonet) 1990", rootSchema(),
          [](const Options& options) { return makeUpDown(options, SpanningTree::BreadthFirst); }};
}

RegistryRow<EngineFactory> updownDfsRow() {
  return {"updown-dfs", "up*/down* over a depth-first spanning tree; addressing: destination",
          "Sancho, Robles, Duato, TPDS 2004 (cited in Lysne et al. 2006 §1, §8)", rootSchema(),
          [](const Options& options) { return makeUpDown(options, SpanningTree::DepthFirst); }};
}

}  // namespace routelab::irregular
