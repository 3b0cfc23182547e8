#include "engines/irregular/lash_common.h"

#include <fmt/format.h>
#include <algorithm>

#include "core/errors.h"
#include "engines/irregular/updown.h"

namespace routelab::irregular {

PairAddresses makePairAddresses(const SwitchView& view, const RoutingContext& context,
                                const std::function<std::uint32_t(std::uint32_t s, std::uint32_t d)>& count) {
  if (context.addressesPerTerminal != 1) {
    throw SpecError(
        "addressing=pair assigns one address per source switch and path; LMC addresses (lmc > 0) "
        "cannot be combined with it");
  }
  const Network& network = view.network();
  const auto active = view.activeSwitches();
  PairAddresses out;
  out.activeCount = active.size();
  out.counts.assign(view.switchCount() * active.size(), 0);
  for (std::uint32_t d : active) {
    for (std::size_t i = 0; i < active.size(); ++i) {
      const std::uint32_t pairPaths = count(active[i], d);
      out.counts[d * active.size() + i] = pairPaths;
      out.paths = std::max(out.paths, pairPaths);
    }
  }
  const auto blockSize = static_cast<std::uint64_t>(out.paths) * active.size();
  std::vector<std::pair<NodeId, std::uint32_t>> blocks;
  std::uint64_t total = 0;
  auto add = [&](NodeId owner) {
    blocks.emplace_back(owner, static_cast<std::uint32_t>(blockSize));
    total += blockSize;
  };
  for (NodeId t : network.terminals()) add(t);
  if (context.routeSwitches) {
    for (NodeId s : network.switches()) add(s);
  }
  if (total * std::max<std::size_t>(view.switchCount(), 1) > (std::uint64_t{1} << 28)) {
    throw RoutingError(
        fmt::format("per-pair addressing needs {} addresses on {} switches (over 2^28 table entries); "
                    "use fewer paths (max-paths) or addressing=destination",
                    total, view.switchCount()));
  }
  out.map = AddressMap::fromBlocks(network, std::move(blocks), {});
  return out;
}

std::pair<std::uint32_t, std::uint32_t> PairAddresses::sourceOf(const SwitchView& view, Address a) const {
  const NodeId owner = map.owner(a);
  const std::uint32_t d = view.attachedSwitch(owner);
  const std::uint32_t offset = map.offset(a);
  const auto index = static_cast<std::size_t>(offset % activeCount);
  const std::uint32_t k = static_cast<std::uint32_t>(offset / activeCount);
  const std::uint32_t pairPaths = counts[d * activeCount + index];
  return {view.activeSwitches()[index], pairPaths == 0 ? 0 : k % pairPaths};
}

void PairAddresses::applySourceClasses(const SwitchView& view, RoutingResult& result) const {
  result.sourceClasses = static_cast<std::uint32_t>(activeCount);
  const auto owners = result.addresses.owners();
  result.sourceClassOf.assign(owners.size(), 0);
  for (std::size_t i = 0; i < owners.size(); ++i) {
    result.sourceClassOf[i] = view.activeIndex(view.attachedSwitch(owners[i]));
  }
}

void PairAddresses::assignLayers(const SwitchView& view, RoutingResult& result, bool withAllowed,
                                 const std::function<std::pair<std::uint8_t, std::uint16_t>(Address)>& layerFor) const {
  const AddressMap& addresses = result.addresses;
  const auto sourceSwitch = sourceSwitches(view, addresses);
  std::vector<std::vector<std::size_t>> sourcesOf(view.switchCount());
  for (std::size_t source = 0; source < sourceSwitch.size(); ++source)
    sourcesOf[sourceSwitch[source]].push_back(source);
  result.layerOf.assign(sourceSwitch.size() * addresses.count(), RoutingResult::kNoLayer);
  if (withAllowed) result.allowedLayers.assign(result.layerOf.size(), 0);
  for (Address a = 0; a < addresses.count(); ++a) {
    const auto [layer, allowed] = layerFor(a);
    for (std::size_t source : sourcesOf[sourceOf(view, a).first]) {
      const std::size_t entry = source * addresses.count() + a;
      result.layerOf[entry] = layer;
      if (withAllowed) result.allowedLayers[entry] = allowed;
    }
  }
}

void appendUpDownLayer(const SwitchView& view, RoutingResult& result) {
  const UpDown updown(view, view.lowestSwitch(), SpanningTree::BreadthFirst);
  const AddressesBySwitch groups = groupAddresses(view, result.addresses);
  result.tables.push_back(
      balancedTable(view, result.addresses, groups, [&](std::uint32_t d, HopSets& out) { updown.nextHops(d, out); }));
  result.tableOfLayer.back() = static_cast<std::uint16_t>(result.tables.size() - 1);
}

void appendLayerStats(RoutingResult& result, const BudgetedLayers& layering, const std::string& unit) {
  result.stats.emplace_back("layers_needed", layering.neededText());
  result.stats.emplace_back("layers", std::to_string(layering.layers()));
  if (layering.updownLayer) {
    result.stats.emplace_back("updown_layer", std::to_string(layering.routeLayers()));
    result.stats.emplace_back("updown_" + unit, std::to_string(layering.updownRoutes()));
  }
}

OptionSpec maxLayersOption(const std::string& unit) {
  return {"max-layers", OptionType::Integer, std::to_string(kDefaultMaxLayers),
          fmt::format("at most this many layers, 0..{} (kMaxLayers: InfiniBand's service levels; default {}, the data "
                      "VLs of a fabric as it comes); when more are needed, the {} that do not fit go to a last layer "
                      "routed by UpDown (§8.4); 0 = as many as needed, refused beyond {}",
                      kMaxLayers, kDefaultMaxLayers, unit, kMaxLayers)};
}

std::size_t maxLayers(const Options& options) {
  return static_cast<std::size_t>(options.integerIn("max-layers", 0, static_cast<std::int64_t>(kMaxLayers)));
}

bool pairAddressing(const Options& options) {
  const std::string& mode = options.string("addressing");
  if (mode == "pair") return true;
  if (mode == "destination") return false;
  throw SpecError(
      fmt::format("{}: option 'addressing' must be 'destination' or 'pair', got '{}'", options.component(), mode));
}

}  // namespace routelab::irregular
