// routelab/analysis/best_split.h — the even split and the best split of a set of pairs.
//
// Even split: a pair's unit divided equally over its routes at the source and then, hop by
// hop, equally over the allowed choices (route_graph.h). Best split: the least maximum
// channel load over every splitting of each pair's unit over its routes — a minimum-
// congestion multicommodity flow (Shahrokhi & Matula 1990), computed by Frank–Wolfe on a
// softmax (log-sum-exp) of the loads. Every result carries an achievable upper bound (the
// maximum load of an explicit split) and a certified lower bound (LP weak duality: for any
// channel lengths l >= 0, ML* >= sum over pairs of the l-shortest route length / sum of l;
// and the channels on every route of a pair), so the exact optimum lies in [lower, upper].
// Loads are rounded to multiples of 1e-9 (lower bounds down).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "analysis/route_graph.h"
#include "traffic/demand.h"

namespace routelab {

inline constexpr double kLoadTolerance = 1e-9;  ///< two rounded loads closer than this are equal

/// Rounds a load to the 1e-9 grid (nearest), and a lower bound down to it — except a bound
/// less than 10^-3 grid units (10^-12) below a grid point, the float error of the solver's
/// sums, which rounds to that point.
double roundLoad(double load);
double roundLowerBound(double bound);

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

/// Maximum channel load of `pairs` under even-split (rounded to 1e-9); afterwards
/// workspace.load[i] is the load of channel workspace.channels[i] (the channels the pairs use).
double evenSplitMaxLoad(RouteGraphBuilder& builder, std::size_t channelCount, std::span<const SourceDestination> pairs,
                        SplitWorkspace& workspace);

/// Best-split bounds for `pairs`.
BestSplitLoad bestSplitMaxLoad(RouteGraphBuilder& builder, std::size_t channelCount,
                               std::span<const SourceDestination> pairs, const BestSplitOptions& options,
                               SplitWorkspace& workspace);

}  // namespace routelab
