#include "analysis/best_split.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace routelab {

namespace {

constexpr double kGrid = 1e9;  // loads are rounded to multiples of 1 / kGrid
constexpr std::uint32_t kNone = kNoRouteState;

}  // namespace

double roundLoad(double load) { return std::round(load * kGrid) / kGrid; }
double roundLowerBound(double bound) { return std::floor(bound * kGrid + 1e-3) / kGrid; }

namespace {

/// Channels touched by the graphs of one pattern, with a dense local index.
void collectChannels(std::span<const RouteGraph> graphs, std::size_t channelCount, SplitWorkspace& ws) {
  if (ws.localOf.size() != channelCount) ws.localOf.assign(channelCount, kNone);
  ws.channels.clear();
  for (const RouteGraph& graph : graphs) {
    for (const std::uint32_t c : graph.edgeChannel) {
      if (ws.localOf[c] == kNone) {
        ws.localOf[c] = static_cast<std::uint32_t>(ws.channels.size());
        ws.channels.push_back(c);
      }
    }
  }
}

void releaseChannels(SplitWorkspace& ws) {
  for (const std::uint32_t c : ws.channels) ws.localOf[c] = kNone;
}

/// Even split of every graph into ws.load (local index). `skipEscapeEntries`: the split
/// ignores optional escape entries (an allowed sub-policy, used as a best-split start).
void evenSplitLocal(std::span<const RouteGraph> graphs, SplitWorkspace& ws, bool skipEscapeEntries = false) {
  ws.load.assign(ws.channels.size(), 0.0);
  for (const RouteGraph& graph : graphs) {
    ws.flow.assign(graph.stateCount(), 0.0);
    ws.flow[RouteGraph::kRoot] = 1.0;
    for (const std::uint32_t u : graph.order) {
      const std::uint32_t begin = graph.edgeStart[u], end = graph.edgeStart[u + 1];
      if (begin == end || ws.flow[u] == 0) continue;
      std::uint32_t choices = end - begin;
      if (skipEscapeEntries) {
        for (std::uint32_t e = begin; e < end; ++e) choices -= graph.edgeEscapeEntry[e];
      }
      const bool skip = skipEscapeEntries && choices > 0;
      if (!skip) choices = end - begin;
      const double share = ws.flow[u] / static_cast<double>(choices);
      for (std::uint32_t e = begin; e < end; ++e) {
        if (skip && graph.edgeEscapeEntry[e] != 0) continue;
        ws.load[ws.localOf[graph.edgeChannel[e]]] += share;
        ws.flow[graph.edgeTarget[e]] += share;
      }
    }
  }
}

/// Length of the shortest route of `graph` under local channel lengths `length`; adds one
/// unit along it to `add` (local index).
double shortestRoute(const RouteGraph& graph, const std::vector<double>& length,
                     const std::vector<std::uint32_t>& localOf, std::vector<double>& dist,
                     std::vector<std::uint32_t>& choice, std::vector<double>& add) {
  const std::size_t states = graph.stateCount();
  dist.assign(states, std::numeric_limits<double>::infinity());
  choice.assign(states, kNone);
  dist[graph.sink] = 0;
  for (auto it = graph.order.rbegin(); it != graph.order.rend(); ++it) {
    const std::uint32_t u = *it;
    for (std::uint32_t e = graph.edgeStart[u]; e < graph.edgeStart[u + 1]; ++e) {
      const double candidate = length[localOf[graph.edgeChannel[e]]] + dist[graph.edgeTarget[e]];
      if (candidate < dist[u]) {
        dist[u] = candidate;
        choice[u] = e;
      }
    }
  }
  for (std::uint32_t u = RouteGraph::kRoot; u != graph.sink && choice[u] != kNone; u = graph.edgeTarget[choice[u]]) {
    add[localOf[graph.edgeChannel[choice[u]]]] += 1.0;
  }
  return dist[RouteGraph::kRoot];
}

/// Mandatory-channel lower bound: a channel on every route of a pair carries that pair's
/// whole unit in every split. An edge is on every route when (routes from the root to its
/// tail) x (routes from its head to the sink) equals the number of routes (counted in
/// doubles: exact below 2^53 routes, and a pair with more only loses this bound).
double mandatoryLowerBound(std::span<const RouteGraph> graphs, SplitWorkspace& ws) {
  std::vector<double>& count = ws.other;
  count.assign(ws.channels.size(), 0.0);
  std::vector<double>& forward = ws.flow;
  std::vector<double>& backward = ws.dist;
  std::vector<std::uint32_t>& mandatory = ws.route;
  double best = 0;
  for (const RouteGraph& graph : graphs) {
    mandatory.clear();
    // Every route starts with the injection channel (all root edges carry it).
    if (graph.edgeStart[1] > graph.edgeStart[0]) mandatory.push_back(graph.edgeChannel[graph.edgeStart[0]]);
    // Every route ends with the channel into the destination when all sink edges share it.
    std::uint32_t last = kNone;
    bool same = true;
    for (std::size_t e = 0; e < graph.edgeTarget.size() && same; ++e) {
      if (graph.edgeTarget[e] != graph.sink) continue;
      if (last != kNone && last != graph.edgeChannel[e]) same = false;
      last = graph.edgeChannel[e];
    }
    if (same && last != kNone) mandatory.push_back(last);
    // Other edges on every route.
    forward.assign(graph.stateCount(), 0.0);
    backward.assign(graph.stateCount(), 0.0);
    forward[RouteGraph::kRoot] = 1;
    for (const std::uint32_t u : graph.order) {
      for (std::uint32_t e = graph.edgeStart[u]; e < graph.edgeStart[u + 1]; ++e)
        forward[graph.edgeTarget[e]] += forward[u];
    }
    backward[graph.sink] = 1;
    for (auto it = graph.order.rbegin(); it != graph.order.rend(); ++it) {
      for (std::uint32_t e = graph.edgeStart[*it]; e < graph.edgeStart[*it + 1]; ++e) {
        backward[*it] += backward[graph.edgeTarget[e]];
      }
    }
    const double total = forward[graph.sink];
    if (total > 0 && total < 9007199254740992.0) {
      for (const std::uint32_t u : graph.order) {
        if (u == RouteGraph::kRoot) continue;
        for (std::uint32_t e = graph.edgeStart[u]; e < graph.edgeStart[u + 1]; ++e) {
          if (forward[u] * backward[graph.edgeTarget[e]] == total) mandatory.push_back(graph.edgeChannel[e]);
        }
      }
    }
    std::sort(mandatory.begin(), mandatory.end());
    mandatory.erase(std::unique(mandatory.begin(), mandatory.end()), mandatory.end());
    for (const std::uint32_t c : mandatory) best = std::max(best, count[ws.localOf[c]] += 1.0);
  }
  return best;
}

}  // namespace

