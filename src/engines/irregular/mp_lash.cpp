// mp-lash — Layered routing with multiple shortest paths, source adaptive (Lysne et al.
// 2006 §6). Every shortest path between every pair of switches gets its own address
// (per-pair addressing, §6 step 2.1; terminals of one switch share its addresses) and goes
// to the first layer whose dependency graph stays acyclic (step 2.2). `balance=true` runs
// the optional step 4: every path is also added to every further layer it fits in, and the
// source may choose among those layers (allowedLayers). `max-paths=N`
// keeps only the first N shortest paths per pair in port order (0 = all, as in the paper).
// `max-layers=L` (default 8, InfiniBand's data VLs; 0 = as many as needed up to kMaxLayers = 16): when more than L
// layers would be needed, the paths keep L-1 layers and every path that does not fit is
// routed by UpDown in one last layer (§8.4, as lash: assignLayersWithin) — its address
// stays, only its route changes, so no path is dropped.
// Address mode: pair only (a destination-based table cannot hold every shortest path).
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

struct MpLashConfig {
  bool balance = false;
  std::size_t maxLayers = 0;
  std::uint32_t maxPaths = 0;
};

/// Appends all shortest switch paths s -> d (channel lists, port order, at most `limit`
/// when limit > 0) to `pool`; returns how many.
std::uint32_t enumeratePaths(const SwitchView& view, std::uint32_t s, std::uint32_t d, std::uint32_t limit,
                             RoutePool& pool) {
  std::uint32_t count = 0;
  std::vector<ChannelId> path;
  // Iterative DFS over the minimal DAG: stack of (switch, next link position).
  std::vector<std::pair<std::uint32_t, std::size_t>> stack{{s, 0}};
  while (!stack.empty()) {
    auto& [x, position] = stack.back();
    if (x == d) {
      pool.addPath(path);
      ++count;
      if (limit > 0 && count >= limit) break;
      stack.pop_back();
      if (!path.empty()) path.pop_back();
      continue;
    }
    const auto links = view.links(x);
    bool descended = false;
    while (position < links.size()) {
      const ChannelId c = links[position++];
      const std::uint32_t y = view.targetSwitch(c);
      if (view.distance(y, d) + 1 == view.distance(x, d)) {
        path.push_back(c);
        stack.emplace_back(y, 0);
        descended = true;
        break;
      }
    }
    if (!descended) {
      stack.pop_back();
      if (!path.empty()) path.pop_back();
    }
  }
  return count;
}

/// Number of shortest paths s -> d, saturating at `cap`.
std::uint64_t countPaths(const SwitchView& view, std::uint32_t d, std::vector<std::uint64_t>& paths,
                         std::uint64_t cap) {
  const std::size_t switches = view.switchCount();
  std::vector<std::uint32_t> order;
  for (std::uint32_t x = 0; x < switches; ++x) {
    if (view.distance(x, d) != kFar) order.push_back(x);
  }
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return view.distance(a, d) < view.distance(b, d); });
  paths.assign(switches, 0);
  paths[d] = 1;
  for (std::uint32_t x : order) {
    if (x == d) continue;
    std::uint64_t total = 0;
    for (ChannelId c : view.links(x)) {
      const std::uint32_t y = view.targetSwitch(c);
      if (view.distance(y, d) + 1 == view.distance(x, d)) total = std::min(cap, total + paths[y]);
    }
    paths[x] = total;
  }
  return cap;
}

