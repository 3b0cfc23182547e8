// routelab/graph/xgft_labels.h — the label arithmetic of extended generalized fat-trees.
//
// XGFT(h; m_1..m_h; w_1..w_h) (Öhring et al. 1995): level 0 holds the terminals, levels
// 1..h the switches. A level-l node is labelled by a tuple (x_h, ..., x_1) where positions
// j > l are "m-digits" x_j in [0, m_j) and positions j <= l are "w-digits" x_j in [0, w_j).
// A level-l node and a level-(l+1) node are joined iff their tuples agree everywhere except
// at position l+1. Hence a level-l switch has m_l children and w_{l+1} parents.
//
// Index within a level: the tuple read as a mixed-radix number, position h most
// significant. This is the numbering of the papers:
//   * k-ary n-tree = XGFT(n; k..k; 1,k..k). Gómez §2: processing node p_{n-1}..p_0 has
//     x_{i+1} = p_i; switch <s, o> (stage s = level s+1) has o_i = x_{i+2}; the
//     terminal index is sum p_i k^i and the switch index within its stage sum o_i k^i.
//   * T(n+m, r) = XGFT(2; n, r; 1, m) (Nienaber §II): node i = a_2 n + a_1 on
//     BSW_{i/n}; BSW_i has x_2 = i; TSW_j has x_2 = j (a w-digit).
//   * FT(l, m, w) (Ding §2–3): see topology/ft.h for its SW(h, τ) mapping.
//
// Hardware ports of a level-l switch (documented mapping, 1-based as on hardware):
//   port 1 + c          down to the child whose x_l = c          (c in [0, m_l))
//   port m_l + 1 + b    up to the parent whose x_{l+1} = b       (b in [0, w_{l+1}))
// Terminals: port 1 + b up to the leaf whose x_1 = b (b in [0, w_1)).
// So Gómez's paper labels (descending 0..k-1, ascending k..2k-1) are hardware port - 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ids.h"

namespace routelab {

/// Parameters of an XGFT. m[j-1] = m_j, w[j-1] = w_j for j = 1..h.
struct XgftParams {
  std::vector<std::uint32_t> m;
  std::vector<std::uint32_t> w;
  std::size_t height() const { return m.size(); }
  /// Number of nodes at level l (0 = terminals).
  std::uint64_t nodesAtLevel(std::size_t level) const;
  /// Down-degree (children) of a level-l switch: m_l; up-degree: w_{l+1} (0 at the top).
  std::uint32_t downPorts(std::size_t level) const { return level == 0 ? 0 : m[level - 1]; }
  std::uint32_t upPorts(std::size_t level) const { return level < m.size() ? w[level] : 0; }
  /// Radix of a level-l node (ports used).
  std::uint32_t radix(std::size_t level) const { return downPorts(level) + upPorts(level); }
  /// Digit base at tuple position `position` (1..h) for a node at `level`.
  std::uint32_t base(std::size_t level, std::size_t position) const {
    return position > level ? m[position - 1] : w[position - 1];
  }
  std::string str() const;  ///< "XGFT(2; 16,32; 1,16)"
};

/// Per-node level and index-in-level of a network that is an XGFT; with the params this
/// gives every node's tuple.
struct XgftLabels {
  XgftParams params;
  std::vector<std::uint8_t> level;           ///< per NodeId: 0 = terminal, 1..h switches
  std::vector<std::uint32_t> indexInLevel;   ///< per NodeId
  std::vector<std::vector<NodeId>> nodesAt;  ///< per level, by index in level
  std::string family;                        ///< "kary-ntree", "gft2", "ft", "xgft"

  /// Tuple digit x_position of `node` (position 1..h).
  std::uint32_t digit(NodeId node, std::size_t position) const;
  /// All digits, position 1 first (index j-1 holds x_j).
  std::vector<std::uint32_t> digits(NodeId node) const;
  /// Index within a level of a tuple (digits position 1 first) at that level.
  std::uint64_t indexOf(std::size_t level, const std::vector<std::uint32_t>& digits) const;
};

}  // namespace routelab
