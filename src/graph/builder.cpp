#include "graph/builder.h"

#include <fmt/format.h>
#include <algorithm>

#include "core/errors.h"

namespace routelab {

void NetworkBuilder::reserve(std::size_t nodes, std::size_t cables) {
  kinds_.reserve(nodes);
  names_.reserve(nodes);
  guids_.reserve(nodes);
  ports_.reserve(nodes);
  cables_.reserve(cables);
}

NodeId NetworkBuilder::addNode(NodeKind kind, std::string name, PortNumber ports, std::uint64_t guid) {
  if (name.empty()) throw TopologyError(fmt::format("node {} has an empty name", kinds_.size()));
  if (ports == 0) throw TopologyError(fmt::format("node '{}' has no ports", name));
  if (ports > 254) {
    throw TopologyError(
        fmt::format("node '{}' has {} ports; at most 254 are supported (InfiniBand limit)", name, ports));
  }
  const NodeId id = NodeId::fromIndex(kinds_.size());
  kinds_.push_back(kind);
  names_.push_back(std::move(name));
  guids_.push_back(guid);
  ports_.push_back(ports);
  return id;
}

NodeId NetworkBuilder::addSwitch(std::string name, PortNumber ports, std::uint64_t guid) {
  return addNode(NodeKind::Switch, std::move(name), ports, guid);
}

NodeId NetworkBuilder::addTerminal(std::string name, PortNumber ports, std::uint64_t guid) {
  return addNode(NodeKind::Terminal, std::move(name), ports, guid);
}

void NetworkBuilder::checkPort(NodeId node, PortNumber port, const std::string& where) const {
  if (!node.valid() || node.index() >= kinds_.size()) {
    throw TopologyError(fmt::format("{}unknown node id {}", where.empty() ? "" : where + ": ", node.value));
  }
  if (port < 1 || port > ports_[node.index()]) {
    throw TopologyError(fmt::format("{}port {} of '{}' is out of range 1..{}", where.empty() ? "" : where + ": ", port,
                                    names_[node.index()], ports_[node.index()]));
  }
}

void NetworkBuilder::connect(NodeId a, PortNumber portA, NodeId b, PortNumber portB) {
  checkPort(a, portA, {});
  checkPort(b, portB, {});
  if (a == b && portA == portB) {
    throw TopologyError(fmt::format("cable from '{}'[{}] to itself", names_[a.index()], portA));
  }
  cables_.push_back({a, b, portA, portB});
}

void NetworkBuilder::addHalfLink(NodeId a, PortNumber portA, NodeId b, PortNumber portB, std::string where) {
  checkPort(a, portA, where);
  checkPort(b, portB, where);
  halves_.push_back({a, b, portA, portB, std::move(where)});
}

void NetworkBuilder::setXgftLabels(std::shared_ptr<const XgftLabels> labels) { xgft_ = std::move(labels); }
void NetworkBuilder::setOrigin(std::string origin) { origin_ = std::move(origin); }

/// Pair half-links (importers list both ends of every cable) into cables.
void NetworkBuilder::pairHalfLinks(const std::vector<std::uint32_t>& portBase) {
  if (halves_.empty()) return;
  std::vector<std::uint32_t> halfAt(portBase.back(), UINT32_MAX);
  for (std::size_t h = 0; h < halves_.size(); ++h) {
    const Half& half = halves_[h];
    auto& slot = halfAt[portBase[half.a.index()] + half.portA - 1];
    if (slot != UINT32_MAX) {
      throw TopologyError(fmt::format("{}: port {}[{}] is listed twice (also at {})", half.where,
                                      names_[half.a.index()], half.portA, halves_[slot].where));
    }
    slot = static_cast<std::uint32_t>(h);
  }
  for (std::size_t h = 0; h < halves_.size(); ++h) {
    const Half& half = halves_[h];
    const std::uint32_t other = halfAt[portBase[half.b.index()] + half.portB - 1];
    if (other == UINT32_MAX) {
      throw TopologyError(fmt::format("{}: asymmetric link: {}[{}] -> {}[{}] but {}[{}] lists no link back", half.where,
                                      names_[half.a.index()], half.portA, names_[half.b.index()], half.portB,
                                      names_[half.b.index()], half.portB));
    }
    const Half& back = halves_[other];
    if (back.b != half.a || back.portB != half.portA) {
      throw TopologyError(fmt::format("{}: asymmetric link: {}[{}] -> {}[{}] but {}[{}] -> {}[{}] ({})", half.where,
                                      names_[half.a.index()], half.portA, names_[half.b.index()], half.portB,
                                      names_[back.a.index()], back.portA, names_[back.b.index()], back.portB,
                                      back.where));
    }
    if (std::pair(half.a.value, half.portA) < std::pair(half.b.value, half.portB)) {
      cables_.push_back({half.a, half.b, half.portA, half.portB});
    }
  }
  halves_.clear();
}

/// The (name, node) index sorted by name; throws for a name used twice.
std::shared_ptr<std::vector<std::pair<std::string, NodeId>>> NetworkBuilder::uniqueNameIndex() const {
  auto index = std::make_shared<std::vector<std::pair<std::string, NodeId>>>();
  index->reserve(kinds_.size());
  for (std::size_t i = 0; i < kinds_.size(); ++i) index->emplace_back(names_[i], NodeId::fromIndex(i));
  std::sort(index->begin(), index->end());
  for (std::size_t i = 1; i < index->size(); ++i) {
    if ((*index)[i].first == (*index)[i - 1].first) {
      throw TopologyError(fmt::format("two nodes are named '{}'", (*index)[i].first));
    }
  }
  return index;
}

/// Two channels per cable (2i from a, 2i + 1 from b) and every node's out-channels in
/// port order; throws for a port used by two cables.
void NetworkBuilder::addChannels(Network& net, const std::vector<std::uint32_t>& portBase) const {
  const std::size_t n = kinds_.size();
  net.portChannel_.assign(portBase[n], ChannelId{});
  net.channelSource_.resize(2 * cables_.size());
  net.channelPort_.resize(2 * cables_.size());
  for (std::size_t i = 0; i < cables_.size(); ++i) {
    const Cable& cable = cables_[i];
    auto claim = [&](NodeId node, PortNumber port, std::size_t channel) {
      ChannelId& slot = net.portChannel_[portBase[node.index()] + port - 1];
      if (slot.valid()) {
        throw TopologyError(fmt::format("port {}[{}] is used by two cables", names_[node.index()], port));
      }
      slot = ChannelId::fromIndex(channel);
      net.channelSource_[channel] = node;
      net.channelPort_[channel] = port;
    };
    claim(cable.a, cable.portA, 2 * i);
    claim(cable.b, cable.portB, 2 * i + 1);
  }
  net.outBase_.assign(n + 1, 0);
  net.outChannels_.reserve(2 * cables_.size());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t p = portBase[i]; p < portBase[i + 1]; ++p) {
      if (net.portChannel_[p].valid()) net.outChannels_.push_back(net.portChannel_[p]);
    }
    net.outBase_[i + 1] = static_cast<std::uint32_t>(net.outChannels_.size());
  }
}

