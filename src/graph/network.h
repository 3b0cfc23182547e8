// routelab/graph/network.h — the immutable network model.
//
// A Network is switches and terminals (hosts / channel adapters), each with hardware port
// numbers 1..portCount(node), joined by cables. Each cable is two directed channels with
// consecutive ids 2i and 2i+1, so reverse(c) is c ^ 1. Parallel cables between the same
// pair of switches are allowed. Ids are dense: NodeId over all nodes (in the order the
// builder added them), and additionally every switch has a switch index 0..S-1 and every
// terminal a terminal index 0..T-1 (both in node-id order), so per-switch / per-terminal /
// per-channel data lives in plain vectors outside the network.
//
// A Network is built by NetworkBuilder (graph/builder.h), which validates it, and is
// immutable afterwards: algorithms take `const Network&` and return results; nothing is
// ever written back into it.
//
// Memory: O(nodes + ports + channels); ~16 bytes per channel plus names.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/ids.h"
#include "graph/xgft_labels.h"

namespace routelab {

enum class NodeKind : std::uint8_t { Switch, Terminal };

class NetworkBuilder;

class Network {
 public:
  Network() = default;

  // ---- counts -------------------------------------------------------------------------
  std::size_t nodeCount() const { return kind_.size(); }
  std::size_t switchCount() const { return switches_.size(); }
  std::size_t terminalCount() const { return terminals_.size(); }
  std::size_t channelCount() const { return channelSource_.size(); }
  std::size_t linkCount() const { return channelSource_.size() / 2; }

  // ---- nodes --------------------------------------------------------------------------
  NodeKind kind(NodeId node) const { return kind_[node.index()]; }
  bool isSwitch(NodeId node) const { return kind_[node.index()] == NodeKind::Switch; }
  bool isTerminal(NodeId node) const { return kind_[node.index()] == NodeKind::Terminal; }
  const std::string& name(NodeId node) const { return name_[node.index()]; }
  std::uint64_t guid(NodeId node) const { return guid_[node.index()]; }
  /// Number of hardware ports (connected or not); ports are numbered 1..portCount.
  PortNumber portCount(NodeId node) const { return portCount_[node.index()]; }

  /// Switch node ids in switch-index order; terminals likewise.
  std::span<const NodeId> switches() const { return switches_; }
  std::span<const NodeId> terminals() const { return terminals_; }
  NodeId switchNode(std::size_t switchIndex) const { return switches_[switchIndex]; }
  NodeId terminalNode(std::size_t terminalIndex) const { return terminals_[terminalIndex]; }
  /// Index of `node` among switches (or terminals). Precondition: node is of that kind.
  std::uint32_t switchIndex(NodeId node) const { return kindIndex_[node.index()]; }
  std::uint32_t terminalIndex(NodeId node) const { return kindIndex_[node.index()]; }
  /// Index among nodes of its own kind.
  std::uint32_t kindIndex(NodeId node) const { return kindIndex_[node.index()]; }

  /// Node with this name, if any (O(1) average).
  std::optional<NodeId> findNode(const std::string& name) const;

  // ---- ports and channels ---------------------------------------------------------------
  /// Channel leaving `node` through `port`, or an invalid id if the port is down or out of
  /// range (port 0 = the switch itself has no channel).
  ChannelId channelAt(NodeId node, PortNumber port) const {
    if (port == 0 || port > portCount_[node.index()]) return {};
    return portChannel_[portBase_[node.index()] + port - 1];
  }
  /// Channels leaving `node`, in increasing port order (connected ports only).
  std::span<const ChannelId> outChannels(NodeId node) const {
    return {outChannels_.data() + outBase_[node.index()], outChannels_.data() + outBase_[node.index() + 1]};
  }
  NodeId source(ChannelId c) const { return channelSource_[c.index()]; }
  NodeId target(ChannelId c) const { return channelSource_[c.index() ^ 1U]; }
  PortNumber sourcePort(ChannelId c) const { return channelPort_[c.index()]; }
  PortNumber targetPort(ChannelId c) const { return channelPort_[c.index() ^ 1U]; }
  static ChannelId reverse(ChannelId c) { return ChannelId(c.value ^ 1U); }
  /// Cable (link) index of a channel: channels 2i and 2i+1 are cable i.
  static std::size_t linkOf(ChannelId c) { return c.index() / 2; }
  /// Number of connected ports of a node.
  std::size_t degree(NodeId node) const { return outBase_[node.index() + 1] - outBase_[node.index()]; }

  /// The switch a terminal is attached to through its lowest connected port, and that
  /// channel (terminal -> switch). Invalid if the terminal is not connected to a switch.
  ChannelId injectionChannel(NodeId terminal) const;
  /// "name[port]" — how messages name a channel end (e.g. "kt-s0-00[5]").
  std::string describePort(NodeId node, PortNumber port) const;
  /// "a[p] -> b[q]".
  std::string describeChannel(ChannelId c) const;

  // ---- structure known by the generator -----------------------------------------------
  /// Extended generalized fat-tree labels when the network is (known to be) an XGFT:
  /// set by the fat-tree generators and by fat-tree recognition of imported fabrics.
  const XgftLabels* xgft() const { return xgft_.get(); }
  /// Short description of where this network came from (the spec it was built from).
  const std::string& origin() const { return origin_; }

  /// Copy with XGFT labels attached (used by recognition of imported fabrics). The labels
  /// must describe this network; callers validate with checkXgftLabels().
  Network withXgft(std::shared_ptr<const XgftLabels> labels) const;
  Network withOrigin(std::string origin) const;

 private:
  friend class NetworkBuilder;

  std::vector<NodeKind> kind_;
  std::vector<std::string> name_;
  std::vector<std::uint64_t> guid_;
  std::vector<PortNumber> portCount_;
  std::vector<std::uint32_t> kindIndex_;
  std::vector<NodeId> switches_;
  std::vector<NodeId> terminals_;
  std::vector<std::uint32_t> portBase_;  // node -> first slot in portChannel_
  std::vector<ChannelId> portChannel_;   // (node, port-1) -> channel or invalid
  std::vector<std::uint32_t> outBase_;   // node -> first entry in outChannels_ (n+1)
  std::vector<ChannelId> outChannels_;
  std::vector<NodeId> channelSource_;                                             // channel -> source node
  std::vector<PortNumber> channelPort_;                                           // channel -> source port
  std::shared_ptr<const std::vector<std::pair<std::string, NodeId>>> nameIndex_;  // sorted
  std::shared_ptr<const XgftLabels> xgft_;
  std::string origin_;
};

}  // namespace routelab
