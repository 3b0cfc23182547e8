// a-lash — Layered routing with switch adaptivity (Lysne et al. 2006 §7).
//
// For every pair of switches (s, d) and every link l leaving s on some shortest path to d
// (step 2.1), one address (step 2.1.1) names the group of all shortest paths s -> d that
// start with l (step 2.1.2); switches route it adaptively over all their minimal ports
// (candidate lists, least-used first). The group's dependencies — every pair of
// consecutive channels on those paths — go together into the first layer whose dependency
// graph stays acyclic (step 2.1.3; the first switch's injection dependency can never close
// a cycle, which is why grouping by l suffices). `balance=true` runs step 4: the group is
// also added to every further layer it fits in. By Theorem 3, packets of an address may
// move freely between all layers of its set: allowedLayers holds that set (with
// balance=false just the home layer). At most kMaxLayers = 16 layers (core/limits.h).
// `max-layers=L` (default 8, InfiniBand's data VLs; 0 = as many as needed, <= 16): when more
// than L layers would be needed, the groups keep L-1 layers and every group that does not
// fit is routed by UpDown in one last layer (§8.4, as lash: assignLayersWithin): its
// address stays, its allowed set is that layer alone, its route is UpDown's (deterministic).
// Address mode: pair only.
#include <fmt/format.h>
#include <algorithm>

#include "cdg/cdg.h"
#include "core/errors.h"
#include "engines/irregular/lash_common.h"
#include "engines/irregular/layering.h"
#include "engines/irregular/rows.h"
#include "engines/irregular/switch_view.h"

