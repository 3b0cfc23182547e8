#include "analysis/split.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <tuple>

#include "analysis/paths.h"
#include "analysis/worst.h"
#include "core/errors.h"
#include "core/parallel.h"
#include "core/random.h"

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace routelab {

namespace {

constexpr double kGrid = 1e9;            // loads are rounded to multiples of 1 / kGrid
constexpr double kLoadTolerance = 1e-9;  // two rounded loads closer than this are equal
constexpr std::uint32_t kNone = UINT32_MAX;

}  // namespace

std::string loadModelName(LoadModel model) {
  switch (model) {
    case LoadModel::FirstPath: return "first-path";
    case LoadModel::EvenSplit: return "even-split";
    case LoadModel::BestSplit: return "best-split";
  }
  return "load-model";
}

LoadModel parseLoadModel(const std::string& text) {
  if (text == "first-path" || text == "first") return LoadModel::FirstPath;
  if (text == "even-split" || text == "split") return LoadModel::EvenSplit;
  if (text == "best-split") return LoadModel::BestSplit;
  throw SpecError(fmt::format("unknown load model '{}' (first-path, even-split or best-split)", text));
}

double roundLoad(double load) { return std::round(load * kGrid) / kGrid; }
double roundLowerBound(double bound) { return std::floor(bound * kGrid + 1e-3) / kGrid; }

bool isSinglePath(const Network& network, const RoutingResult& routing) {
  if (routing.escapeLayer >= 0) return false;
  for (const ForwardingTable& table : routing.tables) {
    if (table.adaptive()) return false;
  }
  for (const NodeId t : network.terminals()) {
    if (routing.addresses.hasAddresses(t) && routing.pathCount(t) > 1) return false;
  }
  for (std::size_t entry = 0; entry < routing.allowedLayers.size(); ++entry) {
    const std::uint16_t mask = routing.allowedLayers[entry];
    int table = -1;
    for (std::size_t layer = 0; layer < routing.tableOfLayer.size() && layer < 16; ++layer) {
      if ((mask >> layer & 1U) == 0) continue;
      if (table >= 0 && table != routing.tableOfLayer[layer]) return false;
      table = routing.tableOfLayer[layer];
    }
  }
  return true;
}

// ---- route graphs ------------------------------------------------------------------------

RouteGraphBuilder::RouteGraphBuilder(const Network& network, const RoutingResult& routing, bool escapeEverywhere)
    : network_(network), routing_(routing), semantics_(network, routing), escapeEverywhere_(escapeEverywhere) {
  denseState_.assign(network.nodeCount() * routing.tables.size(), 0);
  denseEpoch_.assign(denseState_.size(), 0);
  if (routing.escapeLayer >= 0 && static_cast<std::size_t>(routing.escapeLayer) < routing.tableOfLayer.size()) {
    escapeTable_ = routing.tableOfLayer[static_cast<std::size_t>(routing.escapeLayer)];
  }
}

std::uint32_t RouteGraphBuilder::stateOf(NodeId node, std::uint32_t slot, std::uint16_t table) {
  const std::size_t key = node.index() * routing_.tables.size() + table;
  if (denseEpoch_[key] != epoch_) {
    denseEpoch_[key] = epoch_;
    denseState_[key] = static_cast<std::uint32_t>(stateNode_.size());
    stateNode_.push_back(node);
    stateSlot_.push_back(slot);
    stateTable_.push_back(table);
  }
  return denseState_[key];
}

std::vector<RouteGraphBuilder::SlotInfo> RouteGraphBuilder::routeSlots(NodeId source, NodeId destination) const {
  const RoutingResult& routing = routing_;
  std::vector<SlotInfo> slots;
  std::vector<LayerId> injection(routing.layerCount());
  const std::uint32_t paths = std::max<std::uint32_t>(1, routing.pathCount(destination));
  for (std::uint32_t p = 0; p < paths; ++p) {
    const Address a = routing.addressFor(source, destination, p);
    bool seen = false;
    for (const SlotInfo& slot : slots) seen = seen || slot.address == a;
    if (seen) continue;
    std::uint32_t mask = 0;  // the injection layers, taken in ascending order below
    const std::size_t count = semantics_.injectionLayers(source, a, injection);
    for (std::size_t i = 0; i < count; ++i) {
      if (injection[i].index() < 32) mask |= 1U << injection[i].index();
    }
    const bool escapeAllowed =
        escapeTable_ >= 0 && (routing.allowedLayers.empty() || (mask >> routing.escapeLayer & 1U) != 0);
    bool nonEscape = false;
    for (std::size_t layer = 0; layer < routing.tableOfLayer.size() && layer < 32; ++layer) {
      if ((mask >> layer & 1U) != 0 && routing.tableOfLayer[layer] != escapeTable_) nonEscape = true;
    }
    const std::size_t before = slots.size();
    for (std::size_t layer = 0; layer < routing.tableOfLayer.size() && layer < 32; ++layer) {
      if ((mask >> layer & 1U) == 0) continue;
      const std::uint16_t table = routing.tableOfLayer[layer];
      if (nonEscape && table == escapeTable_) continue;  // the escape layer is entered hop by hop
      bool dup = false;
      for (std::size_t i = before; i < slots.size(); ++i) dup = dup || slots[i].table == table;
      if (!dup) slots.push_back({a, table, escapeAllowed && table != escapeTable_});
    }
    if (slots.size() == before) {
      throw AnalysisError(fmt::format("routing '{}' assigns {} -> {} (LID {}) no usable layer", routing.engine,
                                      network_.name(source), network_.name(destination), routing.addresses.lid(a)));
    }
  }
  if (slots.size() > 65535) {
    throw AnalysisError(fmt::format("{} -> {} has {} routes, at most 65535 are analysed", network_.name(source),
                                    network_.name(destination), slots.size()));
  }
  return slots;
}

namespace {

[[noreturn]] void failRoute(const Network& network, const RoutingResult& routing, NodeId source, NodeId destination,
                            const std::string& what) {
  throw AnalysisError(fmt::format("routing '{}' does not deliver {} -> {}: {}", routing.engine, network.name(source),
                                  network.name(destination), what));
}

}  // namespace

bool RouteGraphBuilder::exploreSlot(NodeId source, NodeId destination, std::span<const SlotInfo> slots,
                                    std::uint32_t slot, std::size_t& signatureCount) {
  const Network& network = network_;
  auto fail = [&](const std::string& what) { failRoute(network, routing_, source, destination, what); };
  auto target = [&](NodeId node, std::uint16_t table) -> std::uint32_t {
    return node == destination ? 1U : stateOf(node, slot, table);
  };
  if (++epoch_ == 0) {  // wrapped: forget every old mark
    std::fill(denseEpoch_.begin(), denseEpoch_.end(), 0);
    epoch_ = 1;
  }
  const auto firstState = static_cast<std::uint32_t>(stateNode_.size());
  const std::size_t firstEdge = edges_.size();
  const std::uint32_t start = target(network.target(network.injectionChannel(source)), slots[slot].table);
  // The walk ends: a slot has at most one state per (switch, table) (stateOf); a forwarding
  // loop is a cycle among them, found by finishGraph's topological order. (The pair's slots
  // together may hold many times the node count: up to 2^LMC routes, each through every switch.)
  for (std::uint32_t u = firstState; u < stateNode_.size(); ++u) {
    const NodeId node = stateNode_[u];
    if (!network.isSwitch(node)) fail(fmt::format("the route enters terminal '{}'", network.name(node)));
    const std::uint32_t sw = network.switchIndex(node);
    const Address a = slots[slot].address;
    const std::uint16_t table = stateTable_[u];
    std::size_t added = 0;
    auto addChoices = [&](std::uint16_t tableIndex, std::uint8_t escapeEntry) {
      for (const PortNumber port : routing_.tables[tableIndex].candidates(sw, a)) {
        if (port == kSelfPort || port == kNoRoute) continue;
        const ChannelId c = network.channelAt(node, port);
        if (!c.valid()) fail(fmt::format("route through down port {}", network.describePort(node, port)));
        edges_.emplace_back(u, target(network.target(c), tableIndex), c.value, escapeEntry);
        ++added;
      }
    };
    addChoices(table, 0);
    if (slots[slot].escapeAllowed && table != escapeTable_ && (escapeEverywhere_ || added == 0)) {
      addChoices(static_cast<std::uint16_t>(escapeTable_), added == 0 ? 0 : 1);
    }
    if (added == 0) fail(fmt::format("no route at '{}' (LID {})", network.name(node), routing_.addresses.lid(a)));
  }
  // Signature of this slot's routes: its states and edges relative to its first state.
  signatureNow_.clear();
  for (std::size_t e = firstEdge; e < edges_.size() && slots.size() > 1; ++e) {
    const auto [from, to, channel, entry] = edges_[e];
    signatureNow_.push_back(from - firstState);
    signatureNow_.push_back(to == 1 ? kNone : to - firstState);
    signatureNow_.push_back(channel);
  }
  if (start == 1) signatureNow_.push_back(kNone);
  bool duplicate = false;
  for (std::size_t i = 0; i < signatureCount && !duplicate; ++i) duplicate = signatures_[i] == signatureNow_;
  if (duplicate) {  // the same routes as an earlier address: one route, counted once
    stateNode_.resize(firstState);
    stateSlot_.resize(firstState);
    stateTable_.resize(firstState);
    edges_.resize(firstEdge);
    return false;
  }
  if (slots.size() > 1) {  // one slot needs no comparison
    if (signatures_.size() <= signatureCount) signatures_.resize(signatureCount + 1);
    signatures_[signatureCount++] = signatureNow_;
  }
  rootTargets_.push_back(start);
  return true;
}

void RouteGraphBuilder::finishGraph(NodeId source, NodeId destination, RouteGraph& out) {
  const std::size_t states = stateNode_.size();
  out.sink = 1;
  out.edgeStart.assign(states + 1, 0);
  for (const auto& edge : edges_) ++out.edgeStart[std::get<0>(edge) + 1];
  for (std::size_t u = 0; u < states; ++u) out.edgeStart[u + 1] += out.edgeStart[u];
  out.edgeTarget.resize(edges_.size());
  out.edgeChannel.resize(edges_.size());
  out.edgeEscapeEntry.resize(edges_.size());
  inDegree_.assign(out.edgeStart.begin(), out.edgeStart.end() - 1);  // as insertion cursors first
  for (const auto& [from, to, channel, entry] : edges_) {
    const std::uint32_t at = inDegree_[from]++;
    out.edgeTarget[at] = to;
    out.edgeChannel[at] = channel;
    out.edgeEscapeEntry[at] = entry;
  }
  inDegree_.assign(states, 0);
  for (const std::uint32_t to : out.edgeTarget) ++inDegree_[to];
  out.order.clear();
  out.order.push_back(RouteGraph::kRoot);
  for (std::size_t i = 0; i < out.order.size(); ++i) {
    const std::uint32_t u = out.order[i];
    for (std::uint32_t e = out.edgeStart[u]; e < out.edgeStart[u + 1]; ++e) {
      if (--inDegree_[out.edgeTarget[e]] == 0) out.order.push_back(out.edgeTarget[e]);
    }
  }
  if (out.order.size() != states) {
    failRoute(network_, routing_, source, destination, "forwarding loop (the allowed routes form a cycle)");
  }
}

void RouteGraphBuilder::build(std::uint32_t s, std::uint32_t d, RouteGraph& out) {
  const Network& network = network_;
  const RoutingResult& routing = routing_;
  const NodeId source = network.terminalNode(s);
  const NodeId destination = network.terminalNode(d);
  if (!routing.addresses.hasAddresses(destination) || !routing.addresses.hasAddresses(source)) {
    throw AnalysisError(fmt::format("routing '{}' gives terminal '{}' no address", routing.engine,
                                    network.name(routing.addresses.hasAddresses(source) ? destination : source)));
  }
  const ChannelId inject = network.injectionChannel(source);
  if (!inject.valid()) {
    throw AnalysisError(fmt::format("terminal '{}' is not connected to a switch", network.name(source)));
  }
  const std::vector<SlotInfo> slots = routeSlots(source, destination);
  stateNode_.assign({source, destination});
  stateSlot_.assign({kNone, kNone});
  stateTable_.assign({0, 0});
  edges_.clear();
  rootTargets_.clear();
  std::size_t signatureCount = 0;
  for (std::uint32_t slot = 0; slot < slots.size(); ++slot)
    exploreSlot(source, destination, slots, slot, signatureCount);
  for (const std::uint32_t v : rootTargets_) edges_.emplace_back(0, v, inject.value, 0);
  finishGraph(source, destination, out);
}

void addEvenSplit(const RouteGraph& graph, std::vector<double>& load, std::vector<double>& flow) {
  flow.assign(graph.stateCount(), 0.0);
  flow[RouteGraph::kRoot] = 1.0;
  for (const std::uint32_t u : graph.order) {
    const std::uint32_t begin = graph.edgeStart[u], end = graph.edgeStart[u + 1];
    if (begin == end || flow[u] == 0) continue;
    const double share = flow[u] / static_cast<double>(end - begin);
    for (std::uint32_t e = begin; e < end; ++e) {
      load[graph.edgeChannel[e]] += share;
      flow[graph.edgeTarget[e]] += share;
    }
  }
}

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

// ---- sampled bandwidths --------------------------------------------------------------------

/// Mean of 1/ML (upper: the split's ML), its 99% half-width, mean ML, the bandwidth bound
/// (lower: the certified ML bound) and the largest relative gap, summed in sample order so
/// the result does not depend on the thread count. Needs at least two samples.
void summariseSplitSamples(const std::vector<double>& upper, const std::vector<double>& lower,
                           SampledBandwidth& result) {
  const std::size_t drawn = upper.size();
  double sum = 0, sumBound = 0, sumLoad = 0, gap = 0;
  for (std::uint64_t i = 0; i < drawn; ++i) {
    sum += 1.0 / upper[i];
    sumBound += 1.0 / lower[i];
    sumLoad += upper[i];
    gap = std::max(gap, (upper[i] - lower[i]) / upper[i]);
  }
  const double mean = sum / static_cast<double>(drawn);
  double squares = 0;
  for (std::uint64_t i = 0; i < drawn; ++i) squares += (1.0 / upper[i] - mean) * (1.0 / upper[i] - mean);
  result.samples = drawn;
  result.mean = mean;
  result.ci99HalfWidth = kZ99 * std::sqrt(squares / static_cast<double>(drawn - 1) / static_cast<double>(drawn));
  result.meanMaxLoad = sumLoad / static_cast<double>(drawn);
  result.bandwidthUpperBound = sumBound / static_cast<double>(drawn);
  result.maxRelativeGap = gap;
  result.exact = gap == 0;
}

SampledBandwidth sampleSplitBandwidth(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                                      LoadModel model, const SamplingOptions& options,
                                      const BestSplitOptions& bestSplit) {
  const std::size_t n = network.terminalCount();
  checkSampledPattern(n, pattern);
  checkSamplingOptions(options);
  SampledBandwidth result;
  result.pattern = sampledPatternName(pattern);
  result.options = options;
  result.loadModel = loadModelName(model);
  const int workers = workerThreads(options.threads);
  std::vector<double> upper, lower;
  std::vector<std::uint32_t> iterations;
  std::uint64_t target = firstSampleTarget(options);
  std::uint64_t drawn = 0;
  while (true) {
    upper.resize(target);
    lower.resize(target);
    iterations.resize(target);
    // An error is caught inside its iteration (exceptions must not leave an OpenMP
    // worksharing loop); the one of the smallest sample index is rethrown.
    std::vector<std::pair<std::uint64_t, std::exception_ptr>> errors;
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
    {
      RouteGraphBuilder builder(network, routing);
      SplitWorkspace ws;
      std::vector<std::uint32_t> scratch(n);
      std::vector<SourceDestination> pairs;
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
      for (std::uint64_t index = drawn; index < target; ++index) {
        try {
          drawSampledPattern(pattern, options.seed, index, scratch, pairs);
          if (model == LoadModel::BestSplit) {
            const BestSplitLoad b = bestSplitMaxLoad(builder, network.channelCount(), pairs, bestSplit, ws);
            upper[index] = std::max(1.0, b.upper);
            lower[index] = std::max(1.0, b.lower);
            iterations[index] = b.iterations;
          } else {
            upper[index] = lower[index] = std::max(1.0, evenSplitMaxLoad(builder, network.channelCount(), pairs, ws));
          }
        } catch (...) {
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_split_errors)
#endif
          errors.emplace_back(index, std::current_exception());
        }
      }
    }
    if (!errors.empty()) {
      std::rethrow_exception(std::min_element(errors.begin(), errors.end(), [](const auto& a, const auto& b) {
                               return a.first < b.first;
                             })->second);
    }
    drawn = target;
    summariseSplitSamples(upper, lower, result);
    if (!continueSampling(result, options, target)) break;
  }
  result.splitHistogram.clear();
  for (const double ml : upper) ++result.splitHistogram[ml];
  result.maxIterations = iterations.empty() ? 0 : *std::max_element(iterations.begin(), iterations.end());
  return result;
}

