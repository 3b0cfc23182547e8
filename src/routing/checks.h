// routelab/routing/checks.h — correctness checks of any routing result.
//
// For every destination address the checker looks at the candidate graph (switch -> every
// candidate port's neighbour) and at the walks of the preferred ports (the all-pairs
// traversal of routing/semantics.h, which also states the routing's invariants):
//   * delivery: every (source, destination) pair of the requested kinds reaches its
//     destination following the source's address (RoutingResult::addressFor); every terminal
//     of the fabric is a source and a destination, one without an address fails its pairs;
//   * loops: no walk revisits a node; for adaptive tables, the candidate graph of every
//     address is acyclic, so every sequence of candidate choices terminates;
//   * adaptive completeness: every switch that some choice sequence can reach has a
//     non-empty entry whose candidates all lead to the destination or to another such
//     switch (never a dead port, a wrong terminal or "deliver here" at the wrong switch);
//   * minimality (when the routing claims it): every candidate port leads one hop closer to
//     the destination (BFS distance), hence every path is a shortest path;
//   * determinism (when claimed): exactly one candidate in every used entry;
//   * path lengths (max / mean, in channels, injection and delivery included) and, on
//     fat-trees (XGFT labels), the number of (source, destination) paths on every channel,
//     summarized per stage and direction (Gómez Fig. 3).
// Cost: O(A (V + C)) for the per-address BFS and candidate graphs plus O(P · hops) walks for
// P pairs; parallel over addresses and sources, results independent of the thread count.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "routing/routing_result.h"

namespace routelab {

struct RoutingCheckOptions {
  /// Pairs checked: terminal -> terminal always; these add the management pairs.
  bool terminalToSwitch = true;  ///< when the routing has switch addresses
  bool switchSources = false;    ///< switches as sources (to every checked address)
  /// Count undelivered management pairs (terminal->switch, switch->*) as failures. OpenSM's
  /// ftree/updn leave root-to-root switch LIDs unrouted, so this is off by default; loops
  /// and dead ports are failures whatever the kind.
  bool requireManagementPairs = false;
  /// All LMC paths of every pair (else path 0 only).
  bool allPaths = true;
  /// Per-channel path counts (fat-trees): terminal pairs, path 0.
  bool channelCounts = true;
  std::size_t maxFailures = 10;  ///< failures quoted in the report
};

/// Paths per channel of one fat-tree stage and direction (Gómez et al. 2007 §4, Fig. 3):
/// the channels between level lowerLevel and lowerLevel + 1 (0 = terminals), ascending or
/// descending. Shared by route's checks and the analysis (analysis/stages.h).
struct StageCount {
  std::size_t lowerLevel = 0;  ///< channels between level lowerLevel and lowerLevel + 1
  bool ascending = true;       ///< towards the higher level
  std::size_t channels = 0;    ///< channels of this stage and direction
  std::uint64_t minPaths = 0, maxPaths = 0;
  double meanPaths = 0;
  bool balanced() const { return minPaths == maxPaths; }
  /// Level of the channels' source node.
  std::size_t fromLevel() const { return ascending ? lowerLevel : lowerLevel + 1; }
};

/// Group per-channel path counts by stage (the network's XGFT labels; AnalysisError without
/// them), ordered by lower level, ascending before descending.
std::vector<StageCount> groupByStage(const Network& network, std::span<const std::uint64_t> pathsPerChannel);

/// Paths (terminal pairs, path 0, preferred candidates) per channel: the all-pairs traversal
/// of routing/semantics.h. Throws AnalysisError naming the first pair (in terminal order)
/// that is not delivered. `threads` = 0 uses every core; the counts do not depend on it.
std::vector<std::uint64_t> terminalPathsPerChannel(const Network& network, const RoutingResult& routing,
                                                   int threads = 0);

struct RoutingCheckReport {
  // Pairs (source, destination node) walked, per LMC path.
  std::uint64_t pairs = 0, delivered = 0, noRoute = 0, loops = 0, deadPorts = 0;
  std::uint64_t terminalPairs = 0, terminalPairsDelivered = 0;
  std::uint64_t managementPairs = 0, managementPairsDelivered = 0;
  std::uint64_t nonMinimalPaths = 0;  ///< delivered but longer than the BFS distance
  std::uint32_t maxHops = 0;          ///< channels, over delivered paths
  double meanHops = 0;                ///< over delivered terminal-to-terminal paths
  // Tables.
  std::uint64_t entries = 0;  ///< (switch, address) entries with a route
  std::uint64_t multiCandidateEntries = 0;
  std::uint64_t nonMinimalCandidates = 0;  ///< candidate ports not leading closer
  std::uint64_t badCandidates = 0;         ///< dead port, wrong terminal, port 0 at the wrong switch
  std::uint64_t candidateCycles = 0;       ///< addresses whose candidate graph has a cycle
  std::uint64_t incompleteChoices = 0;     ///< (address, switch) reachable by choices without a route
  bool claimsDeterministic = true, claimsMinimal = false;
  bool deterministicOk = true;  ///< claim holds (or no claim)
  bool minimalOk = true;        ///< claim holds (or no claim)
  std::uint64_t noAddress = 0;  ///< pairs from or to a terminal that owns no address (failures)
  /// Fat-trees only: ascending stages from the bottom, then descending stages from the top.
  std::vector<StageCount> stages;
  std::vector<std::string> failures;  ///< the first failures, named by switch[port]

  /// No failure: required pairs delivered, no loops or bad candidates, claims hold.
  bool passed() const { return ok; }
  bool ok = true;
};

RoutingCheckReport checkRouting(const Network& network, const RoutingResult& routing,
                                const RoutingCheckOptions& options = {});

}  // namespace routelab
