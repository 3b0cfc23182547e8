#include "analysis/loads.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/paths.h"
#include "core/errors.h"

namespace routelab {

std::string loadModelName(LoadModel model) {
  return model == LoadModel::Split ? "split" : "first-candidate";
}

namespace {

/// Fluid model: one unit from terminal s to terminal d, divided evenly over the candidates
/// at every switch. Adds to `load`. Frontiers hold (node, flow) with distinct nodes.
void splitFlow(const Network& network, const RoutingResult& routing, std::uint32_t s, std::uint32_t d,
               std::vector<double>& load, std::vector<std::pair<NodeId, double>>& frontier,
               std::vector<std::pair<NodeId, double>>& next) {
  const NodeId source = network.terminalNode(s);
  const NodeId destination = network.terminalNode(d);
  const Address address = routing.addressFor(source, destination);
  const ForwardingTable& table = routing.table(routing.layer(routing.addresses.sourceIndex(source), address));
  const ChannelId inject = network.injectionChannel(source);
  if (!inject.valid()) {
    throw AnalysisError(fmt::format("terminal '{}' is not connected to a switch", network.name(source)));
  }
  load[inject.index()] += 1.0;
  frontier.assign(1, {network.target(inject), 1.0});
  const std::size_t limit = network.nodeCount() + 1;
  for (std::size_t hop = 0; !frontier.empty(); ++hop) {
    if (hop > limit) {
      throw AnalysisError(fmt::format("routing '{}' loops between {} and {} (split load model)", routing.engine,
                                      network.name(source), network.name(destination)));
    }
    next.clear();
    for (const auto& [node, flow] : frontier) {
      if (node == destination) continue;
      if (!network.isSwitch(node)) {
        throw AnalysisError(fmt::format("routing '{}' sends {} -> {} into terminal '{}'", routing.engine,
                                        network.name(source), network.name(destination), network.name(node)));
      }
      const auto ports = table.candidates(network.switchIndex(node), address);
      if (ports.empty() || ports.front() == kSelfPort) {
        throw AnalysisError(fmt::format("routing '{}' does not deliver {} -> {}: no route at '{}'", routing.engine,
                                        network.name(source), network.name(destination), network.name(node)));
      }
      const double share = flow / static_cast<double>(ports.size());
      for (const PortNumber port : ports) {
        const ChannelId c = network.channelAt(node, port);
        if (!c.valid()) {
          throw AnalysisError(fmt::format("routing '{}' routes {} -> {} through down port {}", routing.engine,
                                          network.name(source), network.name(destination),
                                          network.describePort(node, port)));
        }
        load[c.index()] += share;
        const NodeId to = network.target(c);
        auto it = std::find_if(next.begin(), next.end(), [&](const auto& entry) { return entry.first == to; });
        if (it == next.end()) next.emplace_back(to, share);
        else it->second += share;
      }
    }
    frontier.swap(next);
  }
}

std::vector<AscendingUsage> ascendingUsage(const Network& network, const std::vector<double>& load) {
  const XgftLabels* labels = network.xgft();
  if (labels == nullptr) return {};
  std::vector<AscendingUsage> levels(labels->params.height() + 1);
  for (std::size_t level = 0; level < levels.size(); ++level) {
    levels[level].level = level;
    levels[level].minChannelsPerSwitch = SIZE_MAX;
  }
  for (const NodeId sw : network.switches()) {
    std::size_t used = 0, available = 0;
    for (const ChannelId c : network.outChannels(sw)) {
      if (labels->level[network.target(c).index()] <= labels->level[sw.index()]) continue;
      ++available;
      if (load[c.index()] > 0) ++used;
    }
    if (used == 0) continue;
    AscendingUsage& usage = levels[labels->level[sw.index()]];
    ++usage.switchesSendingUp;
    usage.minChannelsPerSwitch = std::min(usage.minChannelsPerSwitch, used);
    usage.maxChannelsPerSwitch = std::max(usage.maxChannelsPerSwitch, used);
    usage.availablePerSwitch = std::max(usage.availablePerSwitch, available);
  }
  std::vector<AscendingUsage> out;
  for (const AscendingUsage& usage : levels) {
    if (usage.switchesSendingUp > 0) out.push_back(usage);
  }
  return out;
}

}  // namespace

LinkLoads patternLoads(const Network& network, const RoutingResult& routing, const TrafficPattern& pattern,
                       LoadModel model) {
  if (pattern.terminals != network.terminalCount()) {
    throw AnalysisError(fmt::format("pattern '{}' was made for {} terminals, the fabric has {}", pattern.spec,
                                    pattern.terminals, network.terminalCount()));
  }
  LinkLoads result;
  result.model = model;
  result.pairs = pattern.pairs.size();
  result.load.assign(network.channelCount(), 0.0);
  std::vector<ChannelId> walk;
  std::vector<std::pair<NodeId, double>> frontier, next;
  for (const auto& [s, d] : pattern.pairs) {
    if (s >= pattern.terminals || d >= pattern.terminals || s == d) {
      throw AnalysisError(fmt::format("pattern '{}' has an invalid pair ({}, {})", pattern.spec, s, d));
    }
    if (model == LoadModel::Split) {
      splitFlow(network, routing, s, d, result.load, frontier, next);
    } else {
      routePair(network, routing, s, d, walk);
      for (const ChannelId c : walk) result.load[c.index()] += 1.0;
    }
  }
  for (std::size_t c = 0; c < result.load.size(); ++c) {
    if (result.load[c] > result.maxLoad) {
      result.maxLoad = result.load[c];
      result.maxChannel = ChannelId::fromIndex(c);
      result.channelsAtMax = 1;
    } else if (result.load[c] == result.maxLoad && result.maxLoad > 0) {
      ++result.channelsAtMax;
    }
  }
  result.ascending = ascendingUsage(network, result.load);
  return result;
}

}  // namespace routelab