SampledBandwidth sampleBandwidthUnderModel(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                                           LoadModel model, const SamplingOptions& options,
                                           const BestSplitOptions& bestSplit) {
  if (model == LoadModel::FirstPath || isSinglePath(network, routing)) {
    const PairPaths paths = PairPaths::build(network, routing, options.threads);
    SampledBandwidth result = sampleBandwidth(paths, pattern, options);
    result.loadModel = loadModelName(model);
    result.bandwidthUpperBound = result.mean;
    return result;
  }
  return sampleSplitBandwidth(network, routing, pattern, model, options, bestSplit);
}

// ---- WORST under a split model -------------------------------------------------------------

double maxWeightMatching(std::span<const double> weights, std::size_t rows, std::size_t columns,
                         std::vector<int>& columnOfRow) {
  // Hungarian algorithm (potentials, O(n^3)) minimising cost = maxWeight - weight on the
  // square completion; padding has weight 0, so unmatched rows cost nothing extra.
  const std::size_t n = std::max(rows, columns);
  columnOfRow.assign(rows, -1);
  if (n == 0) return 0;
  double maxWeight = 0;
  for (const double w : weights) maxWeight = std::max(maxWeight, w);
  auto cost = [&](std::size_t i, std::size_t j) {  // 1-based
    const double w = (i <= rows && j <= columns) ? weights[(i - 1) * columns + (j - 1)] : 0.0;
    return maxWeight - w;
  };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> potentialRow(n + 1, 0), potentialColumn(n + 1, 0), minimum(n + 1);
  std::vector<std::size_t> rowOfColumn(n + 1, 0), way(n + 1, 0);
  std::vector<char> used(n + 1);
  for (std::size_t i = 1; i <= n; ++i) {
    rowOfColumn[0] = i;
    std::size_t column = 0;
    std::fill(minimum.begin(), minimum.end(), inf);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[column] = 1;
      const std::size_t row = rowOfColumn[column];
      double delta = inf;
      std::size_t next = 0;
      for (std::size_t j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double reduced = cost(row, j) - potentialRow[row] - potentialColumn[j];
        if (reduced < minimum[j]) {
          minimum[j] = reduced;
          way[j] = column;
        }
        if (minimum[j] < delta) {
          delta = minimum[j];
          next = j;
        }
      }
      for (std::size_t j = 0; j <= n; ++j) {
        if (used[j]) {
          potentialRow[rowOfColumn[j]] += delta;
          potentialColumn[j] -= delta;
        } else {
          minimum[j] -= delta;
        }
      }
      column = next;
    } while (rowOfColumn[column] != 0);
    do {
      const std::size_t previous = way[column];
      rowOfColumn[column] = rowOfColumn[previous];
      column = previous;
    } while (column != 0);
  }
  double total = 0;
  for (std::size_t j = 1; j <= columns; ++j) {
    const std::size_t i = rowOfColumn[j];
    if (i == 0 || i > rows) continue;
    const double w = weights[(i - 1) * columns + (j - 1)];
    if (w > 0) {
      total += w;
      columnOfRow[i - 1] = static_cast<int>(j - 1);
    }
  }
  return total;
}

