// routelab/analysis/split.h — load models for multipath and adaptive routings.
//
// Nienaber et al. 2011 §II define the load of a channel for single-path routings: the number
// of SD pairs of a pattern routed through it. Adaptive engines (Gómez et al. 2007 §3:
// candidate lists), multipath ones (LMC address blocks; Lysne et al. 2006 §6 MP-LASH paths;
// MROOTS' allowed layers) and escape routings (Duato, Lysne §8.3) allow a pair several
// routes. A load model says how a pair's unit of traffic uses them; every result names its
// model (docs/ANALYSIS.md, "Load models"):
//
//  * first-path  — the pair follows path 0 (addressFor(s, d, 0)), its assigned layer and
//                  the first (preferred) candidate at every switch. Today's numbers.
//  * even-split  — the unit is divided equally over the pair's distinct routes at the
//                  source (LMC / MP-LASH addresses, distinct tables of its allowed layers)
//                  and then, hop by hop, equally over the allowed (port, layer) choices of
//                  the current switch: the candidates of the current layer's table, plus
//                  the escape layer's port when the routing has an escape layer the pair
//                  may use (Duato: a packet may enter the escape layer at any switch and
//                  stays there). Fractional channel loads; oblivious load balancing.
//  * best-split  — the least maximum channel load over every splitting of each pair's unit
//                  over its allowed routes (paths of the route graph below): a minimum-
//                  congestion multicommodity flow. Computed by Frank–Wolfe on a softmax of
//                  the loads; every result carries an achievable upper bound (the maximum
//                  load of an explicit split) and a certified lower bound (LP weak duality:
//                  for any channel lengths l >= 0, ML* >= sum over pairs of the l-shortest
//                  route length / sum of l), so the exact optimum lies in [lower, upper].
//
// For a single-path routing (one route per pair) the three models coincide and every metric
// uses the integer first-path code, so single-path numbers are exactly those of first-path.
//
// The route graph of a pair (s, d): states (node, route slot, table), where a route slot is
// one distinct destination address of the pair (path p of addressFor(s, d, p)) and table the
// forwarding table of the layer in use; edges are channels. Acyclic for every routing that
// passes the checks (a cycle is reported as AnalysisError naming the pair).
//
// Fractional loads are doubles; maximum loads are rounded to the nearest multiple of 1e-9
// (lower bounds rounded down) so sums such as 3 x 1/3 compare equal to 1. Every quantity is
// computed sequentially per pattern in a fixed order, so results do not depend on the
// thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/sampling.h"
#include "graph/network.h"
#include "routing/routing_result.h"
#include "routing/semantics.h"
#include "traffic/pattern.h"

