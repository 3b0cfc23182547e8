// The preferred path of a pair, enumerated hop by hop from the routing-semantics core
// (routing/semantics.h): injection layer, then at every switch the first (port, layer)
// choice and where it leads. Shared by the semantics tests (tests/engines, tests/analysis),
// which compare it with the paths, loads and counts the other modules report.
#pragma once

#include <vector>

#include "routing/semantics.h"

namespace routelab::test {

/// Walk `source` -> address `a` from the injection layer by first choices. Returns the
/// status and fills `channels` (injection first), as RoutingResult::path documents.
inline PathStatus hopByHop(const RoutingSemantics& semantics, NodeId source, Address a,
                           std::vector<ChannelId>& channels) {
  const Network& network = semantics.network();
  channels.clear();
  const NodeId destination = semantics.routing().addresses.owner(a);
  LayerId layer = semantics.injectionLayer(source, a);
  std::vector<HopChoice> choices(semantics.choiceCapacity());
  NodeId at = source;
  ChannelId in;
  if (network.isTerminal(source)) {
    if (source == destination) return PathStatus::Delivered;
    in = network.injectionChannel(source);
    if (!in.valid()) return PathStatus::DeadPort;
    channels.push_back(in);
    at = network.target(in);
  }
  while (at != destination) {
    if (!network.isSwitch(at)) return PathStatus::NoRoute;
    if (semantics.hopChoices(at, in, a, layer, choices) == 0) return PathStatus::NoRoute;
    const HopStep step = semantics.step(at, a, choices[0].port);
    if (step.status != PathStatus::Delivered) return step.status;
    if (!step.channel.valid()) return PathStatus::Delivered;  // port 0 at the owning switch
    channels.push_back(step.channel);
    if (channels.size() > network.nodeCount() + 1) return PathStatus::Loop;
    layer = choices[0].layer;
    in = step.channel;
    at = step.next;
  }
  return PathStatus::Delivered;
}

}  // namespace routelab::test
