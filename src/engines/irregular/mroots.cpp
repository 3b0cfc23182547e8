// mroots and d-mroots — layered UpDown with multiple roots (Lysne et al. 2006 §4.2).
// Step 1: the root of layer 0 is the lowest switch id (or `root=NAME`); the root of every
// further layer is the switch whose shortest distance to the earlier roots is largest
// (ties: lowest id). Step 2: one UpDown structure (BFS directions, §4.1) and one
// destination-based table per layer. Step 3: D-MROOTS gives every (source, address) pair
// one layer, spread evenly ((source + destination + offset) mod layers), so packets stay in
// order; MROOTS additionally lets every source use every layer (allowedLayers).
// Deadlock-free per layer (each layer is an UpDown routing on its own virtual channels).
// Address mode: destination.
#include <fmt/format.h>
#include <algorithm>

#include "core/errors.h"
#include "core/limits.h"
#include "engines/irregular/rows.h"
#include "engines/irregular/switch_view.h"
#include "engines/irregular/updown.h"

namespace routelab::irregular {

namespace {

/// §4.2 step 1: roots maximising the shortest distance to the earlier roots.
std::vector<std::uint32_t> chooseRoots(const SwitchView& view, std::uint32_t first, std::size_t count) {
  std::vector<std::uint32_t> roots{first};
  std::vector<std::uint32_t> nearest(view.switchCount(), UINT32_MAX);
  while (roots.size() < count) {
    for (std::uint32_t s = 0; s < view.switchCount(); ++s) {
      nearest[s] = std::min<std::uint32_t>(nearest[s], view.distance(roots.back(), s));
    }
    std::uint32_t best = UINT32_MAX;
    for (std::uint32_t s = 0; s < view.switchCount(); ++s) {
      if (!view.inFabric(s)) continue;
      if (best == UINT32_MAX || nearest[s] > nearest[best]) best = s;
    }
    roots.push_back(best);  // a root may repeat when the fabric has fewer switches than layers
  }
  return roots;
}

RoutingFunction makeMroots(const Options& options, bool adaptive) {
  const auto layers = static_cast<std::size_t>(options.integerIn("layers", 1, static_cast<std::int64_t>(kMaxLayers)));
  const std::string rootName = options.has("root") ? options.string("root") : std::string();
  return [layers, rootName, adaptive](const Network& network, const RoutingContext& context) {
    const SwitchView view(network, context.routeSwitches);
    RoutingResult result;
    result.addresses = destinationAddresses(network, context);
    const auto groups = groupAddresses(view, result.addresses);
    std::string rootList;
    if (view.lowestSwitch() != UINT32_MAX) {
      const std::uint32_t first = rootName.empty() ? view.lowestSwitch() : switchByName(view, rootName, "root");
      for (std::uint32_t root : chooseRoots(view, first, layers)) {
        const UpDown updown(view, root, SpanningTree::BreadthFirst);
        result.tables.push_back(balancedTable(view, result.addresses, groups,
                                              [&](std::uint32_t d, HopSets& out) { updown.nextHops(d, out); }));
        rootList += (rootList.empty() ? "" : ".") + view.switchName(root);
      }
    } else {
      result.tables.assign(layers, ForwardingTable(view.switchCount(), result.addresses.count()));
    }
    result.tableOfLayer.resize(layers);
    for (std::size_t layer = 0; layer < layers; ++layer) result.tableOfLayer[layer] = static_cast<std::uint16_t>(layer);
    result.layerOf = spreadLayers(result.addresses, layers);
    if (adaptive) {
      result.allowedLayers.assign(result.layerOf.size(), static_cast<std::uint16_t>((1U << layers) - 1));
    }
    result.deterministic = !adaptive;
    result.minimal = false;
    result.stats.emplace_back("layers", std::to_string(layers));
    result.stats.emplace_back("roots", rootList);
    return result;
  };
}

OptionSchema mrootsSchema() {
  return {{"layers", OptionType::Integer, "2",
           fmt::format("layers (virtual lanes), one UpDown root each, 1..{}", kMaxLayers)},
          {"root", OptionType::String, "", "root of layer 0 (default: the lowest switch id)"}};
}

}  // namespace

RegistryRow<EngineFactory> mrootsRow() {
  return {"mroots", "UpDown with one root per layer, sources may use every layer; addressing: destination",
          "Lysne et al. 2006 §4.2 (MROOTS)", mrootsSchema(),
          [](const Options& options) { return makeMroots(options, true); }};
}

RegistryRow<EngineFactory> dMrootsRow() {
  return {"d-mroots", "UpDown with one root per layer, one layer per pair (in order); addressing: destination",
          "Lysne et al. 2006 §4.2, §8.1 (D-MROOTS)", mrootsSchema(),
          [](const Options& options) { return makeMroots(options, false); }};
}

}  // namespace routelab::irregular
