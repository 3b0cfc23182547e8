// routelab/cdg/cdg.h — THE channel dependency graph (one implementation, used by the
// verifier and by every engine that assigns layers: LASH family, MROOTS, Escape).
//
// Lysne et al. 2006, Def. 4: a dependency (c1, c2) exists when a packet may hold channel
// c1 while requesting c2 (consecutive channels of a path). Defs. 11–12 (layered): a
// dependency exists only inside the layer its traffic is assigned to, so the graph keeps
// one dependency set per layer. Dependencies are reference counted (how many paths
// induce them), so paths can be removed again (LASH step 4 balancing).
//
// Incremental use (LASH §5.1 step 2): tryAddPath() adds a path's dependencies to a layer
// unless that would close a cycle, maintaining a topological order per layer
// (Pearce–Kelly dynamic topological sort), not a fresh search per path.
//
// IMPLEMENTATION: owned by the cdg module (src/cdg/cdg.cpp). This header is the contract
// shared with layered/ and verify/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/ids.h"
#include "graph/network.h"

namespace routelab {

class ChannelDependencyGraph {
 public:
  /// An empty CDG over the channels of `network` with `layers` independent layers.
  /// The network must outlive the graph.
  ChannelDependencyGraph(const Network& network, std::size_t layers = 1);

  std::size_t layerCount() const;
  /// Add another empty layer; returns its id.
  LayerId addLayer();

  /// Add the dependencies of `path` (consecutive channel pairs) to `layer`, unconditionally.
  void addPath(LayerId layer, std::span<const ChannelId> path);
  /// Add them only if `layer` stays acyclic; returns false and leaves the graph unchanged
  /// otherwise. Amortised cost: the Pearce–Kelly reordering of the affected region.
  bool tryAddPath(LayerId layer, std::span<const ChannelId> path);
  /// Would adding `path` to `layer` close a cycle? (no change)
  bool wouldCloseCycle(LayerId layer, std::span<const ChannelId> path);
  /// Remove one occurrence of each dependency of `path` (reference counts).
  void removePath(LayerId layer, std::span<const ChannelId> path);
  /// Add a single dependency c1 -> c2 (e.g. from an adaptive candidate set).
  void addDependency(LayerId layer, ChannelId from, ChannelId to);

  /// Number of distinct dependencies in a layer.
  std::size_t dependencyCount(LayerId layer) const;
  bool hasDependency(LayerId layer, ChannelId from, ChannelId to) const;

  /// A cycle in `layer` as a channel list c0 -> c1 -> ... -> c0 (c0 not repeated), or
  /// nullopt if the layer is acyclic. O(V + E) Tarjan/DFS.
  std::optional<std::vector<ChannelId>> findCycle(LayerId layer) const;

  /// "a[p] -> b[q] => b[r] -> c[s] => ... " naming channels by switch and port.
  std::string describeCycle(std::span<const ChannelId> cycle) const;

  const Network& network() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace routelab
