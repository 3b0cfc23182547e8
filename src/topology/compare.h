// routelab/topology/compare.h — structural comparison of two networks.
//
// Used by the importer tests (an imported fabric must equal the generated one it came
// from) and by users who want to know how two fabrics differ.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "graph/network.h"

namespace routelab {

struct CompareOptions {
  /// At most this many differences are reported; when there are more, the last entry
  /// says so ("... more differences").
  std::size_t limit = 20;
  /// Accept different port counts of a node when every cabled port of either side exists
  /// on the other (e.g. `ibnetdiscover -p` output knows only the ports it lists).
  bool ignoreUnusedPorts = false;
  /// Also compare node GUIDs.
  bool compareGuids = false;
  /// Also require the same node-id order (the canonical order of importers).
  bool compareOrder = false;
};

/// Differences between `a` and `b`, as human-readable lines; empty = equal. Nodes are
/// matched by name; compared are the node sets, kinds, port counts and, for every port,
/// the cable on it (remote node name and port). O((nodes + ports) log nodes).
std::vector<std::string> networkDifferences(const Network& a, const Network& b, const CompareOptions& options);
std::vector<std::string> networkDifferences(const Network& a, const Network& b, std::size_t limit = 20);

}  // namespace routelab
