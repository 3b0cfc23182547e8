#include "engines/irregular/layering.h"

#include <fmt/format.h>
#include <algorithm>

#include "core/errors.h"

namespace routelab::irregular {

std::uint32_t RoutePool::addPath(std::span<const ChannelId> path) {
  channels_.insert(channels_.end(), path.begin(), path.end());
  start_.push_back(static_cast<std::uint32_t>(channels_.size()));
  isGroup_.push_back(0);
  return static_cast<std::uint32_t>(isGroup_.size() - 1);
}

std::uint32_t RoutePool::addGroup(std::span<const std::pair<ChannelId, ChannelId>> dependencies) {
  for (const auto& [from, to] : dependencies) {
    channels_.push_back(from);
    channels_.push_back(to);
  }
  start_.push_back(static_cast<std::uint32_t>(channels_.size()));
  isGroup_.push_back(1);
  return static_cast<std::uint32_t>(isGroup_.size() - 1);
}

bool tryAddRoute(ChannelDependencyGraph& cdg, const RoutePool& pool, std::uint32_t route, LayerId layer) {
  const auto channels = pool.channels(route);
  if (!pool.isGroup(route)) return cdg.tryAddPath(layer, channels);
  for (std::size_t i = 0; i < channels.size(); i += 2) {
    if (!cdg.tryAddPath(layer, channels.subspan(i, 2))) {
      for (std::size_t j = 0; j < i; j += 2) cdg.removePath(layer, channels.subspan(j, 2));
      return false;
    }
  }
  return true;
}

void removeRoute(ChannelDependencyGraph& cdg, const RoutePool& pool, std::uint32_t route, LayerId layer) {
  const auto channels = pool.channels(route);
  if (!pool.isGroup(route)) {
    cdg.removePath(layer, channels);
    return;
  }
  for (std::size_t i = 0; i < channels.size(); i += 2) cdg.removePath(layer, channels.subspan(i, 2));
}

namespace {
bool hasDependencies(const RoutePool& pool, std::uint32_t route) { return pool.channels(route).size() >= 2; }
}  // namespace

LayerAssignment assignLayers(ChannelDependencyGraph& cdg, const RoutePool& pool, std::size_t maxLayers,
                             std::span<const std::uint32_t> hint, std::string_view refusingEngine) {
  LayerAssignment result;
  result.layerOf.assign(pool.size(), RoutingResult::kNoLayer);
  result.layers = 1;
  maxLayers = std::min<std::size_t>(std::max<std::size_t>(maxLayers, 1), kMaxLayers);
  for (std::uint32_t route = 0; route < pool.size(); ++route) {
    if (!hasDependencies(pool, route)) {
      result.layerOf[route] = 0;
      continue;
    }
    bool placed = false;
    std::size_t hinted = RoutingResult::kNoLayer;
    if (!hint.empty() && hint[route] != UINT32_MAX) hinted = result.layerOf[hint[route]];
    if (hinted < result.layers && tryAddRoute(cdg, pool, route, LayerId::fromIndex(hinted))) {
      result.layerOf[route] = static_cast<std::uint8_t>(hinted);
      placed = true;
    }
    for (std::size_t layer = 0; layer < result.layers && !placed; ++layer) {
      if (layer == hinted) continue;
      if (tryAddRoute(cdg, pool, route, LayerId::fromIndex(layer))) {
        result.layerOf[route] = static_cast<std::uint8_t>(layer);
        placed = true;
      }
    }
    if (!placed && result.layers < maxLayers) {
      const LayerId fresh = cdg.addLayer();
      ++result.layers;
      if (tryAddRoute(cdg, pool, route, fresh)) {
        result.layerOf[route] = static_cast<std::uint8_t>(fresh.index());
        placed = true;
      } else {
        // A single route can be cyclic on its own only if it revisits a channel; shortest
        // paths and groups of shortest paths never do.
        throw RoutingError(fmt::format("route {} is cyclic on its own (not a shortest route)", route));
      }
    }
    if (!placed && !refusingEngine.empty()) {
      throw RoutingError(fmt::format(
          "{}: more than {} layers needed (route {} of {} fits in none of {} layers); at most {} layers are supported "
          "(kMaxLayers, InfiniBand's service levels); set max-layers=1..{} to route the rest by UpDown in one more "
          "layer (Lysne §8.4)",
          refusingEngine, maxLayers, route + 1, pool.size(), maxLayers, kMaxLayers, kMaxLayers));
    }
    if (!placed) ++result.unplaced;
  }
  return result;
}

std::string BudgetedLayers::neededText() const {
  return neededExact ? std::to_string(needed) : ">" + std::to_string(needed - 1);
}

BudgetedLayers assignLayersWithin(const Network& network, const RoutePool& pool, std::size_t maxLayers,
                                  const std::string& engine, std::span<const std::uint32_t> hint) {
  if (maxLayers > kMaxLayers) {
    throw RoutingError(fmt::format("{}: max-layers={} asked; at most {} layers are supported (kMaxLayers)", engine,
                                   maxLayers, kMaxLayers));
  }
  const std::size_t cap = maxLayers > 0 ? maxLayers : kMaxLayers;
  BudgetedLayers out{ChannelDependencyGraph(network, 1), {}, 0, true, false};
  // No budget: first-fit up to the limit, refused at the first route that fits in none.
  out.assignment = assignLayers(out.cdg, pool, cap, hint, maxLayers == 0 ? std::string_view(engine) : "");
  out.needed = out.assignment.layers;
  if (out.assignment.unplaced == 0) return out;
  out.needed = cap + 1;
  out.neededExact = false;
  out.updownLayer = true;
  const std::size_t kept = cap - 1;
  if (!hint.empty() && kept > 0) {
    out.cdg = ChannelDependencyGraph(network, 1);
    out.assignment = assignLayers(out.cdg, pool, kept, hint);
    return out;
  }
  // Cut at `kept` layers: the same as a run capped there (see layering.h).
  out.assignment.unplaced = 0;
  for (std::uint32_t route = 0; route < pool.size(); ++route) {
    std::uint8_t& layer = out.assignment.layerOf[route];
    if (layer != RoutingResult::kNoLayer && layer >= kept && hasDependencies(pool, route)) {
      removeRoute(out.cdg, pool, route, LayerId(layer));
    }
    if (layer == RoutingResult::kNoLayer || layer >= kept) {
      layer = RoutingResult::kNoLayer;
      ++out.assignment.unplaced;
    }
  }
  out.assignment.layers = kept;
  return out;
}

std::size_t balanceLayers(ChannelDependencyGraph& cdg, const RoutePool& pool, LayerAssignment& assignment) {
  if (assignment.layers < 2) return 0;
  std::vector<std::size_t> count(assignment.layers, 0);
  for (std::uint32_t route = 0; route < pool.size(); ++route) {
    if (assignment.layerOf[route] != RoutingResult::kNoLayer) ++count[assignment.layerOf[route]];
  }
  std::vector<std::size_t> order(assignment.layers);
  std::size_t moves = 0;
  bool moved = true;
  while (moved) {
    moved = false;
    for (std::uint32_t route = 0; route < pool.size(); ++route) {
      const std::uint8_t from = assignment.layerOf[route];
      if (from == RoutingResult::kNoLayer || !hasDependencies(pool, route)) continue;
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return count[a] < count[b]; });
      for (std::size_t to : order) {
        if (count[to] + 2 > count[from]) break;  // sorted: no emptier layer follows
        if (tryAddRoute(cdg, pool, route, LayerId::fromIndex(to))) {
          removeRoute(cdg, pool, route, LayerId(from));
          assignment.layerOf[route] = static_cast<std::uint8_t>(to);
          --count[from];
          ++count[to];
          ++moves;
          moved = true;
          break;
        }
      }
    }
  }
  return moves;
}

std::vector<std::uint16_t> enrichLayers(ChannelDependencyGraph& cdg, const RoutePool& pool,
                                        const LayerAssignment& assignment) {
  static_assert(kMaxLayers <= 16, "allowed-layer sets are 16-bit masks");
  if (assignment.layers > kMaxLayers) {
    throw RoutingError(fmt::format("{} layers needed; the layer sets of step 4 hold at most {} (kMaxLayers)",
                                   assignment.layers, kMaxLayers));
  }
  std::vector<std::uint16_t> allowed(pool.size(), 0);
  for (std::size_t layer = 0; layer < assignment.layers; ++layer) {
    for (std::uint32_t route = 0; route < pool.size(); ++route) {
      const std::uint8_t home = assignment.layerOf[route];
      if (home == RoutingResult::kNoLayer) continue;
      if (home == layer || !hasDependencies(pool, route) || tryAddRoute(cdg, pool, route, LayerId::fromIndex(layer))) {
        allowed[route] = static_cast<std::uint16_t>(allowed[route] | (1U << layer));
      }
    }
  }
  return allowed;
}

}  // namespace routelab::irregular
