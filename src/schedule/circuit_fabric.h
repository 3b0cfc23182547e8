// routelab/schedule/circuit_fabric.h — the fat-tree view the circuit schedulers compute on.
//
// Ding et al. (SC'06) schedule circuits on FT(l, m, w). Their Theorems 1–2 hold in every
// extended generalized fat-tree XGFT(h; m_1..m_h; w_1..w_h) (graph/xgft_labels.h), which
// contains FT(l, m, w) = XGFT(l; m..m; 1, w..w), the k-ary n-tree = XGFT(n; k..k; 1, k..k)
// and T(n+m, r) = XGFT(2; n, r; 1, m). This class gives the schedulers Ding's quantities on
// any network that carries XgftLabels:
//
//   * scheduling level k = 0 .. h-1 is the cable layer between XGFT level k and k+1;
//     k = 0 are the terminal links (one per terminal when w_1 = 1, as in FT(l, m, w)),
//     k >= 1 is Ding's switch level h = k-1 (Ding's P_h is our port at level k = h+1).
//   * a level-k node has upPorts(k) = w_{k+1} up ports; Ulink(k, node, i) is the channel
//     up through port i, Dlink(k, node, i) the reverse channel (Ding §3, Fig. 2).
//   * group(k, t) = the terminal's XGFT index divided by m_1 ... m_k: the digits above
//     position k, which name the level-k subtree of t. The common ancestor level of a
//     request is the smallest H >= 1 with group(H, s) = group(H, d).
//   * Theorem 1 / 2 in XGFT form: after choosing ports b_0 .. b_{k-1}, the source side is at
//     the level-k node group(k, s) W_k + low and the destination side at
//     group(k, d) W_k + low, with W_k = w_1 ... w_k and low = Σ_{j<k} b_j W_j — the same
//     port digits on both sides (Ding eq. 10–13), so the down path is fixed by the up path.
//
// The fabric keeps a pointer to the network: the network must outlive it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/network.h"
#include "traffic/demand.h"

namespace routelab {

// A circuit request is a demand of the traffic vocabulary (traffic/demand.h): source and
// destination terminal indices (Network::terminalIndex numbering).

class CircuitFabric {
 public:
  /// Throws UnsupportedTopology when `network` has no XGFT labels (e.g. a random fabric,
  /// or a fat-tree after fault removal) or has more than 2^32 - 1 nodes per level.
  /// O(levels × terminals).
  explicit CircuitFabric(const Network& network);

  const Network& network() const { return *network_; }
  /// Scheduling levels (the XGFT height h): cable layers 0 .. h-1.
  std::size_t levels() const { return upPorts_.size(); }
  std::size_t terminals() const { return network_->terminalCount(); }
  /// w_{k+1}: up ports of a level-k node.
  std::uint32_t upPorts(std::size_t level) const { return upPorts_[level]; }
  /// Nodes at XGFT level k (k = 0: terminals).
  std::uint64_t nodesAt(std::size_t level) const { return nodesAt_[level]; }
  /// W_k = w_1 ... w_k (W_0 = 1): the weight of the port digits in a level-k index.
  std::uint64_t weight(std::size_t level) const { return weight_[level]; }
  /// Level-k subtree of terminal t (see above); group(0, t) is t's XGFT index.
  std::uint32_t group(std::size_t level, std::uint32_t terminal) const {
    return groups_[level * terminals() + terminal];
  }
  /// The per-level group table: groups(k)[t] = group(k, t).
  std::span<const std::uint32_t> groups(std::size_t level) const {
    return {groups_.data() + level * terminals(), terminals()};
  }
  /// Terminal-major copy of the group table: groupsOf(t)[k] = group(k, t) (the
  /// schedulers' hot loops read every level of one terminal together).
  const std::uint32_t* groupsOf(std::uint32_t terminal) const { return terminalGroups_.data() + terminal * levels(); }
  /// True when group(k, t) = t >> groupShift(k) for every level and terminal (terminals
  /// numbered as their XGFT index and every m_1 ... m_k a power of two, as in FT(l, m, w)
  /// with m a power of two): the schedulers then skip the group table.
  bool shiftGroups() const { return shiftGroups_; }
  std::uint32_t groupShift(std::size_t level) const { return groupShift_[level]; }
  /// Common ancestor level H in 1..h of two different terminals (0 if equal). O(h).
  std::uint32_t ancestorLevel(std::uint32_t source, std::uint32_t destination) const;
  /// The node of XGFT level k with index `index`.
  NodeId node(std::size_t level, std::uint64_t index) const;
  /// Ulink(k, index, port): the channel from that level-k node up through its up port
  /// `port` (0-based; hardware port m_k + 1 + port). Its reverse is Dlink(k, index, port).
  ChannelId upChannel(std::size_t level, std::uint64_t index, std::uint32_t port) const;

  /// The channels of the circuit s -> d that uses up ports `ports` (b_0 .. b_{H-1}):
  /// injection channel first, delivery channel last (RoutingResult::Path order).
  /// Precondition: ports.size() == ancestorLevel(s, d), each below upPorts(k). O(H).
  std::vector<ChannelId> circuitPath(SourceDestination request, std::span<const std::uint16_t> ports) const;

 private:
  const Network* network_ = nullptr;
  const XgftLabels* labels_ = nullptr;
  std::vector<std::uint32_t> upPorts_;
  std::vector<std::uint64_t> nodesAt_;
  std::vector<std::uint64_t> weight_;
  std::vector<std::uint32_t> groups_;          // level-major, per terminal index
  std::vector<std::uint32_t> terminalGroups_;  // terminal-major
  bool shiftGroups_ = false;
  std::vector<std::uint32_t> groupShift_;
};

}  // namespace routelab