/// Kinds, dense per-kind indices and GUIDs (ibsim's defaults for GUID 0).
void NetworkBuilder::addKindsAndGuids(Network& net) {
  const std::size_t n = kinds_.size();
  net.kindIndex_.resize(n);
  std::size_t switches = 0, terminals = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (kinds_[i] == NodeKind::Switch) {
      net.kindIndex_[i] = static_cast<std::uint32_t>(switches++);
      net.switches_.push_back(NodeId::fromIndex(i));
      if (guids_[i] == 0) guids_[i] = 0x200000 + net.kindIndex_[i];
    } else {
      net.kindIndex_[i] = static_cast<std::uint32_t>(terminals++);
      net.terminals_.push_back(NodeId::fromIndex(i));
      if (guids_[i] == 0) guids_[i] = 0x100000 + 2ULL * net.kindIndex_[i];
    }
  }
}

Network NetworkBuilder::build() {
  const std::size_t n = kinds_.size();
  Network net;
  std::vector<std::uint32_t> portBase(n + 1, 0);  // port slots
  for (std::size_t i = 0; i < n; ++i) portBase[i + 1] = portBase[i] + ports_[i];
  pairHalfLinks(portBase);
  auto index = uniqueNameIndex();
  addChannels(net, portBase);
  addKindsAndGuids(net);
  net.portBase_ = std::move(portBase);
  net.kind_ = std::move(kinds_);
  net.name_ = std::move(names_);
  net.guid_ = std::move(guids_);
  net.portCount_ = std::move(ports_);
  net.nameIndex_ = std::move(index);
  net.origin_ = std::move(origin_);
  cables_.clear();
  if (xgft_) {
    checkXgftLabels(net, *xgft_);
    net.xgft_ = std::move(xgft_);
  }
  *this = NetworkBuilder();
  return net;
}

void checkXgftLabels(const Network& network, const XgftLabels& labels) {
  const XgftParams& params = labels.params;
  const std::size_t h = params.height();
  if (labels.level.size() != network.nodeCount() || labels.indexInLevel.size() != network.nodeCount()) {
    throw TopologyError("XGFT labels do not cover every node");
  }
  std::size_t expectedCables = 0;
  for (std::size_t l = 0; l < h; ++l) expectedCables += params.nodesAtLevel(l) * params.upPorts(l);
  if (expectedCables != network.linkCount()) {
    throw TopologyError(
        fmt::format("{} has {} cables, the network {}", params.str(), expectedCables, network.linkCount()));
  }
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    const ChannelId channel = ChannelId::fromIndex(c);
    const NodeId u = network.source(channel), v = network.target(channel);
    const std::size_t lu = labels.level[u.index()], lv = labels.level[v.index()];
    if (lv + 1 == lu) continue;  // each cable is checked from its lower end
    if (lv != lu + 1) {
      throw TopologyError(
          fmt::format("XGFT labels: {} joins levels {} and {}", network.describeChannel(channel), lu, lv));
    }
    const auto du = labels.digits(u), dv = labels.digits(v);
    for (std::size_t j = 1; j <= h; ++j) {
      if (j != lu + 1 && du[j - 1] != dv[j - 1]) {
        throw TopologyError(
            fmt::format("XGFT labels: {} joins nodes differing at position {}", network.describeChannel(channel), j));
      }
    }
    const PortNumber upPort = static_cast<PortNumber>(params.downPorts(lu) + 1 + dv[lu]);
    const PortNumber downPort = static_cast<PortNumber>(1 + du[lu]);
    if (network.sourcePort(channel) != upPort || network.targetPort(channel) != downPort) {
      throw TopologyError(
          fmt::format("XGFT labels: {} should use ports {} -> {}", network.describeChannel(channel), upPort, downPort));
    }
  }
}

}  // namespace routelab
