// lash — Layered Shortest Path routing (Lysne et al. 2006 §5.1; Skeie et al. IPDPS 2002).
//
// One shortest path per pair of switches (terminals on the same switch pair share it, as
// OpenSM's LASH does); each path goes to the first layer whose dependency graph stays
// acyclic (steps 2–3, incremental cycle detection in cdg/), opening layers as needed; the
// number of layers needed is reported (stats "layers_needed": "N", or ">L" when the budget L
// cut first-fit short). `balance=true` runs the
// balancing step 4. `max-layers=L` (default 8, the data VLs of an InfiniBand fabric as it
// comes; 0 = as many as needed): when more than L layers would be needed, LASH uses L-1
// layers and every pair that does not fit goes to an extra layer routed by UpDown (§8.4) —
// never dropped (assignLayersWithin, shared with mp-lash and a-lash).
// `fit=first` (default): the paper's first-fit in (source, destination) order, as OpenSM;
// `fit=suffix`: a speed hint (destination mode), see the row's help and docs/LAYERED.md.
//
// Address modes:
//   addressing=destination (default, InfiniBand compatible): every destination switch gets
//     one shortest-path tree (balanced: least-used minimal channel per switch), so all
//     paths to one address form a tree and one LFT serves all layers; the layer of a pair
//     is its service level.
//   addressing=pair (§5.1 step 2.1): one address per (source switch, destination); each
//     pair's path is chosen on its own (least-used minimal channel hop by hop).
#include <algorithm>

#include <fmt/format.h>

#include "cdg/cdg.h"
#include "core/errors.h"
#include "engines/irregular/lash_common.h"
#include "engines/irregular/layering.h"
#include "engines/irregular/rows.h"
#include "engines/irregular/switch_view.h"

