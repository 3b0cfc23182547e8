// Verifier: connectivity, loops and deadlock freedom of a routing. Contract and
// references: verify/verify.h.
#include "verify/verify.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "routing/semantics.h"

namespace routelab {

namespace {

VerifyFailure describe(const Network& network, const RoutingResult& routing, const RouteFailure& failure) {
  VerifyFailure result;
  result.source = network.name(failure.source);
  result.destination = network.name(failure.destination);
  if (routing.addresses.hasAddresses(failure.source)) {
    result.sourceLid = routing.addresses.lid(routing.addresses.base(failure.source));
  }
  result.layer = failure.layer.index();
  result.status = pathStatusText(failure.status);
  if (failure.status == PathStatus::NoAddress) {  // no LID to walk to (or from)
    if (routing.addresses.hasAddresses(failure.destination)) {
      result.destinationLid = routing.addresses.lid(routing.addresses.base(failure.destination));
    }
    return result;
  }
  result.destinationLid = routing.addresses.lid(failure.address);
  // Where the walk along the preferred ports stops (first candidate of every entry).
  const Path path = routing.path(network, failure.source, failure.address, failure.layer);
  if (path.status != PathStatus::Delivered && path.stoppedAt.valid()) {
    result.where = network.name(path.stoppedAt);
    if (path.status == PathStatus::Loop) result.where += " (preferred ports cycle)";
  }
  return result;
}

}  // namespace

VerifyResult verifyRouting(const Network& network, const RoutingResult& routing, const VerifyOptions& options) {
  TrafficScope scope;
  scope.switchTraffic = options.switchTraffic;
  scope.maxExamples = options.maxExamples;
  const RoutingDependencies deps = buildRoutingDependencies(network, routing, scope);

  VerifyResult result;
  result.engine = routing.engine;
  result.switchTraffic = options.switchTraffic;
  result.layers = routing.layerCount();
  result.escapeLayer = routing.escapeLayer;
  result.sources = deps.sources;
  result.destinations = deps.destinations;
  result.routes = deps.routes;
  result.delivered = deps.delivered;
  result.noRoute = deps.noRoute;
  result.loops = deps.loops;
  result.deadPorts = deps.deadPorts;
  result.noAddress = deps.noAddress;
  for (std::size_t layer = 0; layer < deps.layerUsed.size(); ++layer) {
    if (!deps.layerUsed[layer]) continue;
    ++result.layersUsed;
    result.highestLayer = static_cast<int>(layer);
  }
  result.unroutedSwitchPairs = deps.unroutedSwitchPairs;
  result.escapeFailures = deps.escapeFailures;
  result.connected = deps.delivered + deps.unroutedSwitchPairs == deps.routes && deps.escapeFailures == 0;
  result.loopFree = deps.loops == 0;

  const ChannelDependencyGraph& graph = deps.graph;
  for (std::size_t layer = 0; layer < graph.layerCount(); ++layer) {
    result.dependencies.push_back(graph.dependencyCount(LayerId::fromIndex(layer)));
  }
  std::vector<std::size_t> checked;
  if (routing.escapeLayer >= 0) {
    result.method =
        fmt::format("Duato: extended dependency graph of escape layer {} (Lysne et al. 2006 Defs. 13-15, Theorem 4)",
                    routing.escapeLayer);
    checked.push_back(static_cast<std::size_t>(routing.escapeLayer));
  } else {
    result.method = "layered channel dependency graph (Lysne et al. 2006 Defs. 11-12, Theorem 2; Dally-Seitz)";
    for (std::size_t layer = 0; layer < graph.layerCount(); ++layer) checked.push_back(layer);
  }
  for (std::size_t layer : checked) {
    auto cycle = graph.findCycle(LayerId::fromIndex(layer));
    if (!cycle) continue;
    result.cyclicLayers.push_back(layer);
    if (!result.cycleLayer) {
      result.cycleLayer = layer;
      result.cycle = std::move(*cycle);
      for (ChannelId c : result.cycle) result.cycleChannels.push_back(network.describeChannel(c));
      result.cycleText = graph.describeCycle(result.cycle);
    }
  }
  // Duato's condition needs R' connected; a disconnected escape layer proves nothing.
  result.deadlockFree = result.cyclicLayers.empty() && deps.escapeFailures == 0;

  for (const auto& f : deps.failures) result.failures.push_back(describe(network, routing, f));
  for (const auto& f : deps.unroutedSwitchExamples)
    result.unroutedSwitchExamples.push_back(describe(network, routing, f));
  for (const auto& f : deps.escapeFailureExamples)
    result.escapeFailureExamples.push_back(describe(network, routing, f));
  return result;
}

}  // namespace routelab
