#include "analysis/loads.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/paths.h"
#include "core/errors.h"

namespace routelab {

namespace {

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
                       LoadModel model, const BestSplitOptions& bestSplit) {
  if (pattern.terminals != network.terminalCount()) {
    throw AnalysisError(fmt::format("pattern '{}' was made for {} terminals, the fabric has {}", pattern.spec,
                                    pattern.terminals, network.terminalCount()));
  }
  LinkLoads result;
  result.model = model;
  result.pairs = pattern.pairs.size();
  result.load.assign(network.channelCount(), 0.0);
  std::vector<ChannelId> walk;
  for (const auto& [s, d] : pattern.pairs) {
    if (s >= pattern.terminals || d >= pattern.terminals || s == d) {
      throw AnalysisError(fmt::format("pattern '{}' has an invalid pair ({}, {})", pattern.spec, s, d));
    }
  }
  if (model == LoadModel::FirstPath || isSinglePath(network, routing)) {
    for (const auto& [s, d] : pattern.pairs) {
      routePair(network, routing, s, d, walk);
      for (const ChannelId c : walk) result.load[c.index()] += 1.0;
    }
  } else if (model == LoadModel::EvenSplit) {
    RouteGraphBuilder builder(network, routing);
    RouteGraph graph;
    std::vector<double> flow;
    for (const auto& [s, d] : pattern.pairs) {
      builder.build(s, d, graph);
      addEvenSplit(graph, result.load, flow);
    }
  } else {
    RouteGraphBuilder builder(network, routing);
    SplitWorkspace workspace;
    BestSplitOptions options = bestSplit;
    options.keepLoads = true;
    BestSplitLoad best = bestSplitMaxLoad(builder, network.channelCount(), pattern.pairs, options, workspace);
    result.load = std::move(best.load);
    result.lowerBound = best.lower;
  }
  for (double& load : result.load) load = roundLoad(load);
  for (std::size_t c = 0; c < result.load.size(); ++c) {
    if (result.load[c] > result.maxLoad) {
      result.maxLoad = result.load[c];
      result.maxChannel = ChannelId::fromIndex(c);
      result.channelsAtMax = 1;
    } else if (result.load[c] == result.maxLoad && result.maxLoad > 0) {
      ++result.channelsAtMax;
    }
  }
  if (model != LoadModel::BestSplit || isSinglePath(network, routing)) result.lowerBound = result.maxLoad;
  result.ascending = ascendingUsage(network, result.load);
  return result;
}

}  // namespace routelab
