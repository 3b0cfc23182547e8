// routelab/analysis/route_graph.h — the routes one terminal pair may use, as a graph.
//
// The route graph of a pair (s, d): states (node, route slot, table), where a route slot is
// one distinct destination address of the pair (path p of addressFor(s, d, p)) and table the
// forwarding table of the layer in use; edges are channels. Acyclic for every routing that
// passes the checks (a cycle is reported as AnalysisError naming the pair).
//
// The graph follows routing/semantics.h: a pair's LMC addresses, its injection layers and,
// hop by hop, the candidates of the current layer's table plus the escape layer's port when
// the pair may use an escape layer (Duato; Lysne et al. 2006 §8.3). The load models of
// analysis/split.h spread a pair's unit of traffic over these routes.
#pragma once

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"
#include "routing/semantics.h"

namespace routelab {

inline constexpr std::uint32_t kNoRouteState = UINT32_MAX;  ///< no state / no edge

/// The routes one pair may use (see the header comment), built on the fly from the tables.
struct RouteGraph {
  static constexpr std::uint32_t kRoot = 0;  ///< the source terminal
  std::uint32_t sink = 0;                    ///< the destination terminal
  std::vector<std::uint32_t> edgeStart;      ///< CSR per state (size states + 1)
  std::vector<std::uint32_t> edgeTarget;
  std::vector<std::uint32_t> edgeChannel;
  std::vector<std::uint8_t> edgeEscapeEntry;  ///< 1: an optional entry into the escape layer
  std::vector<std::uint32_t> order;           ///< topological order, root first
  std::size_t stateCount() const { return edgeStart.empty() ? 0 : edgeStart.size() - 1; }
};

/// Builds route graphs; reusable (holds work arrays), one per thread.
class RouteGraphBuilder {
 public:
  /// `escapeEverywhere` = false restricts the graph to an allowed sub-policy: the escape
  /// layer is entered only at a switch where the current layer has no route (used for an
  /// upper bound of best-split WORST; the load models use the full graph).
  RouteGraphBuilder(const Network& network, const RoutingResult& routing, bool escapeEverywhere = true);
  /// Route graph of terminal s to terminal d. Throws AnalysisError naming the pair when a
  /// reachable state has no route, a port is down, a route enters a wrong terminal or loops.
  void build(std::uint32_t s, std::uint32_t d, RouteGraph& out);

 private:
  /// One route slot: a distinct (address, starting table) of the pair.
  struct SlotInfo {
    Address address;
    std::uint16_t table;
    bool escapeAllowed;
  };
  std::uint32_t stateOf(NodeId node, std::uint32_t slot, std::uint16_t table);
  /// The pair's route slots: its LMC addresses (addressFor) x the distinct tables of the
  /// layers it may be injected in (RoutingSemantics::injectionLayers), escape layer apart.
  std::vector<SlotInfo> routeSlots(NodeId source, NodeId destination) const;
  /// States and edges of one slot from the first switch; none when they repeat an earlier
  /// slot's (the same routes, counted once).
  void exploreSlot(NodeId source, NodeId destination, std::span<const SlotInfo> slots, std::uint32_t slot,
                   std::size_t& signatureCount);
  /// CSR of the edges and a topological order (Kahn); AnalysisError on a cycle.
  void finishGraph(NodeId source, NodeId destination, RouteGraph& out);

  const Network& network_;
  const RoutingResult& routing_;
  RoutingSemantics semantics_;
  int escapeTable_ = -1;
  bool escapeEverywhere_ = true;
  std::vector<NodeId> stateNode_;
  std::vector<std::uint32_t> stateSlot_;
  std::vector<std::uint16_t> stateTable_;
  // States of the slot being explored, by (node, table): dense, valid when epoch matches
  // (states of different slots never connect, so one slot's index suffices).
  std::vector<std::uint32_t> denseState_, denseEpoch_;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> inDegree_;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint8_t>>
      edges_;  // from, to, channel, entry
  std::vector<std::vector<std::uint32_t>> signatures_;
  std::vector<std::uint32_t> signatureNow_, rootTargets_;
};

/// Adds the even-split loads of one route graph (one unit) to `load` (per channel id).
/// `flow` is a work array.
void addEvenSplit(const RouteGraph& graph, std::vector<double>& load, std::vector<double>& flow);

}  // namespace routelab
