// routelab/cdg/from_routing.h — the channel dependency graph of a routing result, and of
// explicit paths, together with the outcome of every routed pair.
//
// Dependencies (Lysne et al. 2006, Def. 4; layered: Defs. 11-12): for every switch u, every
// address a and every input channel c that traffic to a in layer L can arrive on at u, a
// dependency c -> c' in layer L for every candidate output c' of u for a in that layer's
// table (adaptive candidate sets included, Def. 3: R returns a set). "Can arrive on" is
// exact for the traffic in scope: the traversal starts from the sources assigned to layer
// L for a and follows the candidates, so a table entry that no in-scope traffic uses
// induces no dependency (e.g. a route towards a switch address when only terminal traffic
// is verified).
//
// Destination-based tables make this cheap: all pairs to one address follow one
// forwarding graph (a tree for deterministic tables), so the traversal runs once per
// (address, layer) from all its sources with memoisation — O(addresses x (sources +
// reached switches x candidates)) — instead of once per pair. Addresses are processed in
// parallel (OpenMP), each with its own scratch; dependencies are OR-ed into per-thread
// slot bitmaps and merged, so the result does not depend on the number of threads.
//
// Escape routings (routing.escapeLayer = e >= 0; Duato, Lysne Defs. 13-15, Theorem 4):
// packets of every in-scope pair may use the candidates of every layer and move between
// layers at any switch; R' = the escape layer's routing. The graph's layer e then holds
// the EXTENDED dependency graph of R': for every switch u that a packet for a can reach
// under R (closure over the union of all layers' candidates), the escape channels c out
// of u (candidates of table e) and every escape candidate c' at target(c) give c -> c'.
// These are the direct dependencies of R' plus its cross dependencies (Def. 14: packets
// that reach c only through non-escape channels). R' must also deliver from every such
// switch (R' connected); failures there are counted in escapeFailures. Other layers stay
// empty (cycles among adaptive channels are allowed by Theorem 4).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "cdg/cdg.h"
#include "routing/routing_result.h"

namespace routelab {

/// Which traffic is verified: terminal-to-terminal always; switch addresses (management
/// traffic: from and to every switch owning an address) on request. Pairs the routing
/// marks as carrying no traffic (RoutingResult::sends() false, layerOf = kNoLayer: per-pair
/// addressing) are skipped, and source-dependent routings (sourceClasses > 1) send only to
/// the addresses of the source's class (RoutingResult::addressFor).
struct TrafficScope {
  bool switchTraffic = false;
  /// Failure examples kept (the first ones in (address, source) order).
  std::size_t maxExamples = 10;
};

/// One failed route: traffic from `source` to `address` in `layer` (for escape routings:
/// from switch `source` along the escape layer).
struct RouteFailure {
  NodeId source;
  Address address = 0;
  LayerId layer;
  PathStatus status = PathStatus::NoRoute;
  bool operator<(const RouteFailure& other) const {
    return std::pair(address, source) < std::pair(other.address, other.source);
  }
};

struct RoutingDependencies {
  explicit RoutingDependencies(ChannelDependencyGraph dependencyGraph) : graph(std::move(dependencyGraph)) {}
  ChannelDependencyGraph graph;
  /// Routes checked: one per in-scope (source, address) pair and layer it may use.
  std::uint64_t routes = 0;
  std::uint64_t delivered = 0;
  std::uint64_t noRoute = 0;  ///< a table entry missing (or port 0 away from the target)
  /// Routes (and, for escape routings, escape states) whose forwarding graph cycles.
  std::uint64_t loops = 0;
  std::uint64_t deadPorts = 0;  ///< an entry names an unconnected port
  /// Switch-to-switch pairs without a route (OpenSM's updn and ftree leave root-to-root
  /// switch LIDs unrouted): reported apart, not counted in noRoute.
  std::uint64_t unroutedSwitchPairs = 0;
  /// Escape routings: (switch, address) states reachable under R from which the escape
  /// layer does not deliver (R' not connected, Theorem 4 premise).
  std::uint64_t escapeFailures = 0;
  std::vector<RouteFailure> failures{};  ///< first examples of failed routes
  std::vector<RouteFailure> unroutedSwitchExamples{};
  std::vector<RouteFailure> escapeFailureExamples{};
  std::uint64_t sources = 0;       ///< address owners in scope (traffic sources)
  std::uint64_t destinations = 0;  ///< addresses in scope
};

/// Build the dependency graph of `routing` on `network` for the traffic in `scope`
/// (contract above). One graph layer per routing layer. Throws AnalysisError when the
/// routing does not fit the network (table sizes), when switch traffic is requested but
/// the routing has no switch addresses, or when an in-scope pair has a layer >= layerCount
/// (the message names both ends and their LIDs).
RoutingDependencies buildRoutingDependencies(const Network& network, const RoutingResult& routing,
                                             const TrafficScope& scope = {});

/// The layered dependency graph of explicit paths: path i in layer layers[i].
ChannelDependencyGraph dependencyGraphOfPaths(const Network& network, std::size_t layerCount,
                                              std::span<const std::vector<ChannelId>> paths,
                                              std::span<const LayerId> layers);

}  // namespace routelab