namespace {

struct ChannelShare {
  std::uint16_t source, destination;
  double weight;
};

/// Every channel's even-split shares, as per-channel lists (CSR: the shares of channel c are
/// shares[start[c] .. start[c + 1]), in source order, then destination order).
struct ChannelShares {
  std::vector<std::uint32_t> start;
  std::vector<ChannelShare> shares;
};

/// The even split of every ordered terminal pair over its route graph (the all-pairs loop of
/// routing/semantics.h; errors by source order), transposed to per-channel share lists.
/// Throws AnalysisError beyond 2^24 (channel, pair) entries.
ChannelShares collectEvenShares(const Network& network, const RoutingResult& routing, int threads,
                                bool escapeEverywhere) {
  const std::size_t n = network.terminalCount();
  constexpr std::size_t kMaxEntries = std::size_t{1} << 24;
  // Per source: every (channel, destination, share) of its pairs' even splits.
  std::vector<std::vector<std::tuple<std::uint32_t, std::uint16_t, double>>> perSource(n);
  struct Worker {
    Worker(const Network& net, const RoutingResult& result, bool everywhere)
        : builder(net, result, everywhere), load(net.channelCount(), 0.0) {}
    RouteGraphBuilder builder;
    RouteGraph graph;
    std::vector<double> load, flow;
  };
  std::vector<std::unique_ptr<Worker>> perWorker(pairWalkWorkers(threads));
  forEachSource(n, threads, [&](unsigned w, std::size_t s) {
    if (!perWorker[w]) perWorker[w] = std::make_unique<Worker>(network, routing, escapeEverywhere);
    Worker& worker = *perWorker[w];
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      worker.builder.build(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d), worker.graph);
      addEvenSplit(worker.graph, worker.load, worker.flow);
      for (const std::uint32_t c : worker.graph.edgeChannel) {
        if (worker.load[c] == 0) continue;
        perSource[s].emplace_back(c, static_cast<std::uint16_t>(d), worker.load[c]);
        worker.load[c] = 0;
      }
    }
  });
  std::size_t total = 0;
  for (const auto& list : perSource) total += list.size();
  if (total > kMaxEntries) {
    throw AnalysisError(
        fmt::format("even-split WORST keeps every pair's split: {} (channel, pair) entries exceed the "
                    "limit of {}; use --load-model first-path or a smaller fabric",
                    total, kMaxEntries));
  }
  ChannelShares result;
  result.start.assign(network.channelCount() + 1, 0);
  for (const auto& list : perSource) {
    for (const auto& entry : list) ++result.start[std::get<0>(entry) + 1];
  }
  for (std::size_t c = 0; c < network.channelCount(); ++c) result.start[c + 1] += result.start[c];
  result.shares.resize(total);
  std::vector<std::uint32_t> cursor(result.start.begin(), result.start.end() - 1);
  for (std::size_t s = 0; s < n; ++s) {
    for (const auto& [c, d, w] : perSource[s]) result.shares[cursor[c]++] = {static_cast<std::uint16_t>(s), d, w};
  }
  return result;
}