double evenSplitMaxLoad(RouteGraphBuilder& builder, std::size_t channelCount, std::span<const SourceDestination> pairs,
                        SplitWorkspace& ws) {
  if (ws.graphs.size() < pairs.size()) ws.graphs.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) builder.build(pairs[i].source, pairs[i].destination, ws.graphs[i]);
  const std::span<const RouteGraph> graphs(ws.graphs.data(), pairs.size());
  collectChannels(graphs, channelCount, ws);
  evenSplitLocal(graphs, ws);
  double ml = 0;
  for (const double l : ws.load) ml = std::max(ml, l);
  releaseChannels(ws);
  return roundLoad(ml);
}

/// The starting point of the best-split search: the best of the even split, the first paths
/// and (escape routings) the even split without optional escape entries — all allowed
/// splits. Loads per local channel (ws.channels must be collected).
std::vector<double> startingSplit(std::span<const RouteGraph> graphs, SplitWorkspace& ws) {
  const std::size_t u = ws.channels.size();
  evenSplitLocal(graphs, ws);
  std::vector<double> x = ws.load;
  std::vector<double> firstPaths(u, 0.0);
  for (const RouteGraph& graph : graphs) {
    for (std::uint32_t v = RouteGraph::kRoot; v != graph.sink && graph.edgeStart[v] < graph.edgeStart[v + 1];
         v = graph.edgeTarget[graph.edgeStart[v]]) {
      firstPaths[ws.localOf[graph.edgeChannel[graph.edgeStart[v]]]] += 1.0;
    }
  }
  if (*std::max_element(firstPaths.begin(), firstPaths.end()) < *std::max_element(x.begin(), x.end())) {
    x = firstPaths;
  }
  if (std::any_of(graphs.begin(), graphs.end(), [](const RouteGraph& g) {
        return std::find(g.edgeEscapeEntry.begin(), g.edgeEscapeEntry.end(), 1) != g.edgeEscapeEntry.end();
      })) {  // and the even split without optional escape entries
    evenSplitLocal(graphs, ws, true);
    if (*std::max_element(ws.load.begin(), ws.load.end()) < *std::max_element(x.begin(), x.end())) x = ws.load;
  }
  return x;
}

