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
// Representation: a dependency c1 -> c2 requires target(c1) == source(c2) (Def. 4: c2 is
// an output of the node c1 enters), so a layer stores one reference count per (channel c1,
// output port of target(c1)) in one flat array — O(sum over nodes of degree^2) memory per
// layer, O(1) insertion and lookup, adjacency read from the network itself.
//
// Order maintenance contract: tryAddPath()/wouldCloseCycle() keep the layer's topological
// order up to date incrementally (Pearce & Kelly, ACM JEA 11, 2006: only the region between
// the two endpoints is reordered). Unconditional additions (addPath, addDependency) cost
// O(1) each and only mark the order stale when they contradict it; the next tryAddPath on
// that layer then re-sorts it from scratch once (O(channels + slots)). removePath never
// invalidates an order. So bulk construction followed by findCycle() (the verifier) is
// linear, and the LASH loop is incremental.
//
// Copying a graph copies its dependency sets (value semantics). Not thread-safe for
// concurrent mutation; const member functions may run concurrently.
//
// IMPLEMENTATION: owned by the cdg module (src/cdg/cdg.cpp). This header is the contract
// shared with engines/irregular/ and verify/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/ids.h"
#include "graph/network.h"

namespace routelab {

class ChannelDependencyGraph {
 public:
  /// An empty CDG over the channels of `network` with `layers` independent layers.
  /// The network must outlive the graph. Before allocating any layer: LimitError when the
  /// layers would exceed the memory budget, RoutingError for more than kMaxLayers (16).
  ChannelDependencyGraph(const Network& network, std::size_t layers = 1);
  ChannelDependencyGraph(const ChannelDependencyGraph& other);
  ChannelDependencyGraph& operator=(const ChannelDependencyGraph& other);
  ChannelDependencyGraph(ChannelDependencyGraph&&) noexcept;
  ChannelDependencyGraph& operator=(ChannelDependencyGraph&&) noexcept;
  ~ChannelDependencyGraph();

  std::size_t layerCount() const;
  /// Add another empty layer; returns its id. Throws RoutingError, before allocating, when
  /// the graph already has kMaxLayers (16) layers.
  LayerId addLayer();

  // Every function taking a path or a dependency throws RoutingError when a layer id is
  // out of range, a channel id is invalid, or two consecutive channels do not meet at a
  // node (target(c1) != source(c2)); the graph is then unchanged.

  /// Add the dependencies of `path` (consecutive channel pairs) to `layer`, unconditionally.
  void addPath(LayerId layer, std::span<const ChannelId> path);
  /// Add them only if `layer` stays acyclic; returns false and leaves the graph unchanged
  /// otherwise. Amortised cost: the Pearce–Kelly reordering of the affected region.
  bool tryAddPath(LayerId layer, std::span<const ChannelId> path);
  /// Would adding `path` to `layer` close a cycle? (no change)
  bool wouldCloseCycle(LayerId layer, std::span<const ChannelId> path);
  /// Remove one occurrence of each dependency of `path` (reference counts). Throws
  /// RoutingError (graph unchanged) if the path's dependencies are not all present.
  void removePath(LayerId layer, std::span<const ChannelId> path);
  /// Add a single dependency c1 -> c2 (e.g. from an adaptive candidate set).
  void addDependency(LayerId layer, ChannelId from, ChannelId to);

  /// Number of distinct dependencies in a layer.
  std::size_t dependencyCount(LayerId layer) const;
  bool hasDependency(LayerId layer, ChannelId from, ChannelId to) const;
  /// Reference count of a dependency (0 if absent).
  std::uint32_t dependencyReferences(LayerId layer, ChannelId from, ChannelId to) const;
  /// All distinct dependencies of a layer, ordered by (from, to). O(channels + slots).
  std::vector<std::pair<ChannelId, ChannelId>> dependencies(LayerId layer) const;

  // ---- bulk construction (builders that emit millions of dependencies, e.g. the verifier)
  /// Every possible dependency c1 -> c2 (target(c1) == source(c2)) has a dense slot:
  /// slot = base[c1] + position[c2], position = index of c2 in outChannels(source(c2)).
  struct SlotLayout {
    std::span<const std::uint32_t> base;      ///< per channel, size channels + 1
    std::span<const std::uint32_t> position;  ///< per channel
    std::size_t size() const { return base.empty() ? 0 : base.back(); }
    /// Precondition (unchecked): target(from) == source(to).
    std::uint32_t slot(ChannelId from, ChannelId to) const { return base[from.index()] + position[to.index()]; }
  };
  /// Valid as long as the graph lives.
  SlotLayout slotLayout() const;
  /// Add (reference count + 1, unconditionally) every dependency whose slot bit is set in
  /// `bitmap` (bit s is bit s % 64 of word s / 64; at least slotLayout().size() bits).
  /// O(channels + slots). Throws RoutingError if the bitmap is too short.
  void addDependencySlots(LayerId layer, std::span<const std::uint64_t> bitmap);

  /// A cycle in `layer` as a channel list c0 -> c1 -> ... -> c0 (c0 not repeated), or
  /// nullopt if the layer is acyclic. O(V + E) iterative DFS; the witness is then
  /// shortened to a shortest cycle through its first channel c0 (BFS, O(V + E)).
  std::optional<std::vector<ChannelId>> findCycle(LayerId layer) const;
  /// True when `layer` has no cycle (O(V + E), or O(1) when the maintained order is valid).
  bool isAcyclic(LayerId layer) const;

  /// "a[p] -> b[q] => b[r] -> c[s] => ... => a[p] -> b[q]" naming channels by switch and
  /// port; the first channel is repeated at the end to show the cycle closes.
  std::string describeCycle(std::span<const ChannelId> cycle) const;

  const Network& network() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace routelab