/// Bound per channel on its maximum-weight matching: min(sum of row maxima, sum of column
/// maxima) over its share matrix (any matching takes at most one entry per row and column).
std::vector<double> matchingBounds(const ChannelShares& all, std::size_t terminals) {
  const std::size_t channelCount = all.start.size() - 1;
  const std::vector<std::uint32_t>& start = all.start;
  const std::vector<ChannelShare>& shares = all.shares;
  std::vector<double> bound(channelCount, 0.0);
  std::vector<double> rowMax(terminals, 0.0), columnMax(terminals, 0.0);
  for (std::size_t c = 0; c < channelCount; ++c) {
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      rowMax[shares[i].source] = std::max(rowMax[shares[i].source], shares[i].weight);
      columnMax[shares[i].destination] = std::max(columnMax[shares[i].destination], shares[i].weight);
    }
    double rows = 0, columns = 0;
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      rows += rowMax[shares[i].source];
      rowMax[shares[i].source] = 0;
      columns += columnMax[shares[i].destination];
      columnMax[shares[i].destination] = 0;
    }
    bound[c] = std::min(rows, columns);
  }
  return bound;
}

/// Exact even-split WORST: the maximum over channels of the maximum-weight matching of the
/// channel's share matrix, channels visited by decreasing bound and cut off by it.
SplitWorstCase evenSplitWorst(const Network& network, const RoutingResult& routing, int threads,
                              bool escapeEverywhere = true) {
  const std::size_t n = network.terminalCount();
  if (n > 65535) throw AnalysisError(fmt::format("split WORST supports up to 65535 terminals, the fabric has {}", n));
  const std::size_t channelCount = network.channelCount();
  const ChannelShares all = collectEvenShares(network, routing, threads, escapeEverywhere);
  const std::vector<std::uint32_t>& start = all.start;
  const std::vector<ChannelShare>& shares = all.shares;
  const std::vector<double> bound = matchingBounds(all, n);
  std::vector<std::uint32_t> order;
  for (std::uint32_t c = 0; c < channelCount; ++c) {
    if (start[c + 1] > start[c]) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return bound[a] > bound[b]; });
  SplitWorstCase result;
  result.model = LoadModel::EvenSplit;
  double best = -1;
  std::uint32_t bestChannel = kNone;
  std::vector<std::uint32_t> rowOf(n, kNone), columnOf(n, kNone), rowTerminal, columnTerminal;
  std::vector<double> matrix;
  std::vector<int> match;
  for (const std::uint32_t c : order) {
    if (bound[c] < best - kLoadTolerance) break;
    if (bound[c] <= best + kLoadTolerance && c > bestChannel) continue;
    rowTerminal.clear();
    columnTerminal.clear();
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      if (rowOf[shares[i].source] == kNone) {
        rowOf[shares[i].source] = static_cast<std::uint32_t>(rowTerminal.size());
        rowTerminal.push_back(shares[i].source);
      }
      if (columnOf[shares[i].destination] == kNone) {
        columnOf[shares[i].destination] = static_cast<std::uint32_t>(columnTerminal.size());
        columnTerminal.push_back(shares[i].destination);
      }
    }
    matrix.assign(rowTerminal.size() * columnTerminal.size(), 0.0);
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      matrix[rowOf[shares[i].source] * columnTerminal.size() + columnOf[shares[i].destination]] += shares[i].weight;
    }
    const double value = roundLoad(maxWeightMatching(matrix, rowTerminal.size(), columnTerminal.size(), match));
    ++result.channelsSolved;
    if (value > best + kLoadTolerance || (std::abs(value - best) <= kLoadTolerance && c < bestChannel)) {
      best = value;
      bestChannel = c;
      result.witness.clear();
      for (std::size_t r = 0; r < rowTerminal.size(); ++r) {
        if (match[r] >= 0) {
          result.witness.push_back({rowTerminal[r], columnTerminal[static_cast<std::size_t>(match[r])]});
        }
      }
    }
    for (const std::uint32_t t : rowTerminal) rowOf[t] = kNone;
    for (const std::uint32_t t : columnTerminal) columnOf[t] = kNone;
  }
  std::sort(result.witness.begin(), result.witness.end(),
            [](const SourceDestination& a, const SourceDestination& b) { return a.source < b.source; });
  result.value = result.lower = std::max(0.0, best);
  if (bestChannel != kNone) result.channel = ChannelId::fromIndex(bestChannel);
  return result;
}

}  // namespace

