// routelab/engines/irregular/layering.h — LASH's layer assignment (Lysne et al. 2006 §5.1 steps 2–4,
// §6, §7), shared by lash, mp-lash and a-lash, on the one channel dependency graph of
// cdg/cdg.h.
//
// A "route" is what gets one layer: a path (LASH, MP-LASH) or a group of paths given as
// its set of dependencies (A-LASH: all shortest paths leaving the source switch by one
// link, §7 step 2.1.2). Routes are stored in one pool of switch-to-switch channel lists;
// a group is stored as consecutive two-channel paths (one per dependency).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cdg/cdg.h"
#include "core/limits.h"
#include "routing/routing_result.h"

namespace routelab::irregular {

/// Routes as channel lists. A route is either a path (its consecutive channel pairs are
/// its dependencies) or a group (a list of dependencies, each stored as two channels).
class RoutePool {
 public:
  /// Append a path; returns its route index.
  std::uint32_t addPath(std::span<const ChannelId> path);
  /// Append a group of dependencies (from[i] -> to[i]); returns its route index.
  std::uint32_t addGroup(std::span<const std::pair<ChannelId, ChannelId>> dependencies);

  std::size_t size() const { return isGroup_.size(); }
  bool isGroup(std::uint32_t route) const { return isGroup_[route] != 0; }
  std::span<const ChannelId> channels(std::uint32_t route) const {
    return {channels_.data() + start_[route], channels_.data() + start_[route + 1]};
  }

 private:
  std::vector<std::uint32_t> start_{0};
  std::vector<ChannelId> channels_;
  std::vector<std::uint8_t> isGroup_;
};

/// Adds `route` to `layer` unless that closes a cycle (atomically for groups: partial
/// additions are rolled back). Returns whether it was added.
bool tryAddRoute(ChannelDependencyGraph& cdg, const RoutePool& pool, std::uint32_t route, LayerId layer);
void removeRoute(ChannelDependencyGraph& cdg, const RoutePool& pool, std::uint32_t route, LayerId layer);

struct LayerAssignment {
  std::vector<std::uint8_t> layerOf;  ///< per route; RoutingResult::kNoLayer = did not fit
  std::size_t layers = 0;             ///< layers opened
  std::size_t unplaced = 0;           ///< routes with kNoLayer
};

/// §5.1 steps 2–3: every route, in pool order, goes to the first layer whose dependency
/// graph stays acyclic; a new layer is opened when none fits and fewer than `maxLayers`
/// exist (the "modified version ... which is always able to provide another virtual layer
/// on a per need basis" of §5.2). Routes without dependencies go to layer 0. Cost: routes ×
/// layers tried × one incremental (Pearce–Kelly) insertion. `cdg` must be empty with one
/// layer; it holds the final layers afterwards.
/// `hint` (optional, per route): a route whose layer to try first (UINT32_MAX = none) — §5.1
/// step 2.2 asks for *an* existing layer that stays acyclic, not the first; destination-mode
/// LASH hints the pair of the path's suffix, whose layer already holds all but one of the
/// path's dependencies, which saves most failed cycle searches.
/// `refusingEngine` (optional): when not empty, a route that fits in none of `maxLayers`
/// layers throws RoutingError at once, naming the engine, the route, the layers needed and
/// kMaxLayers, instead of being left unplaced (no budget: the engine cannot go on).
/// `maxLayers` is capped at kMaxLayers (core/limits.h).
LayerAssignment assignLayers(ChannelDependencyGraph& cdg, const RoutePool& pool, std::size_t maxLayers,
                             std::span<const std::uint32_t> hint = {}, std::string_view refusingEngine = {});

/// Steps 2–3 under a layer budget, with the UpDown fallback of §8.4 (when the layers are
/// too few, "the remaining pairs" are routed by UpDown in one more layer; LASH, MP-LASH and
/// A-LASH share this). First-fit (assignLayers above) runs capped at `maxLayers` (0 = no
/// budget: capped at kMaxLayers, core/limits.h). If every route fits, that is the routing and `needed` is
/// exact. Otherwise the routes keep their layers among the first maxLayers − 1 and every
/// other route is marked kNoLayer: the engine routes it in one extra layer by UpDown, whose
/// dependencies (up channels, then down channels) are acyclic on their own — so the routing
/// uses at most maxLayers layers and stays deadlock-free (Lysne Thm. 2 per layer); `needed`
/// is then only known to exceed maxLayers (neededExact false; run with no budget to count).
/// With maxLayers == 1 every route goes to the UpDown layer.
///   Without a hint, the routes kept are exactly those that first-fit capped at maxLayers − 1
/// places (a route tries layers 0, 1, ... in order, so layers 0..maxLayers−2 evolve
/// identically in both runs and a route goes beyond them only when none fits), so the
/// capped run is cut, not repeated; with a hint the hinted layer may lie beyond, and
/// first-fit is re-run capped at maxLayers − 1.
/// Throws RoutingError naming `engine` when maxLayers > kMaxLayers, and, when maxLayers == 0,
/// as soon as first-fit meets a route that fits in none of kMaxLayers layers (not after
/// placing the rest). Cost: one first-fit run (two with a hint and a fallback).
struct BudgetedLayers {
  ChannelDependencyGraph cdg;  ///< the dependencies of layers 0..routeLayers()−1 (others empty)
  LayerAssignment assignment;  ///< per route; kNoLayer = routed in the UpDown layer
  std::size_t needed = 0;      ///< layers first-fit needs: exact, or maxLayers + 1 as a lower bound
  bool neededExact = true;     ///< false when the budget cut first-fit short (needed > maxLayers)
  bool updownLayer = false;    ///< some route (or, with maxLayers == 1, every route) uses UpDown
  /// Layers holding routes; the UpDown layer, if any, has this index.
  std::size_t routeLayers() const {
    return updownLayer ? assignment.layers : std::max<std::size_t>(assignment.layers, 1);
  }
  std::size_t layers() const { return routeLayers() + (updownLayer ? 1 : 0); }
  std::size_t updownRoutes() const { return updownLayer ? assignment.unplaced : 0; }
  /// The `layers_needed` statistic: "N", or ">L" when only a lower bound is known.
  std::string neededText() const;
};
BudgetedLayers assignLayersWithin(const Network& network, const RoutePool& pool, std::size_t maxLayers,
                                  const std::string& engine, std::span<const std::uint32_t> hint = {});

/// §5.1 step 4 (balancing): move a route from layer j to layer k while layer j has at
/// least two more routes than layer k and the move closes no cycle; repeat until no move
/// exists. (Moving only when the difference is at least two makes every move reduce the sum
/// of squared layer sizes, so the loop terminates; with a difference of one a move would
/// just swap the sizes.) Returns the number of moves.
std::size_t balanceLayers(ChannelDependencyGraph& cdg, const RoutePool& pool, LayerAssignment& assignment);

/// §6/§7 step 4 (optional): add every route to every further layer it fits in; returns the
/// bit set of layers per route (bit i = layer i). Requires at most kMaxLayers (16) layers.
std::vector<std::uint16_t> enrichLayers(ChannelDependencyGraph& cdg, const RoutePool& pool,
                                        const LayerAssignment& assignment);

}  // namespace routelab::irregular