RoutingResult runMpLash(const Network& network, const RoutingContext& context, const MpLashConfig& config) {
  const SwitchView view(network, context.routeSwitches);
  const std::size_t switches = view.switchCount();
  const auto active = view.activeSwitches();
  const std::size_t activeCount = active.size();

  // Path counts per (s, d), capped, to lay out the addresses before enumerating.
  const std::uint64_t cap = config.maxPaths > 0 ? config.maxPaths : (std::uint64_t{1} << 24);
  std::vector<std::uint32_t> pathCount(switches * switches, 0);
  std::vector<std::uint64_t> paths;
  for (std::uint32_t d : active) {
    countPaths(view, d, paths, cap);
    for (std::uint32_t s : active) pathCount[s * switches + d] = s == d ? 1 : static_cast<std::uint32_t>(paths[s]);
  }
  PairAddresses pairAddresses =
      makePairAddresses(view, context, [&](std::uint32_t s, std::uint32_t d) { return pathCount[s * switches + d]; });

  RoutePool pool;
  std::vector<std::uint32_t> firstRoute(activeCount * activeCount, UINT32_MAX);
  for (std::size_t si = 0; si < activeCount; ++si) {
    for (std::size_t di = 0; di < activeCount; ++di) {
      if (si == di) continue;
      firstRoute[si * activeCount + di] = static_cast<std::uint32_t>(pool.size());
      enumeratePaths(view, active[si], active[di], config.maxPaths, pool);
    }
  }
  // Step 2.2 (first-fit) within max-layers, the rest by UpDown (§8.4); step 4 on the
  // first-fit layers only (the UpDown layer's paths keep their one layer).
  BudgetedLayers layering = assignLayersWithin(network, pool, config.maxLayers, "mp-lash");
  const LayerAssignment& assignment = layering.assignment;
  const std::size_t updownIndex = layering.routeLayers();
  std::vector<std::uint16_t> allowed;
  if (config.balance) allowed = enrichLayers(layering.cdg, pool, assignment);

  RoutingResult result;
  result.addresses = pairAddresses.map;
  pairAddresses.applySourceClasses(view, result);
  const AddressMap& addresses = result.addresses;
  ForwardingTable table(switches, addresses.count());
  std::vector<std::uint32_t> routeOfAddress(addresses.count(), UINT32_MAX);
  for (Address a = 0; a < addresses.count(); ++a) {
    const NodeId owner = addresses.owner(a);
    const std::uint32_t d = view.attachedSwitch(owner);
    table.set(d, a, view.deliveryPort(owner));
    const auto [s, k] = pairAddresses.sourceOf(view, a);
    if (s == d) continue;
    routeOfAddress[a] = firstRoute[view.activeIndex(s) * activeCount + view.activeIndex(d)] + k;
    for (ChannelId c : pool.channels(routeOfAddress[a])) table.set(view.sourceSwitch(c), a, network.sourcePort(c));
  }
  result.tables.push_back(std::move(table));
  result.tableOfLayer.assign(layering.layers(), 0);
  if (layering.updownLayer) appendUpDownLayer(view, result);
  pairAddresses.assignLayers(view, result, config.balance, [&](Address a) {
    const std::uint32_t route = routeOfAddress[a];
    if (route == UINT32_MAX) return std::pair<std::uint8_t, std::uint16_t>(0, config.balance ? 1 : 0);
    if (assignment.layerOf[route] == RoutingResult::kNoLayer) {  // the UpDown layer
      return std::pair(static_cast<std::uint8_t>(updownIndex),
                       static_cast<std::uint16_t>(config.balance ? 1U << updownIndex : 0));
    }
    return std::pair(assignment.layerOf[route], config.balance ? allowed[route] : std::uint16_t{0});
  });
  result.deterministic = true;
  result.minimal = !layering.updownLayer;
  result.stats.emplace_back("addressing", "pair");
  result.stats.emplace_back("paths", std::to_string(pool.size()));
  appendLayerStats(result, layering, "paths");
  return result;
}

}  // namespace

RegistryRow<EngineFactory> mpLashRow() {
  return {"mp-lash",
          "all shortest paths, one address each, source adaptive; addressing: pair",
          "Lysne et al. 2006 §6 (MP-LASH), step 4 optional, §8.4 (UpDown layer when max-layers is short)",
          {{"balance", OptionType::Flag, "false", "step 4: every path also in every further layer it fits"},
           maxLayersOption("paths"),
           {"max-paths", OptionType::Integer, "0", "shortest paths per switch pair, first in port order; 0 = all"}},
          [](const Options& options) -> RoutingFunction {
            MpLashConfig config;
            config.balance = options.flag("balance");
            config.maxLayers = maxLayers(options);
            config.maxPaths = static_cast<std::uint32_t>(options.integerIn("max-paths", 0, 1 << 20));
            return [config](const Network& network, const RoutingContext& context) {
              return runMpLash(network, context, config);
            };
          }};
}

}  // namespace routelab::irregular
