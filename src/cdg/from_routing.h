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
// Sources grouped by switch: when every in-scope pair is traffic in layer 0 and only there
// (no per-pair layers or allowed sets, one source class, no escape layer: deterministic and
// adaptive fat-tree engines, minhop, updown, LMC), all terminals cabled to one switch S
// reach it on their injection channels and share its outcome. The traversal then starts
// once per such S instead of once per source, counts the pairs of S in bulk (one by one
// only when they fail, for the examples), and records per output channel c' of S which
// owners' addresses it carries; terminal t then depends injection(t) -> c' iff an address
// t does not own uses c' at S — the per-pair rule above, summed per switch. Addresses are
// taken in blocks of 256: first switch by switch (the entries of one switch for the block
// are adjacent in the table, so the rows of the switches with terminals — most of a fat
// tree's table — are read along the rows), recording the first hop of every such S (for a
// single candidate also the dependencies of its channel and the next switch's candidates),
// then address by address from there. The work per (address, layer) is O(reached switches
// x candidates), not O(sources). The per-source traversal stays for every other routing and
// as the reference the tests compare with (buildRoutingDependenciesPerSource).
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
#include <tuple>
#include <utility>
#include <vector>

#include "cdg/cdg.h"
#include "routing/routing_result.h"

namespace routelab {

/// Which traffic is verified: terminal-to-terminal always (every terminal of the fabric;
/// one without an address fails every pair it is part of); switch addresses (management
/// traffic: from and to every switch owning an address) on request. Which (source,
/// address) pairs carry traffic and in which layers is RoutingSemantics' answer
/// (routing/semantics.h): kNoLayer pairs (per-pair addressing) and the addresses of other
/// source classes are not traffic; a pair is checked in every layer it may be injected in.
struct TrafficScope {
  bool switchTraffic = false;
  /// Failure examples kept (the first ones in (address, source) order).
  std::size_t maxExamples = 10;
};

/// Address of a RouteFailure whose destination owns none (status NoAddress).
inline constexpr Address kNoAddress = UINT32_MAX;

/// One failed route: traffic from `source` to `address` (owned by `destination`) in `layer`
/// (for escape routings: from switch `source` along the escape layer). Pairs from or to a
/// terminal that owns no address have status NoAddress and address kNoAddress.
struct RouteFailure {
  NodeId source;
  NodeId destination;
  Address address = 0;
  LayerId layer;
  PathStatus status = PathStatus::NoRoute;
  bool operator<(const RouteFailure& other) const {
    return std::tuple(address, source, destination) < std::tuple(other.address, other.source, other.destination);
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
  /// Pairs from or to a terminal of the fabric that owns no address (e.g. a host an OpenSM
  /// dump gives no LID): never delivered, counted in routes (routing/semantics.h).
  std::uint64_t noAddress = 0;
  /// Switch-to-switch pairs without a route (OpenSM's updn and ftree leave root-to-root
  /// switch LIDs unrouted): reported apart, not counted in noRoute.
  std::uint64_t unroutedSwitchPairs = 0;
  /// Escape routings: (switch, address) states reachable under R from which the escape
  /// layer does not deliver (R' not connected, Theorem 4 premise).
  std::uint64_t escapeFailures = 0;
  std::vector<RouteFailure> failures{};  ///< first examples of failed routes
  std::vector<RouteFailure> unroutedSwitchExamples{};
  std::vector<RouteFailure> escapeFailureExamples{};
  std::uint64_t sources = 0;       ///< sources in scope (terminals of the fabric, switches on request)
  std::uint64_t destinations = 0;  ///< addresses in scope, plus terminals without one
  /// Per layer: does some in-scope traffic use it (is injected in it, or, for escape
  /// routings, may move into it)? The layers a fabric needs, as OpenSM's "VLs needed".
  std::vector<bool> layerUsed{};
};

/// Build the dependency graph of `routing` on `network` for the traffic in `scope`
/// (contract above). One graph layer per routing layer. Throws RoutingError when the
/// routing breaks an invariant (routing/semantics.h validate(): table sizes, a pair's layer
/// >= layerCount — the message names both ends and their LIDs), AnalysisError when switch
/// traffic is requested but the routing has no switch addresses or the routing has more
/// layers than the verifier supports.
RoutingDependencies buildRoutingDependencies(const Network& network, const RoutingResult& routing,
                                             const TrafficScope& scope = {});

/// The same, by the per-source traversal for every routing (no grouping of the sources of
/// one switch): the reference the tests compare buildRoutingDependencies with.
RoutingDependencies buildRoutingDependenciesPerSource(const Network& network, const RoutingResult& routing,
                                                      const TrafficScope& scope = {});

/// The layered dependency graph of explicit paths: path i in layer layers[i].
ChannelDependencyGraph dependencyGraphOfPaths(const Network& network, std::size_t layerCount,
                                              std::span<const std::vector<ChannelId>> paths,
                                              std::span<const LayerId> layers);

}  // namespace routelab
