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
//                  the first (preferred) candidate at every switch (paths.h).
//  * even-split  — the unit is divided equally over the pair's distinct routes at the
//                  source (LMC / MP-LASH addresses, distinct tables of its allowed layers)
//                  and then, hop by hop, equally over the allowed (port, layer) choices of
//                  the current switch: the candidates of the current layer's table, plus
//                  the escape layer's port when the routing has an escape layer the pair
//                  may use (Duato: a packet may enter the escape layer at any switch and
//                  stays there). Fractional channel loads; oblivious load balancing.
//  * best-split  — the least maximum channel load over every splitting of each pair's unit
//                  over its allowed routes (paths of its route graph, route_graph.h): a minimum-
//                  congestion multicommodity flow (best_split.h). Computed by Frank–Wolfe
//                  on a softmax of the loads; every result carries an achievable upper bound (the maximum
//                  load of an explicit split) and a certified lower bound (LP weak duality:
//                  for any channel lengths l >= 0, ML* >= sum over pairs of the l-shortest
//                  route length / sum of l), so the exact optimum lies in [lower, upper].
//
// For a single-path routing (one route per pair) the three models coincide and every metric
// uses the integer first-path code, so single-path numbers are exactly those of first-path.
//
// Fractional loads are doubles; maximum loads are rounded to the nearest multiple of 1e-9
// (lower bounds rounded down) so sums such as 3 x 1/3 compare equal to 1. Every quantity is
// computed sequentially per pattern in a fixed order, so results do not depend on the
// thread count. Sampled metrics go through the one sampler (sampling.h sampleLoads) with the
// model's load source; WORST under a split model is in split_worst.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/best_split.h"
#include "analysis/sampling.h"
#include "graph/network.h"
#include "routing/routing_result.h"
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

/// The even-split WORST's (channel, pair) share entries at most (16 bytes each while walked,
/// 16 more in the per-channel lists): 512 MiB.
inline constexpr std::size_t kMaxSplitWorstEntries = std::size_t{1} << 24;

/// WORST-style metric under a split model.
///  even-split: exactly max over permutations P of ML under even split = max over channels of
///  the maximum-weight matching of the pairs crossing the channel, weighted by their even-
///  split share (Hungarian algorithm per channel, pruned by row/column maxima); `witness`
///  is that matching. Stores every pair's split: refused (LimitError) beyond `maxEntries`
///  (channel, pair) entries: before the walk when 2 n (n - 1), the fewest n terminals can
///  have, exceeds it (kMaxSplitWorstEntries admits at most 2,896 terminals), else as soon as
///  the pairs walked hold more.
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
  /// Even split: the channels whose matching was solved. They are taken in decreasing order of
  /// their matching bound, ties by increasing id, until a bound falls below the best value found
  /// so far; a channel whose bound does not beat that value and whose id is larger than its
  /// channel's is skipped (thread-independent).
  std::size_t channelsSolved = 0;
};
SplitWorstCase worstUnderModel(const Network& network, const RoutingResult& routing, LoadModel model, int threads = 0,
                               const BestSplitOptions& bestSplit = {}, std::size_t maxEntries = kMaxSplitWorstEntries);

}  // namespace routelab