SplitWorstCase worstUnderModel(const Network& network, const RoutingResult& routing, LoadModel model, int threads,
                               const BestSplitOptions& bestSplit) {
  SplitWorstCase result;
  result.model = model;
  if (model == LoadModel::FirstPath || isSinglePath(network, routing)) {
    const WorstCase worst = worstCasePermutationLoad(network, routing, threads);
    result.value = result.lower = worst.value;
    result.channel = worst.channel;
    result.witness = worst.witness;
    result.channelsSolved = worst.channelsSolved;
    return result;
  }
  SplitWorstCase even = evenSplitWorst(network, routing, threads);
  if (model == LoadModel::EvenSplit) return even;
  // Best split: upper = min(first-path WORST, even-split WORST); lower = the best-split
  // lower bounds of both witness permutations.
  const WorstCase first = worstCasePermutationLoad(network, routing, threads);
  result.channelsSolved = even.channelsSolved + first.channelsSolved;
  if (first.value < even.value) {
    result.value = first.value;
    result.channel = first.channel;
    result.witness = first.witness;
  } else {
    result.value = even.value;
    result.channel = even.channel;
    result.witness = even.witness;
  }
  SplitWorstCase noEscape;
  if (routing.escapeLayer >= 0) {
    noEscape = evenSplitWorst(network, routing, threads, false);
    result.channelsSolved += noEscape.channelsSolved;
    if (noEscape.value < result.value) {
      result.value = noEscape.value;
      result.channel = noEscape.channel;
      result.witness = noEscape.witness;
    }
  }
  RouteGraphBuilder builder(network, routing);
  SplitWorkspace ws;
  BestSplitOptions tight = bestSplit;
  tight.maxIterations = std::max<std::uint32_t>(tight.maxIterations, 2000);
  const std::vector<SourceDestination>* witnesses[] = {&first.witness, &even.witness, &noEscape.witness};
  for (const std::vector<SourceDestination>* witness : witnesses) {
    if (witness->empty()) continue;
    const BestSplitLoad b = bestSplitMaxLoad(builder, network.channelCount(), *witness, tight, ws);
    result.lower = std::max(result.lower, b.lower);
  }
  result.lower = std::min(result.lower, result.value);
  return result;
}

}  // namespace routelab
