#include "schedule/circuits.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace routelab {

CircuitCheck checkCircuits(const CircuitFabric& fabric, std::span<const SourceDestination> requests,
                           const CircuitSchedule& schedule) {
  const Network& network = fabric.network();
  CircuitCheck check;
  if (schedule.requests() != requests.size()) {
    check.ok = false;
    check.problem = fmt::format("schedule has {} requests, the request list {}", schedule.requests(), requests.size());
    return check;
  }
  std::vector<std::int64_t> owner(network.channelCount(), -1);
  auto failAt = [&](std::size_t r, const std::string& what) {
    check.ok = false;
    check.problem = fmt::format("circuit {} ({} -> {}): {}", r, network.name(network.terminalNode(requests[r].source)),
                                network.name(network.terminalNode(requests[r].destination)), what);
  };
  for (std::size_t r = 0; r < requests.size() && check.ok; ++r) {
    if (schedule.status[r] != CircuitStatus::Granted) continue;
    ++check.circuits;
    const std::vector<ChannelId> path = fabric.circuitPath(requests[r], schedule.portsOf(r));
    const NodeId source = network.terminalNode(requests[r].source);
    const NodeId destination = network.terminalNode(requests[r].destination);
    if (path.size() != 2 * std::size_t{fabric.ancestorLevel(requests[r].source, requests[r].destination)}) {
      failAt(r, fmt::format("path of {} channels is not up and down to the common ancestor", path.size()));
      break;
    }
    NodeId at = source;
    for (std::size_t i = 0; i < path.size(); ++i) {
      const ChannelId c = path[i];
      if (!c.valid() || network.source(c) != at) {
        failAt(r, fmt::format("hop {} does not continue the path at {}", i, network.name(at)));
        break;
      }
      if (i > 0 && !network.isSwitch(at)) {
        failAt(r, fmt::format("hop {} leaves terminal {}", i, network.name(at)));
        break;
      }
      if (owner[c.index()] >= 0) {
        failAt(r,
               fmt::format("channel {} is already used by circuit {}", network.describeChannel(c), owner[c.index()]));
        break;
      }
      owner[c.index()] = static_cast<std::int64_t>(r);
      ++check.channelsUsed;
      at = network.target(c);
    }
    if (check.ok && at != destination) failAt(r, fmt::format("path ends at {}", network.name(at)));
  }
  return check;
}

RoutingResult circuitsToRouting(const CircuitFabric& fabric, std::span<const SourceDestination> requests,
                                const CircuitSchedule& schedule, const std::string& schedulerSpec) {
  const Network& network = fabric.network();
  RoutingResult result;
  result.engine = "schedule:" + schedulerSpec;
  result.addresses = AddressMap::build(network, 1, false);
  result.tables.emplace_back(network.switchCount(), result.addresses.count());
  ForwardingTable& table = result.tables.front();
  result.deterministic = true;
  result.minimal = true;  // up to the common ancestor and down: a shortest path in an XGFT
  for (std::size_t r = 0; r < requests.size(); ++r) {
    if (schedule.status[r] != CircuitStatus::Granted) continue;
    const NodeId source = network.terminalNode(requests[r].source);
    const NodeId destination = network.terminalNode(requests[r].destination);
    // The address this source uses for the destination (the RoutingResult contract; with
    // one address per terminal and one source class it is the destination's own).
    const Address address = result.addressFor(source, destination);
    for (ChannelId c : fabric.circuitPath(requests[r], schedule.portsOf(r))) {
      const NodeId at = network.source(c);
      if (!network.isSwitch(at)) continue;
      const std::uint32_t s = network.switchIndex(at);
      const PortNumber current = table.port(s, address);
      if (current != kNoRoute && current != network.sourcePort(c)) {
        throw AnalysisError(
            fmt::format("circuits to {} leave {} through ports {} and {}: a destination-based table cannot hold both "
                        "(export the paths instead)",
                        network.name(destination), network.name(at), current, network.sourcePort(c)));
      }
      table.set(s, address, network.sourcePort(c));
    }
  }
  result.stats.emplace_back("circuits_granted", std::to_string(schedule.granted));
  result.stats.emplace_back("circuits_requested", std::to_string(schedule.requests()));
  return result;
}

}  // namespace routelab
