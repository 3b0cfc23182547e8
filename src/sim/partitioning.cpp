// The split of a simulation over threads (sim/partitioning.h).
#include "sim/partitioning.h"

#include <algorithm>

namespace routelab::sim {

Partitioning partitionSwitches(const Network& network, std::uint32_t blocks) {
  const std::size_t switches = network.switchCount();
  Partitioning partitioning;
  partitioning.count =
      static_cast<std::uint32_t>(std::clamp<std::size_t>(blocks, 1, std::max<std::size_t>(1, switches)));
  // Work of a switch: its ports (crossbar and links) and its terminals (sources, sinks).
  std::vector<std::uint64_t> work(switches, 0);
  std::uint64_t total = 0;
  for (std::size_t s = 0; s < switches; ++s) {
    work[s] = network.outChannels(network.switchNode(s)).size();
    total += work[s];
  }
  const std::size_t terminals = network.terminalCount();
  std::vector<std::uint32_t> home(terminals, 0);
  for (std::size_t t = 0; t < terminals; ++t) {
    const NodeId first = network.target(network.injectionChannel(network.terminalNode(t)));
    home[t] = static_cast<std::uint32_t>(network.kindIndex(first));
    work[home[t]] += 1;
    total += 1;
  }
  partitioning.ofSwitch.assign(switches, 0);
  std::uint64_t before = 0;
  for (std::size_t s = 0; s < switches; ++s) {
    // The block whose share of the total work contains the middle of this switch's work.
    const std::uint64_t middle = 2 * before + work[s];
    const auto block = static_cast<std::uint32_t>(middle * partitioning.count / std::max<std::uint64_t>(1, 2 * total));
    partitioning.ofSwitch[s] = std::min(block, partitioning.count - 1);
    before += work[s];
  }
  partitioning.ofTerminal.resize(terminals);
  for (std::size_t t = 0; t < terminals; ++t) partitioning.ofTerminal[t] = partitioning.ofSwitch[home[t]];
  auto blockOf = [&](NodeId node) {
    return (network.isSwitch(node) ? partitioning.ofSwitch : partitioning.ofTerminal)[network.kindIndex(node)];
  };
  const std::size_t channels = network.channelCount();
  partitioning.ofChannelTarget.resize(channels);
  partitioning.ofChannelSource.resize(channels);
  for (std::size_t c = 0; c < channels; ++c) {
    partitioning.ofChannelTarget[c] = blockOf(network.target(ChannelId::fromIndex(c)));
    partitioning.ofChannelSource[c] = blockOf(network.source(ChannelId::fromIndex(c)));
  }
  return partitioning;
}

}  // namespace routelab::sim