namespace routelab::irregular {

namespace {

struct ALashConfig {
  bool balance = false;
  std::size_t maxLayers = 0;
};

/// Is channel c (leaving switch x) on a shortest path from x to switch d?
bool minimalChannel(const SwitchView& view, std::uint32_t x, std::uint32_t d, ChannelId c) {
  return view.distance(view.targetSwitch(c), d) + 1 == view.distance(x, d);
}

/// First links per (s, d): the minimal channels leaving s (none when s == d).
std::vector<ChannelId> firstLinks(const SwitchView& view, std::uint32_t s, std::uint32_t d) {
  std::vector<ChannelId> out;
  if (s == d) return out;
  for (ChannelId c : view.links(s)) {
    if (minimalChannel(view, s, d, c)) out.push_back(c);
  }
  return out;
}

/// Step 2.1.2: one group per (s, d, first link l): the dependencies of all shortest paths
/// s -> d through l (a BFS over the switches whose distance to d decreases).
/// firstRoute[si * A + di] is the route of the pair's first link; the others follow.
struct FirstLinkGroups {
  RoutePool pool;
  std::vector<std::uint32_t> firstRoute;
};

FirstLinkGroups firstLinkGroups(const SwitchView& view) {
  const std::size_t switches = view.switchCount();
  const auto active = view.activeSwitches();
  const std::size_t activeCount = active.size();
  FirstLinkGroups groups;
  groups.firstRoute.assign(activeCount * activeCount, UINT32_MAX);
  std::vector<std::vector<ChannelId>> incoming(switches);
  std::vector<std::uint32_t> region;
  std::vector<std::uint8_t> inRegion(switches, 0);
  std::vector<std::pair<ChannelId, ChannelId>> dependencies;
  for (std::size_t si = 0; si < activeCount; ++si) {
    for (std::size_t di = 0; di < activeCount; ++di) {
      if (si == di) continue;
      const std::uint32_t s = active[si], d = active[di];
      groups.firstRoute[si * activeCount + di] = static_cast<std::uint32_t>(groups.pool.size());
      for (ChannelId l : firstLinks(view, s, d)) {
        dependencies.clear();
        const std::uint32_t t = view.targetSwitch(l);
        region.assign(1, t);
        inRegion[t] = 1;
        incoming[t].assign(1, l);
        for (std::size_t head = 0; head < region.size(); ++head) {  // BFS: distance to d decreases
          const std::uint32_t x = region[head];
          if (x == d) continue;
          for (ChannelId c : view.links(x)) {
            if (!minimalChannel(view, x, d, c)) continue;
            for (ChannelId in : incoming[x]) dependencies.emplace_back(in, c);
            const std::uint32_t y = view.targetSwitch(c);
            if (!inRegion[y]) {
              inRegion[y] = 1;
              incoming[y].clear();
              region.push_back(y);
            }
            incoming[y].push_back(c);
          }
        }
        for (std::uint32_t x : region) inRegion[x] = 0;
        groups.pool.addGroup(dependencies);
      }
    }
  }
  return groups;
}

/// The adaptive table: address a (the k-th first link l of its source switch s) leaves s
/// through l; every switch of the region below l offers all its minimal ports, the least
/// used first. Returns the route (group) of every address in `routeOfAddress`
/// (UINT32_MAX: source and destination on one switch).
ForwardingTable aLashTable(const SwitchView& view, const PairAddresses& pairAddresses, const AddressMap& addresses,
                           const FirstLinkGroups& groups, std::vector<std::uint32_t>& routeOfAddress) {
  const Network& network = view.network();
  const std::size_t activeCount = view.activeSwitches().size();
  ForwardingTable table(view.switchCount(), addresses.count());
  routeOfAddress.assign(addresses.count(), UINT32_MAX);
  std::vector<std::uint32_t> use(network.channelCount(), 0);
  std::vector<std::uint32_t> region;
  std::vector<std::uint8_t> inRegion(view.switchCount(), 0);
  std::vector<PortNumber> ports;
  for (Address a = 0; a < addresses.count(); ++a) {
    const NodeId owner = addresses.owner(a);
    const std::uint32_t d = view.attachedSwitch(owner);
    table.set(d, a, view.deliveryPort(owner));
    const auto [s, k] = pairAddresses.sourceOf(view, a);
    if (s == d) continue;
    routeOfAddress[a] = groups.firstRoute[view.activeIndex(s) * activeCount + view.activeIndex(d)] + k;
    const ChannelId l = firstLinks(view, s, d)[k];
    table.set(s, a, network.sourcePort(l));
    region.assign(1, view.targetSwitch(l));
    inRegion[region[0]] = 1;
    for (std::size_t head = 0; head < region.size(); ++head) {
      const std::uint32_t x = region[head];
      if (x == d) continue;
      ChannelId best;
      ports.clear();
      for (ChannelId c : view.links(x)) {
        if (!minimalChannel(view, x, d, c)) continue;
        if (!best.valid() || use[c.index()] < use[best.index()]) best = c;
        const std::uint32_t y = view.targetSwitch(c);
        if (!inRegion[y]) {
          inRegion[y] = 1;
          region.push_back(y);
        }
      }
      ++use[best.index()];
      ports.push_back(network.sourcePort(best));
      for (ChannelId c : view.links(x)) {
        if (minimalChannel(view, x, d, c) && c != best) ports.push_back(network.sourcePort(c));
      }
      table.setCandidates(x, a, ports);
    }
    for (std::uint32_t x : region) inRegion[x] = 0;
  }
  return table;
}

RoutingResult runALash(const Network& network, const RoutingContext& context, const ALashConfig& config) {
  const SwitchView view(network, context.routeSwitches);
  PairAddresses pairAddresses = makePairAddresses(view, context, [&](std::uint32_t s, std::uint32_t d) {
    return s == d ? 1U : static_cast<std::uint32_t>(firstLinks(view, s, d).size());
  });
  const FirstLinkGroups groups = firstLinkGroups(view);
  // Step 2.1.3 (first-fit) within max-layers, the rest by UpDown (§8.4); step 4 on the
  // first-fit layers only.
  BudgetedLayers layering = assignLayersWithin(network, groups.pool, config.maxLayers, "a-lash");
  const LayerAssignment& assignment = layering.assignment;
  const std::size_t updownIndex = layering.routeLayers();
  std::vector<std::uint16_t> allowed;
  if (config.balance) allowed = enrichLayers(layering.cdg, groups.pool, assignment);

  RoutingResult result;
  result.addresses = pairAddresses.map;
  pairAddresses.applySourceClasses(view, result);
  std::vector<std::uint32_t> routeOfAddress;
  result.tables.push_back(aLashTable(view, pairAddresses, result.addresses, groups, routeOfAddress));
  result.tableOfLayer.assign(layering.layers(), 0);
  if (layering.updownLayer) appendUpDownLayer(view, result);
  pairAddresses.assignLayers(view, result, true, [&](Address a) {
    const std::uint32_t route = routeOfAddress[a];
    std::uint8_t home = route == UINT32_MAX ? 0 : assignment.layerOf[route];
    if (home == RoutingResult::kNoLayer) home = static_cast<std::uint8_t>(updownIndex);  // the UpDown layer
    const std::uint16_t set = config.balance && route != UINT32_MAX && home != updownIndex
                                  ? allowed[route]
                                  : static_cast<std::uint16_t>(1U << home);
    return std::pair(home, set);
  });
  result.deterministic = false;
  result.minimal = !layering.updownLayer;
  result.stats.emplace_back("addressing", "pair");
  result.stats.emplace_back("groups", std::to_string(groups.pool.size()));
  appendLayerStats(result, layering, "groups");
  return result;
}

}  // namespace

RegistryRow<EngineFactory> aLashRow() {
  return {"a-lash",
          "switch-adaptive shortest paths, layers per first-link group (Thm 3); addressing: pair",
          "Lysne et al. 2006 §7 (A-LASH), Theorem 3, §8.4 (UpDown layer when max-layers is short)",
          {{"balance", OptionType::Flag, "false", "step 4: every group also in every further layer it fits"},
           maxLayersOption("groups")},
          [](const Options& options) -> RoutingFunction {
            ALashConfig config;
            config.balance = options.flag("balance");
            config.maxLayers = maxLayers(options);
            return [config](const Network& network, const RoutingContext& context) {
              return runALash(network, context, config);
            };
          }};
}

}  // namespace routelab::irregular
