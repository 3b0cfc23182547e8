#include "schedule/circuit_fabric.h"

#include <fmt/format.h>

#include <bit>
#include <cassert>
#include <limits>

#include "core/errors.h"

namespace routelab {

CircuitFabric::CircuitFabric(const Network& network) : network_(&network), labels_(network.xgft()) {
  if (labels_ == nullptr) {
    throw UnsupportedTopology(fmt::format(
        "circuit scheduling needs a fat-tree (XGFT labels); '{}' has none (random fabric, or a fat-tree with faults)",
        network.origin()));
  }
  const XgftParams& params = labels_->params;
  const std::size_t h = params.height();
  if (h > 64) throw UnsupportedTopology(fmt::format("{}: more than 64 levels cannot be scheduled", params.str()));
  for (std::size_t k = 0; k <= h; ++k) {
    if (params.nodesAtLevel(k) >= std::numeric_limits<std::uint32_t>::max()) {
      throw UnsupportedTopology(fmt::format("{}: level {} is too large to schedule", params.str(), k));
    }
  }
  upPorts_.resize(h);
  nodesAt_.resize(h + 1);
  weight_.resize(h + 1);
  weight_[0] = 1;
  for (std::size_t k = 0; k <= h; ++k) nodesAt_[k] = params.nodesAtLevel(k);
  for (std::size_t k = 0; k < h; ++k) {
    upPorts_[k] = params.w[k];
    weight_[k + 1] = weight_[k] * params.w[k];
  }
  const std::size_t n = network.terminalCount();
  groups_.resize(h * n);
  terminalGroups_.resize(h * n);
  for (std::size_t t = 0; t < n; ++t) {
    std::uint64_t index = labels_->indexInLevel[network.terminalNode(t).index()];
    for (std::size_t k = 0; k < h; ++k) {
      groups_[k * n + t] = static_cast<std::uint32_t>(index);
      terminalGroups_[t * h + k] = static_cast<std::uint32_t>(index);
      index /= params.m[k];
    }
  }
  groupShift_.assign(h, 0);
  shiftGroups_ = true;
  std::uint64_t divisor = 1;
  for (std::size_t k = 0; k < h; ++k) {
    shiftGroups_ = shiftGroups_ && std::has_single_bit(divisor) && divisor < (std::uint64_t{1} << 32);
    if (!shiftGroups_) break;
    groupShift_[k] = static_cast<std::uint32_t>(std::countr_zero(divisor));
    divisor *= params.m[k];
  }
  for (std::size_t k = 0; shiftGroups_ && k < h; ++k) {
    for (std::size_t t = 0; t < n; ++t) {
      if (groups_[k * n + t] != (static_cast<std::uint32_t>(t) >> groupShift_[k])) {
        shiftGroups_ = false;
        break;
      }
    }
  }
}

std::uint32_t CircuitFabric::ancestorLevel(std::uint32_t source, std::uint32_t destination) const {
  if (source == destination) return 0;
  const std::size_t n = terminals();
  std::uint32_t level = 1;
  // group(h, t) would be 0 for every terminal; the loop stops at h at the latest.
  while (level < levels() && groups_[level * n + source] != groups_[level * n + destination]) ++level;
  return level;
}

NodeId CircuitFabric::node(std::size_t level, std::uint64_t index) const { return labels_->nodesAt[level][index]; }

ChannelId CircuitFabric::upChannel(std::size_t level, std::uint64_t index, std::uint32_t port) const {
  const PortNumber hardware = static_cast<PortNumber>(labels_->params.downPorts(level) + 1 + port);
  const ChannelId channel = network_->channelAt(node(level, index), hardware);
  assert(channel.valid());
  return channel;
}

std::vector<ChannelId> CircuitFabric::circuitPath(SourceDestination request,
                                                  std::span<const std::uint16_t> ports) const {
  const std::size_t top = ports.size();
  std::vector<ChannelId> path(2 * top);
  std::uint64_t low = 0;
  for (std::size_t k = 0; k < top; ++k) {
    const std::uint64_t sourceSide = group(k, request.source) * weight(k) + low;
    const std::uint64_t destinationSide = group(k, request.destination) * weight(k) + low;
    path[k] = upChannel(k, sourceSide, ports[k]);
    path[2 * top - 1 - k] = Network::reverse(upChannel(k, destinationSide, ports[k]));
    low += ports[k] * weight(k);
  }
  return path;
}

}  // namespace routelab
