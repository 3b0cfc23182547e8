// routelab/graph/algorithms.h — graph algorithms on the immutable Network.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "graph/network.h"

namespace routelab {

inline constexpr std::uint32_t kUnreachable = UINT32_MAX;

/// Hop distances (in channels) from `source` to every node, BFS. Unreachable =
/// kUnreachable. When `throughSwitchesOnly` is true, terminals other than `source` are not
/// expanded (a terminal never forwards). O(nodes + channels).
std::vector<std::uint32_t> hopDistances(const Network& network, NodeId source, bool throughSwitchesOnly = true);
/// The same from several sources at once: every node's distance to the nearest source
/// (multi-source BFS); with `throughSwitchesOnly`, terminals other than the sources are
/// not expanded. O(nodes + channels).
std::vector<std::uint32_t> hopDistances(const Network& network, std::span<const NodeId> sources,
                                        bool throughSwitchesOnly);

/// Switch-to-switch hop distance matrix (S x S, row-major, switch indices), BFS from every
/// switch over switch-switch channels only; uses all cores. O(S (S + C)).
std::vector<std::uint16_t> switchDistanceMatrix(const Network& network);

/// Connected components over all nodes. Terminals forward nothing: a terminal joins the
/// component it is first reached from and never joins two switch islands (a terminal
/// cabled to two islands belongs to the one containing the lower node id reached first).
/// Returns component id per node, ids 0.. by first node. O(nodes + channels).
std::vector<std::uint32_t> connectedComponents(const Network& network);
std::size_t componentCount(const std::vector<std::uint32_t>& components);

/// Largest terminal-to-terminal hop distance (channels) over terminal pairs that are
/// connected; kUnreachable if no terminals. For multi-homed terminals (several cables)
/// this is the largest distance between attachment switches + 2, an upper bound.
/// Multi-source BFS, 64 sources per pass, all cores: O(S/64 · diameter · C).
std::uint32_t terminalDiameter(const Network& network);
/// Largest switch-to-switch distance over connected switch pairs.
std::uint32_t switchDiameter(const Network& network);

}  // namespace routelab