namespace routelab::irregular {

namespace {

struct LashConfig {
  bool pair = false;
  bool balance = false;
  std::size_t maxLayers = 0;  // 0 = as many as needed
  bool suffixHint = false;    // fit=suffix (destination mode only)
};

/// Destination mode, §5.1 step 2: one balanced shortest-path tree per active destination
/// switch (least-used minimal channel per switch, a channel's use weighted by the addresses
/// of the destination). treeNext[d * S + x] is the channel switch x takes towards d.
struct DestinationTrees {
  AddressMap addresses;
  AddressesBySwitch groups;
  std::vector<ChannelId> treeNext;
};

DestinationTrees destinationTrees(const SwitchView& view, const RoutingContext& context,
                                  std::vector<std::uint32_t>& use) {
  const std::size_t switches = view.switchCount();
  DestinationTrees trees;
  trees.addresses = destinationAddresses(view.network(), context);
  trees.groups = groupAddresses(view, trees.addresses);
  trees.treeNext.assign(switches * switches, ChannelId());
  HopSets hops;
  for (std::uint32_t d : view.activeSwitches()) {
    minimalHops(view, d, hops);
    const auto weight = static_cast<std::uint32_t>(std::max<std::size_t>(trees.groups.at(d).size(), 1));
    for (std::uint32_t x = 0; x < switches; ++x) {
      const auto set = hops.at(x);
      if (set.empty()) continue;
      ChannelId best = set[0];
      for (ChannelId c : set) {
        if (use[c.index()] < use[best.index()]) best = c;
      }
      use[best.index()] += weight;
      trees.treeNext[d * switches + x] = best;
    }
  }
  return trees;
}

/// The order in which pairs (source, destination active indices) get their path and then
/// their layer. fit=first: (source, destination) order, as OpenSM's LASH. fit=suffix: by
/// destination, sources by increasing distance, so that the suffix pair (next switch, d) of
/// every path is placed before it and its layer can be tried first.
std::vector<std::pair<std::uint32_t, std::uint32_t>> pairOrder(const SwitchView& view, bool suffixHint) {
  const auto active = view.activeSwitches();
  const std::size_t activeCount = active.size();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order;
  order.reserve(activeCount * activeCount);
  if (suffixHint) {
    std::vector<std::uint32_t> sources(activeCount);
    for (std::uint32_t di = 0; di < activeCount; ++di) {
      for (std::size_t i = 0; i < activeCount; ++i) sources[i] = static_cast<std::uint32_t>(i);
      std::stable_sort(sources.begin(), sources.end(), [&](std::uint32_t a, std::uint32_t b) {
        return view.distance(active[a], active[di]) < view.distance(active[b], active[di]);
      });
      for (std::uint32_t si : sources) order.emplace_back(si, di);
    }
  } else {
    for (std::uint32_t si = 0; si < activeCount; ++si) {
      for (std::uint32_t di = 0; di < activeCount; ++di) order.emplace_back(si, di);
    }
  }
  return order;
}

/// §5.1 step 2: one shortest path per ordered pair of distinct active switches, in
/// `pairOrder` order: along the destination's tree, or (pair mode) the least-used minimal
/// channel hop by hop. routeOf[si * A + di] is the pair's route in `pool`; `hint` (fit=suffix)
/// the route of each path's suffix pair.
struct SwitchPaths {
  RoutePool pool;
  std::vector<std::uint32_t> routeOf;
  std::vector<std::uint32_t> hint;
};

SwitchPaths switchPaths(const SwitchView& view, const LashConfig& config, const std::vector<ChannelId>& treeNext,
                        std::vector<std::uint32_t>& use) {
  const std::size_t switches = view.switchCount();
  const auto active = view.activeSwitches();
  const std::size_t activeCount = active.size();
  SwitchPaths paths;
  paths.routeOf.assign(activeCount * activeCount, UINT32_MAX);
  std::vector<ChannelId> path;
  for (const auto& [si, di] : pairOrder(view, config.suffixHint)) {
    if (si == di) continue;
    const std::uint32_t s = active[si], d = active[di];
    path.clear();
    for (std::uint32_t x = s; x != d;) {
      ChannelId next;
      if (!config.pair) {
        next = treeNext[d * switches + x];
      } else {
        for (ChannelId c : view.links(x)) {
          if (view.distance(view.targetSwitch(c), d) + 1 == view.distance(x, d) &&
              (!next.valid() || use[c.index()] < use[next.index()])) {
            next = c;
          }
        }
        ++use[next.index()];
      }
      path.push_back(next);
      x = view.targetSwitch(next);
    }
    paths.routeOf[si * activeCount + di] = paths.pool.addPath(path);
    if (config.suffixHint) {
      const std::uint32_t next = view.targetSwitch(path.front());
      paths.hint.push_back(next != d && view.isActive(next) ? paths.routeOf[view.activeIndex(next) * activeCount + di]
                                                            : UINT32_MAX);
    }
  }
  return paths;
}

/// The one forwarding table (all layers share it): the destination trees, or (pair mode)
/// each address's own path from its source switch.
ForwardingTable lashTable(const SwitchView& view, const LashConfig& config, const AddressMap& addresses,
                          const std::vector<ChannelId>& treeNext, const PairAddresses& pairAddresses,
                          const SwitchPaths& paths) {
  const Network& network = view.network();
  const std::size_t switches = view.switchCount();
  const std::size_t activeCount = view.activeSwitches().size();
  ForwardingTable table(switches, addresses.count());
  for (Address a = 0; a < addresses.count(); ++a) {
    const NodeId owner = addresses.owner(a);
    const std::uint32_t d = view.attachedSwitch(owner);
    table.set(d, a, view.deliveryPort(owner));
    if (!config.pair) {
      for (std::uint32_t x = 0; x < switches; ++x) {
        const ChannelId next = treeNext[d * switches + x];
        if (x != d && next.valid()) table.set(x, a, network.sourcePort(next));
      }
    } else {
      const std::uint32_t s = pairAddresses.sourceOf(view, a).first;
      if (s == d) continue;
      for (ChannelId c : paths.pool.channels(paths.routeOf[view.activeIndex(s) * activeCount + view.activeIndex(d)])) {
        table.set(view.sourceSwitch(c), a, network.sourcePort(c));
      }
    }
  }
  return table;
}

/// result.layerOf per (source, address): the layer of the source's switch pair; pairs on
/// one switch use layer 0; pairs that did not fit the budget use the UpDown layer
/// (index `lashLayers`); in pair mode an address of another source switch is kNoLayer.
void lashLayerOf(const SwitchView& view, const LashConfig& config, const AddressesBySwitch& groups,
                 const PairAddresses& pairAddresses, const SwitchPaths& paths, const LayerAssignment& assignment,
                 std::size_t lashLayers, RoutingResult& result) {
  const AddressMap& addresses = result.addresses;
  const std::size_t activeCount = view.activeSwitches().size();
  const auto sourceSwitch = sourceSwitches(view, addresses);
  result.layerOf.assign(sourceSwitch.size() * addresses.count(), 0);
  for (std::size_t source = 0; source < sourceSwitch.size(); ++source) {
    const std::uint32_t s = sourceSwitch[source];
    for (Address a = 0; a < addresses.count(); ++a) {
      std::uint8_t& layer = result.layerOf[source * addresses.count() + a];
      const std::uint32_t d = groups.switchOf[a];
      if (config.pair && pairAddresses.sourceOf(view, a).first != s) {
        layer = RoutingResult::kNoLayer;
        continue;
      }
      if (s == d) {
        layer = 0;
        continue;
      }
      const std::uint8_t assigned =
          assignment.layerOf[paths.routeOf[view.activeIndex(s) * activeCount + view.activeIndex(d)]];
      layer = assigned == RoutingResult::kNoLayer ? static_cast<std::uint8_t>(lashLayers) : assigned;
    }
  }
}

RoutingResult runLash(const Network& network, const RoutingContext& context, const LashConfig& config) {
  const SwitchView view(network, context.routeSwitches);
  // Step 2: one shortest path per ordered pair of active switches.
  std::vector<std::uint32_t> use(network.channelCount(), 0);
  DestinationTrees trees;
  if (!config.pair) trees = destinationTrees(view, context, use);
  const SwitchPaths paths = switchPaths(view, config, trees.treeNext, use);

  // Steps 2.2–3: layers as needed; beyond max-layers the rest by UpDown in one more layer
  // (§8.4, shared with mp-lash and a-lash: assignLayersWithin).
  BudgetedLayers layering = assignLayersWithin(network, paths.pool, config.maxLayers, "lash", paths.hint);
  LayerAssignment& assignment = layering.assignment;
  const bool updownLayer = layering.updownLayer;
  std::size_t moves = 0;
  if (config.balance) moves = balanceLayers(layering.cdg, paths.pool, assignment);
  const std::size_t lashLayers = layering.routeLayers();

  RoutingResult result;
  PairAddresses pairAddresses;
  AddressesBySwitch groups = std::move(trees.groups);
  if (config.pair) {
    pairAddresses = makePairAddresses(view, context, [&](std::uint32_t, std::uint32_t) { return 1U; });
    result.addresses = pairAddresses.map;
    pairAddresses.applySourceClasses(view, result);
    groups = groupAddresses(view, result.addresses);
  } else {
    result.addresses = std::move(trees.addresses);
  }
  result.tables.push_back(lashTable(view, config, result.addresses, trees.treeNext, pairAddresses, paths));
  result.tableOfLayer.assign(layering.layers(), 0);
  if (updownLayer) appendUpDownLayer(view, result);
  lashLayerOf(view, config, groups, pairAddresses, paths, assignment, lashLayers, result);
  result.deterministic = true;
  result.minimal = !updownLayer;
  result.stats.emplace_back("addressing", config.pair ? "pair" : "destination");
  result.stats.emplace_back("switch_pairs", std::to_string(paths.pool.size()));
  appendLayerStats(result, layering, "switch_pairs");
  if (config.balance) result.stats.emplace_back("balancing_moves", std::to_string(moves));
  return result;
}

}  // namespace

RegistryRow<EngineFactory> lashRow() {
  return {"lash",
          "layered shortest paths, one path per switch pair, minimal layers; addressing: destination|pair",
          "Lysne et al. 2006 §5.1 (steps 1-4), §8.4 (UpDown layer when max-layers is short)",
          {{"addressing", OptionType::String, "destination", "destination (tree per destination, IB) or pair"},
           {"balance", OptionType::Flag, "false", "run the balancing step 4"},
           maxLayersOption("pairs"),
           {"fit", OptionType::String, "first",
            "first (first-fit in source order: the paper's and OpenSM's LASH) or suffix (destination mode: pairs by "
            "destination, the suffix pair's layer tried first; faster, may need one layer more)"}},
          [](const Options& options) -> RoutingFunction {
            LashConfig config;
            config.pair = pairAddressing(options);
            config.balance = options.flag("balance");
            config.maxLayers = maxLayers(options);
            const std::string& fit = options.string("fit");
            if (fit != "suffix" && fit != "first") {
              throw SpecError("lash: option 'fit' must be 'suffix' or 'first', got '" + fit + "'");
            }
            config.suffixHint = fit == "suffix" && !config.pair;
            return [config](const Network& network, const RoutingContext& context) {
              return runLash(network, context, config);
            };
          }};
}

}  // namespace routelab::irregular