namespace routelab {

enum class LoadModel { FirstPath, EvenSplit, BestSplit };

/// "first-path", "even-split", "best-split".
std::string loadModelName(LoadModel model);
/// Accepts the names above and the older aliases "first" (first-path) and "split"
/// (even-split); SpecError otherwise.
LoadModel parseLoadModel(const std::string& text);

/// True when every terminal pair has exactly one route: no adaptive table entry, no escape
/// layer, at most one distinct table among any pair's allowed layers and one path (address)
/// per destination. Then all load models give the first-path numbers.
bool isSinglePath(const Network& network, const RoutingResult& routing);

/// Rounds a load to the 1e-9 grid (nearest), and a lower bound down to it.
double roundLoad(double load);
double roundLowerBound(double bound);

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
  /// States and edges of one slot from the first switch; false when they repeat an earlier
  /// slot's (the same routes, counted once).
  bool exploreSlot(NodeId source, NodeId destination, std::span<const SlotInfo> slots, std::uint32_t slot,
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

/// Options of the best-split solver.
struct BestSplitOptions {
  double tolerance = 0.01;            ///< stop when upper <= (1 + tolerance) * lower
  std::uint32_t maxIterations = 400;  ///< Frank–Wolfe iterations at most
  bool keepLoads = false;             ///< fill BestSplitLoad::load
};

struct BestSplitLoad {
  double upper = 0;  ///< ML of an explicit split (achievable), rounded to 1e-9
  double lower = 0;  ///< certified lower bound on the optimum, rounded down to 1e-9
  std::uint32_t iterations = 0;
  std::vector<double> load;  ///< per channel id: the loads of the split achieving `upper`
};

/// Work arrays of the split computations, one per thread.
struct SplitWorkspace {
  std::vector<RouteGraph> graphs;
  std::vector<double> load, flow, other, weight, dist;
  std::vector<std::uint32_t> localOf, channels, choice, route;
};

/// Maximum channel load of `pairs` under even-split (rounded to 1e-9); loads in
/// workspace.load (per channel id, zero elsewhere).
double evenSplitMaxLoad(RouteGraphBuilder& builder, std::size_t channelCount, std::span<const SourceDestination> pairs,
                        SplitWorkspace& workspace);

/// Best-split bounds for `pairs`.
BestSplitLoad bestSplitMaxLoad(RouteGraphBuilder& builder, std::size_t channelCount,
                               std::span<const SourceDestination> pairs, const BestSplitOptions& options,
                               SplitWorkspace& workspace);

/// The split models as load sources of the sampler (sampling.h): the even split, and the
/// best split's bounds (upper: an explicit split, lower: certified), per sample.
std::unique_ptr<LoadSource> evenSplitSource(const Network& network, const RoutingResult& routing);
std::unique_ptr<LoadSource> bestSplitSource(const Network& network, const RoutingResult& routing,
                                            const BestSplitOptions& options = {});

/// ABB / AFPB / ADB under a load model. First-path, or any model on a single-path routing:
/// sampleBandwidth() on the pair paths (exactly the first-path numbers). Otherwise
/// sampleLoads() over the model's source: the same patterns (sample i from
/// deriveSeed(seed, i)) and stopping rule on the fractional ML of each sample; for best-split
/// `mean` uses the upper bound of every sample (a bandwidth that is achievable) and
/// `bandwidthUpperBound` the lower bounds (the true best-split mean lies between). Results
/// are identical for any thread count and any split over processes (options.split).
SampledBandwidth sampleBandwidthUnderModel(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                                           LoadModel model, const SamplingOptions& options,
                                           const BestSplitOptions& bestSplit = {});

/// The fractional sampler itself (even split for first-path), usable on any routing (tests
/// compare it with the integer one on single-path routings).
SampledBandwidth sampleSplitBandwidth(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                                      LoadModel model, const SamplingOptions& options,
                                      const BestSplitOptions& bestSplit = {});

/// WORST-style metric under a split model.
///  even-split: exactly max over permutations P of ML under even split = max over channels of
///  the maximum-weight matching of the pairs crossing the channel, weighted by their even-
///  split share (Hungarian algorithm per channel, pruned by row/column maxima); `witness`
///  is that matching. Stores every pair's split: refused (AnalysisError) beyond 2^27
///  (channel, pair) entries.
///  best-split: bounds. upper = min(first-path WORST, even-split WORST, and for routings
///  with an escape layer the even-split WORST without hop-by-hop escape choices) — each is a
///  split allowed for every permutation; lower = the best-split lower bound of the witness
///  permutations of those.
struct SplitWorstCase {
  LoadModel model = LoadModel::EvenSplit;
  double value = 0;   ///< even-split: exact; best-split: the upper bound
  double lower = 0;   ///< best-split: certified lower bound (even-split: == value)
  ChannelId channel;  ///< the channel reaching `value` (smallest id among equals)
  std::vector<SourceDestination> witness;
  std::size_t channelsSolved = 0;
};
SplitWorstCase worstUnderModel(const Network& network, const RoutingResult& routing, LoadModel model, int threads = 0,
                               const BestSplitOptions& bestSplit = {});

/// Maximum-weight matching (not necessarily perfect) of a dense rows x columns matrix of
/// non-negative weights (row-major); returns the weight and the column matched to each row
/// (-1 if none or weight 0). Hungarian algorithm, O(n^3), n = max(rows, columns).
double maxWeightMatching(std::span<const double> weights, std::size_t rows, std::size_t columns,
                         std::vector<int>& columnOfRow);

}  // namespace routelab
