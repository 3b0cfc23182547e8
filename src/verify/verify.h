// routelab/verify/verify.h — is a routing connected, loop-free and deadlock-free?
//
// For any RoutingResult on a Network (one of ours or an imported OpenSM LFT dump with
// its per-pair SL/VL assignment, io/sl_table.h):
//   * connected   — every terminal of the fabric (and, on request, switch address) reaches
//                   every other one's address in every layer its traffic may use (adaptive
//                   entries: along every candidate); a terminal the routing gives no address
//                   (a host missing from an OpenSM dump) fails every pair it is part of;
//   * loop_free   — no forwarding graph of an (address, layer) contains a cycle reachable
//                   from the traffic (packets would circulate forever);
//   * deadlock_free —
//       - layered routings (escapeLayer < 0): the layered channel dependency graph
//         (Lysne et al. 2006 Defs. 11-12: a dependency exists only in the layer the
//         traffic is assigned to) is acyclic in every layer — sufficient by Theorem 2
//         (Dally & Seitz, Theorem 1, per layer; necessary too for deterministic routing);
//       - escape routings (escapeLayer = e): Duato's condition (Lysne Defs. 13-15,
//         Theorem 4) for R' = the escape layer: R' delivers from every switch the adaptive
//         traffic can reach, and its extended dependency graph (direct + cross
//         dependencies) is acyclic. Cycles among the adaptive layers are then allowed.
//     A cycle is reported as a witness: the channels "sw[p] -> sw[q]" in order.
// Traffic scope: terminal-to-terminal by default; VerifyOptions::switchTraffic adds traffic
// from and to every switch address (management traffic). Switch-to-switch pairs without
// a route (OpenSM's updn/ftree leave root-to-root LIDs unrouted) are counted apart and do
// not make the routing disconnected.
// Cost: O(addresses x (sources + switches x candidates)) for the traversal (parallel over
// addresses, deterministic; O(addresses x switches x candidates) when the terminals of a
// switch can be grouped, cdg/from_routing.h), plus O(channels x radix) per layer for the
// cycle search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cdg/from_routing.h"
#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

struct VerifyOptions {
  bool switchTraffic = false;    ///< add traffic from and to switch addresses
  std::size_t maxExamples = 10;  ///< failure examples kept per kind
};

/// A failed route, described for humans ("kt-h00 (LID 1) -> kt-h05 (LID 6) in layer 0:
/// no route at kt-s1-0").
struct VerifyFailure {
  std::string source;
  std::string destination;
  std::uint32_t sourceLid = 0;       ///< 0: the node owns no address (printed "no LID")
  std::uint32_t destinationLid = 0;  ///< 0: no address
  std::size_t layer = 0;
  std::string status;  ///< "no route", "loop", "dead port", "no address"
  std::string where;   ///< where the walk of the preferred ports stopped (may be empty)
};

struct VerifyResult {
  std::string engine;          ///< the routing's effective engine spec (echo)
  bool switchTraffic = false;  ///< effective scope (echo)
  bool connected = false;
  bool loopFree = false;
  bool deadlockFree = false;
  std::size_t layers = 0;  ///< layers of the routing
  /// Layers the verified traffic uses (what OpenSM reports as "VLs needed"), and the highest
  /// of them (-1 when no traffic): a routing may declare more layers than its traffic uses
  /// (an SL table's layer count is its highest SL + 1 over all pairs listed).
  std::size_t layersUsed = 0;
  int highestLayer = -1;
  std::string method;  ///< the theorem applied, in words
  int escapeLayer = -1;
  std::vector<std::size_t> dependencies;  ///< distinct dependencies per layer
  std::vector<std::size_t> cyclicLayers;  ///< layers whose dependency graph has a cycle
  /// Witness: a cycle of the first cyclic layer (empty if none).
  std::optional<std::size_t> cycleLayer;
  std::vector<ChannelId> cycle;
  std::vector<std::string> cycleChannels;  ///< "sw[p] -> sw[q]" per channel of the cycle
  std::string cycleText;                   ///< ChannelDependencyGraph::describeCycle
  // Counts.
  std::uint64_t sources = 0, destinations = 0, routes = 0, delivered = 0;
  std::uint64_t noRoute = 0, loops = 0, deadPorts = 0, unroutedSwitchPairs = 0, escapeFailures = 0;
  std::uint64_t noAddress = 0;  ///< pairs from or to a terminal without an address (no LID)
  std::vector<VerifyFailure> failures;
  std::vector<VerifyFailure> unroutedSwitchExamples;
  std::vector<VerifyFailure> escapeFailureExamples;

  /// connected && loop_free && deadlock_free.
  bool passed() const { return connected && loopFree && deadlockFree; }
};

/// Verify `routing` on `network` (contract above). Throws RoutingError when the routing
/// breaks an invariant (routing/semantics.h validate()), AnalysisError when the scope does
/// not fit the routing (see buildRoutingDependencies).
VerifyResult verifyRouting(const Network& network, const RoutingResult& routing, const VerifyOptions& options = {});

}  // namespace routelab
