#include "analysis/route_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "core/errors.h"

namespace routelab {

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

void RouteGraphBuilder::exploreSlot(NodeId source, NodeId destination, std::span<const SlotInfo> slots,
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
    signatureNow_.push_back(to == 1 ? kNoRouteState : to - firstState);
    signatureNow_.push_back(channel);
  }
  if (start == 1) signatureNow_.push_back(kNoRouteState);
  bool duplicate = false;
  for (std::size_t i = 0; i < signatureCount && !duplicate; ++i) duplicate = signatures_[i] == signatureNow_;
  if (duplicate) {  // the same routes as an earlier address: one route, counted once
    stateNode_.resize(firstState);
    stateSlot_.resize(firstState);
    stateTable_.resize(firstState);
    edges_.resize(firstEdge);
    return;
  }
  if (slots.size() > 1) {  // one slot needs no comparison
    if (signatures_.size() <= signatureCount) signatures_.resize(signatureCount + 1);
    signatures_[signatureCount++] = signatureNow_;
  }
  rootTargets_.push_back(start);
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
  stateSlot_.assign({kNoRouteState, kNoRouteState});
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

}  // namespace routelab