BestSplitLoad bestSplitMaxLoad(RouteGraphBuilder& builder, std::size_t channelCount,
                               std::span<const SourceDestination> pairs, const BestSplitOptions& options,
                               SplitWorkspace& ws) {
  BestSplitLoad result;
  if (ws.graphs.size() < pairs.size()) ws.graphs.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) builder.build(pairs[i].source, pairs[i].destination, ws.graphs[i]);
  const std::span<const RouteGraph> graphs(ws.graphs.data(), pairs.size());
  collectChannels(graphs, channelCount, ws);
  const std::size_t u = ws.channels.size();
  if (u == 0) {
    releaseChannels(ws);
    return result;
  }
  std::vector<double> x = startingSplit(graphs, ws);
  std::vector<double> best = x;
  double upper = *std::max_element(x.begin(), x.end());
  double lower = mandatoryLowerBound(graphs, ws);
  std::vector<double> y(u), length(u);
  const double logChannels = std::log(static_cast<double>(std::max<std::size_t>(u, 2)));
  std::uint32_t iteration = 0;
  double smoothing = 1.0;  // shrinks when a smoothing level is exhausted
  while (iteration < options.maxIterations && upper > lower * (1 + options.tolerance) + kLoadTolerance) {
    ++iteration;
    // Smoothing: the softmax sum_c exp(beta x_c) / beta exceeds max x by at most ln(u) / beta
    // = epsilon * upper; epsilon follows the remaining gap.
    const double gap = (upper - lower) / upper;
    const double epsilon = std::clamp(gap / 4 * smoothing, options.tolerance / 4, 0.25);
    const double beta = logChannels / (epsilon * upper);
    const double top = *std::max_element(x.begin(), x.end());
    double lengthSum = 0;
    for (std::size_t c = 0; c < u; ++c) lengthSum += length[c] = std::exp(beta * (x[c] - top));
    // Frank–Wolfe direction: every pair on its shortest route under the gradient lengths;
    // the same lengths certify a lower bound (weak duality).
    std::fill(y.begin(), y.end(), 0.0);
    double distSum = 0;
    for (const RouteGraph& graph : graphs) distSum += shortestRoute(graph, length, ws.localOf, ws.dist, ws.choice, y);
    lower = std::max(lower, distSum / lengthSum);
    if (upper <= lower * (1 + options.tolerance) + kLoadTolerance) break;
    // Line search on the smoothed maximum along x + gamma (y - x): its derivative
    // sum_c exp(beta (z_c - max z)) (y_c - x_c) is increasing in gamma; bisect its sign.
    auto slope = [&](double gamma) {
      double m = -std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < u; ++c) m = std::max(m, x[c] + gamma * (y[c] - x[c]));
      double s = 0;
      for (std::size_t c = 0; c < u; ++c) s += std::exp(beta * (x[c] + gamma * (y[c] - x[c]) - m)) * (y[c] - x[c]);
      return s;
    };
    double low = 0, high = 1;
    if (slope(0) >= 0) {  // x minimises this smoothing: sharpen it, or stop at the finest
      if (epsilon <= options.tolerance / 4) break;
      smoothing /= 2;
      continue;
    }
    if (slope(1) <= 0) {
      low = 1;
    } else {
      for (int step = 0; step < 40; ++step) {
        const double mid = (low + high) / 2;
        (slope(mid) < 0 ? low : high) = mid;
      }
    }
    for (std::size_t c = 0; c < u; ++c) x[c] += low * (y[c] - x[c]);
    const double now = *std::max_element(x.begin(), x.end());
    if (now < upper) {
      upper = now;
      best = x;
    }
  }
  result.upper = roundLoad(upper);
  result.lower = std::min(roundLowerBound(lower), result.upper);
  result.iterations = iteration;
  if (options.keepLoads) {
    result.load.assign(channelCount, 0.0);
    for (std::size_t c = 0; c < u; ++c) result.load[ws.channels[c]] = best[c];
  }
  releaseChannels(ws);
  return result;
}

}  // namespace routelab
