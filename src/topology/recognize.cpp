#include "topology/recognize.h"

#include <memory>
#include <vector>

#include "core/errors.h"
#include "graph/algorithms.h"
#include "graph/builder.h"

namespace routelab {

namespace {

/// Hop distance of every node from the nearest terminal; kUnreachable for nodes no
/// terminal reaches.
std::vector<std::uint32_t> levelsFromTerminals(const Network& network) {
  return hopDistances(network, network.terminals(), false);
}

std::string familyOf(const Network& network, const XgftParams& params,
                     const std::vector<std::vector<NodeId>>& nodesAt) {
  const std::size_t h = params.height();
  auto allSwitchesHavePorts = [&](std::size_t level, std::uint32_t ports) {
    for (NodeId node : nodesAt[level]) {
      if (network.portCount(node) != ports) return false;
    }
    return true;
  };
  bool uniformM = true, uniformW = params.w[0] == 1;
  for (std::size_t j = 1; j < h; ++j) {
    uniformM = uniformM && params.m[j] == params.m[0];
    uniformW = uniformW && params.w[j] == params.w[std::min<std::size_t>(1, h - 1)];
  }
  if (uniformM && uniformW) {
    const std::uint32_t children = params.m[0], parents = h >= 2 ? params.w[1] : children;
    bool ports = true;
    for (std::size_t level = 1; level <= h; ++level) ports = ports && allSwitchesHavePorts(level, children + parents);
    if (ports) return children == parents ? "kary-ntree" : "ft";
  }
  if (h == 2 && params.w[0] == 1 && allSwitchesHavePorts(1, params.m[0] + params.w[1]) &&
      allSwitchesHavePorts(2, params.m[1])) {
    return "gft2";
  }
  return "xgft";
}

using NodesAtLevel = std::vector<std::vector<NodeId>>;

/// XGFT parameters from the degrees: per level every node must have m_l children and
/// w_{l+1} parents, and no cable may stay within a level or skip one.
std::optional<XgftParams> uniformDegrees(const Network& network, const std::vector<std::uint32_t>& level,
                                         const NodesAtLevel& nodesAt) {
  const std::size_t h = nodesAt.size() - 1;
  XgftParams params;
  params.m.assign(h, 0);
  params.w.assign(h, 0);
  for (std::size_t l = 0; l <= h; ++l) {
    bool first = true;
    std::uint32_t downDegree = 0, upDegree = 0;
    for (NodeId node : nodesAt[l]) {
      std::uint32_t down = 0, up = 0;
      for (ChannelId channel : network.outChannels(node)) {
        const std::uint32_t other = level[network.target(channel).index()];
        if (other + 1 == l)
          ++down;
        else if (other == l + 1)
          ++up;
        else
          return std::nullopt;  // a cable within a level (or skipping one)
      }
      if (first) {
        downDegree = down;
        upDegree = up;
        first = false;
      } else if (down != downDegree || up != upDegree) {
        return std::nullopt;
      }
    }
    if (l > 0) {
      if (downDegree == 0) return std::nullopt;
      params.m[l - 1] = downDegree;
    }
    if (l < h) {
      if (upDegree == 0) return std::nullopt;
      params.w[l] = upDegree;
    }
  }
  return params;
}

/// Port convention: down ports 1..m_l, up ports m_l+1..m_l+w_{l+1}; and the node counts
/// per level are those of XGFT(params) (bounded product: no overflow).
bool matchesXgftShape(const Network& network, const std::vector<std::uint32_t>& level, const NodesAtLevel& nodesAt,
                      const XgftParams& params) {
  const std::size_t h = nodesAt.size() - 1;
  for (std::size_t l = 0; l <= h; ++l) {
    const std::uint32_t down = params.downPorts(l), up = params.upPorts(l);
    for (NodeId node : nodesAt[l]) {
      for (ChannelId channel : network.outChannels(node)) {
        const PortNumber port = network.sourcePort(channel);
        const bool goesUp = level[network.target(channel).index()] == l + 1;
        if (goesUp ? (port <= down || port > down + up) : (port < 1 || port > down)) return false;
      }
    }
  }
  for (std::size_t l = 0; l <= h; ++l) {
    std::uint64_t count = 1;
    for (std::size_t position = 1; position <= h; ++position) {
      count *= params.base(l, position);
      if (count > network.nodeCount()) return false;
    }
    if (count != nodesAt[l].size()) return false;
  }
  return true;
}

/// Every node's XGFT digits (node i, position j at i h + j - 1): m-digits (positions >
/// level) top-down from the parents' down ports, w-digits (positions <= level) bottom-up
/// from the children's up ports.
std::vector<std::uint32_t> xgftDigits(const Network& network, const std::vector<std::uint32_t>& level,
                                      const NodesAtLevel& nodesAt, const XgftParams& params) {
  const std::size_t h = nodesAt.size() - 1;
  std::vector<std::uint32_t> digits(network.nodeCount() * h, 0);
  auto digit = [&](NodeId node, std::size_t position) -> std::uint32_t& {
    return digits[node.index() * h + position - 1];
  };
  for (std::size_t l = h; l-- > 0;) {
    for (NodeId node : nodesAt[l]) {
      for (ChannelId channel : network.outChannels(node)) {
        const NodeId parent = network.target(channel);
        if (level[parent.index()] != l + 1) continue;
        digit(node, l + 1) = network.targetPort(channel) - 1U;
        for (std::size_t j = l + 2; j <= h; ++j) digit(node, j) = digit(parent, j);
        break;
      }
    }
  }
  for (std::size_t l = 1; l <= h; ++l) {
    for (NodeId node : nodesAt[l]) {
      for (ChannelId channel : network.outChannels(node)) {
        const NodeId child = network.target(channel);
        if (level[child.index()] + 1 != l) continue;
        digit(node, l) = network.targetPort(channel) - 1U - params.downPorts(l - 1);
        for (std::size_t j = 1; j < l; ++j) digit(node, j) = digit(child, j);
        break;
      }
    }
  }
  return digits;
}

/// Labels from the digits; null when a digit is out of range or two nodes share a tuple.
std::shared_ptr<XgftLabels> labelsFromDigits(const Network& network, const NodesAtLevel& nodesAt,
                                             const XgftParams& params, const std::vector<std::uint32_t>& digits) {
  const std::size_t h = nodesAt.size() - 1;
  auto labels = std::make_shared<XgftLabels>();
  labels->params = params;
  labels->level.resize(network.nodeCount());
  labels->indexInLevel.resize(network.nodeCount());
  labels->nodesAt.resize(h + 1);
  for (std::size_t l = 0; l <= h; ++l) labels->nodesAt[l].assign(nodesAt[l].size(), NodeId{});
  for (std::size_t l = 0; l <= h; ++l) {
    for (NodeId node : nodesAt[l]) {
      std::uint64_t index = 0;
      for (std::size_t j = h; j >= 1; --j) {
        const std::uint32_t value = digits[node.index() * h + j - 1];
        if (value >= params.base(l, j)) return nullptr;
        index = index * params.base(l, j) + value;
      }
      NodeId& slot = labels->nodesAt[l][index];
      if (slot.valid()) return nullptr;  // two nodes with the same tuple
      slot = node;
      labels->level[node.index()] = static_cast<std::uint8_t>(l);
      labels->indexInLevel[node.index()] = static_cast<std::uint32_t>(index);
    }
  }
  return labels;
}

}  // namespace

std::optional<Network> recognizeFatTree(const Network& network) {
  if (network.terminalCount() == 0 || network.switchCount() == 0) return std::nullopt;
  const std::vector<std::uint32_t> level = levelsFromTerminals(network);
  std::uint32_t height = 0;
  for (std::size_t i = 0; i < network.nodeCount(); ++i) {
    if (level[i] == kUnreachable) return std::nullopt;
    if (network.isTerminal(NodeId::fromIndex(i)) != (level[i] == 0)) return std::nullopt;
    height = std::max(height, level[i]);
  }
  if (height == 0 || height > 254) return std::nullopt;
  NodesAtLevel nodesAt(height + 1);
  for (std::size_t i = 0; i < network.nodeCount(); ++i) nodesAt[level[i]].push_back(NodeId::fromIndex(i));
  const std::optional<XgftParams> params = uniformDegrees(network, level, nodesAt);
  if (!params || !matchesXgftShape(network, level, nodesAt, *params)) return std::nullopt;
  auto labels = labelsFromDigits(network, nodesAt, *params, xgftDigits(network, level, nodesAt, *params));
  if (!labels) return std::nullopt;
  labels->family = familyOf(network, *params, labels->nodesAt);
  try {
    checkXgftLabels(network, *labels);
  } catch (const TopologyError&) {
    return std::nullopt;
  }
  return network.withXgft(std::move(labels));
}

}  // namespace routelab
