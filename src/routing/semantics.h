// routelab/routing/semantics.h — what a RoutingResult means, in one place.
//
// Every consumer of a routing (route's checks, the verifier's dependency graph, the static
// analysis, the conformance sweep, the coming flit-level simulator) asks the same
// questions; this header answers them once:
//
//  1. Is the value well formed? validate() states and checks every invariant of a
//     RoutingResult against its Network (the list is at validate()).
//
//  2. Injection: which addresses and layers may a source use for a destination?
//     * A destination node owns a block of addresses; the source uses the block's
//       path-th address for its path-th path (LMC), shifted by its source class for
//       source-dependent routings (S-mod-k, OPT): RoutingResult::addressFor.
//     * A (source, address) pair carries traffic unless layerOf marks it kNoLayer
//       (per-pair addressing, LASH §5.1 step 2.1) or, for source-dependent routings, the
//       address belongs to another source class.
//     * Layers: the pair's allowed set (allowedLayers, A-LASH / MP-LASH step 4 / escape
//       routings) when non-empty, else the one assigned layer (layerOf; layer 0 when empty).
//       The assigned layer comes first (the preferred injection layer), then the other
//       allowed layers in ascending order (Lysne et al. 2006 Defs. 11-12: a route belongs to
//       the layers it is assigned to).
//
//  3. The hop (Lysne Def. 3, R: C x N -> P(C)): a packet for address a, in layer l,
//     arrived at switch s on channel c: which (output port, layer) choices may it take, in
//     preference order?
//     * Layered routings (escapeLayer < 0): the candidates of layer l's table for (s, a), in
//       the table's order, all in layer l. A packet never changes layer on the way — the
//       layered dependency graph (Defs. 11-12) and therefore the verifier's verdict hold
//       exactly for this rule. (With allowed sets the choice of layer is made at injection.)
//     * Escape routings (escapeLayer = e >= 0; Duato, Lysne Defs. 13-15, Theorem 4): the
//       packet may use the candidates of every layer and move between layers at any switch:
//       first layer l's candidates (staying), then the other adaptive layers' in ascending
//       layer order, then the escape layer's (the last resort).
//     * Port 0 (kSelfPort) means "deliver here"; it is a valid choice only at the switch
//       that owns a. The destination-based tables of today do not depend on the input
//       channel c; it is part of the question so that input-dependent routing fits later.
//     * The preferred path of a pair is the walk of the first choice at every hop
//       (RoutingResult::walk): the path that route's checks, the analysis and LFT exports
//       see. Every choice sequence is what the verifier explores.
//     The analysis' split load models (analysis/split.h) are policies over these choices:
//     the current layer's candidates, plus entering the escape layer and staying there — a
//     subset of what the verifier allows, which keeps each pair's route graph acyclic.
//     hopChoices() fills a caller-owned buffer (no allocation per hop) of at least
//     choiceCapacity() entries and returns the count — cheap enough for a cycle-level
//     simulator.
//
//  4. All pairs: forEachPairWalk() walks the preferred path of every (source, destination,
//     LMC path) of the requested ends, in parallel over sources (OpenMP), calling a visitor
//     with the worker's index so callers accumulate per worker; every visitor call for one
//     source happens in destination order on one worker, so results merged per source or
//     summed as integers do not depend on the thread count. The ends come from the FABRIC
//     (trafficEnds): every terminal is a source and a destination; a terminal that owns no
//     address (e.g. a host an OpenSM dump gives no LID) is a FAILED pair in both directions
//     (PathStatus::NoAddress: it can neither be addressed nor inject — no source LID, no
//     layer), never a skipped one.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

/// Checks every invariant of `routing` on `network`; throws RoutingError naming the first
/// one violated:
///  * at least one forwarding table and at least one layer; every table is
///    network.switchCount() x addresses.count(); tableOfLayer[l] < tables.size();
///  * the address map names nodes of the network, and the blocks of its owners tile the
///    address space (owner(base(n) + i) == n for i < blockSize(n));
///  * layerOf is empty or one entry per (address owner, address), every entry a layer
///    < layerCount() or kNoLayer; allowedLayers is empty or of the same size, every set
///    within the first layerCount() layers;
///  * escapeLayer is -1 or a layer of the routing;
///  * sourceClasses >= 1; sourceClassOf is empty or one class per address owner; a block of
///    at least sourceClasses addresses holds a whole number of paths per class.
/// O(tables + owners x addresses) (the per-pair entries are read once).
void validate(const Network& network, const RoutingResult& routing);

/// One choice at a hop: leave on `port` (kSelfPort: deliver here) in `layer`.
struct HopChoice {
  PortNumber port = kNoRoute;
  LayerId layer;
  bool operator==(const HopChoice&) const = default;
};

/// What taking a port at a switch leads to, for a packet towards address a:
///  * arrived: the packet reaches the owner of a (port 0 at the owning switch, or a channel
///    into the owner);
///  * status Delivered and not arrived: it moves on along `channel` to switch `next`;
///  * NoRoute: port 0 at another switch, or a channel into another terminal;
///  * DeadPort: the port has no cable.
struct HopStep {
  PathStatus status = PathStatus::Delivered;
  bool arrived = false;
  ChannelId channel;  ///< the channel taken (invalid for port 0 and dead ports)
  NodeId next;        ///< target of `channel`
};

/// The meaning of one routing on one network (contract at the top of this header). Holds
/// references: both must outlive it. Construction validates (throws RoutingError).
class RoutingSemantics {
 public:
  RoutingSemantics(const Network& network, const RoutingResult& routing);

  const Network& network() const { return network_; }
  const RoutingResult& routing() const { return routing_; }

  // ---- Injection --------------------------------------------------------------------
  /// Does `node` own an address (can it be addressed, and inject)?
  bool hasAddress(NodeId node) const { return routing_.addresses.hasAddresses(node); }
  /// LMC paths a source has to `destination` (0 when it owns no address).
  std::uint32_t pathCount(NodeId destination) const { return routing_.pathCount(destination); }
  /// Address `source` uses for its `path`-th path to `destination` (RoutingResult::addressFor).
  Address address(NodeId source, NodeId destination, std::uint32_t path = 0) const {
    return routing_.addressFor(source, destination, path);
  }
  /// Does the address owner `source` send to `a`? (kNoLayer pairs and other source classes
  /// do not.) `source` must own an address.
  bool carriesTraffic(NodeId source, Address a) const;
  /// The layer the pair is assigned to (preferred injection layer).
  LayerId injectionLayer(NodeId source, Address a) const;
  /// Layers the pair may be injected in, preferred first; fills `out` (at least
  /// layerCount() entries) and returns the count (0 when the pair carries no traffic).
  std::size_t injectionLayers(NodeId source, Address a, std::span<LayerId> out) const;

  // ---- The hop ----------------------------------------------------------------------
  /// The candidates of one layer's table at switch `at` for `a` (no copy).
  std::span<const PortNumber> candidates(NodeId at, Address a, LayerId layer) const {
    return routing_.table(layer).candidates(network_.switchIndex(at), a);
  }
  /// The same, by switch index (Network::switchIndex): for callers that keep switch indices.
  std::span<const PortNumber> candidatesAt(std::uint32_t switchIndex, Address a, LayerId layer) const {
    return routing_.table(layer).candidates(switchIndex, a);
  }
  /// The entry candidatesAt() decodes, as stored: a candidate list's id or one port
  /// (ForwardingTable::entryView); the lists are layerTable(layer).list(id).
  ForwardingTable::EntryView entryAt(std::uint32_t switchIndex, Address a, LayerId layer) const {
    return routing_.table(layer).entryView(switchIndex, a);
  }
  /// The table of a layer (several layers may share one).
  const ForwardingTable& layerTable(LayerId layer) const { return routing_.table(layer); }
  /// Where the table entry candidatesAt(switchIndex, a, layer) reads first lies in memory
  /// (ForwardingTable::entryAddress).
  const void* entryAddressAt(std::uint32_t switchIndex, Address a, LayerId layer) const {
    return routing_.table(layer).entryAddress(switchIndex, a);
  }
  /// Buffer size hopChoices() may need: the longest candidate list of any table (with an
  /// escape layer, summed over the layers), as the tables were when this was constructed.
  std::size_t choiceCapacity() const { return capacity_; }
  /// The (port, layer) choices of a packet for `a` in `layer` at switch `at`, arrived on
  /// `arrivedOn` (invalid when injected by the switch itself), in preference order. Throws
  /// RoutingError when `out` is too small (only if a table changed after construction).
  std::size_t hopChoices(NodeId at, ChannelId arrivedOn, Address a, LayerId layer, std::span<HopChoice> out) const;
  /// Where taking `port` at switch `at` leads a packet for `a`.
  HopStep step(NodeId at, Address a, PortNumber port) const;

  /// Layers whose tables are distinct, in layer order (one per table): the layers whose
  /// candidates an escape routing's packet may take.
  std::span<const LayerId> tableLayers() const { return tableLayers_; }
  bool escape() const { return routing_.escapeLayer >= 0; }
  LayerId escapeLayer() const { return LayerId::fromIndex(static_cast<std::size_t>(routing_.escapeLayer)); }

  // ---- Paths ------------------------------------------------------------------------
  /// The preferred path (first choice at every hop; RoutingResult::walk).
  PathStatus walk(NodeId source, Address a, LayerId layer, std::vector<ChannelId>& out) const {
    return routing_.walk(network_, source, a, layer, out);
  }

 private:
  const Network& network_;
  const RoutingResult& routing_;
  std::size_t capacity_ = 0;
  std::vector<LayerId> tableLayers_;
};

/// Sources and destinations of an all-pairs traversal, from the fabric.
struct TrafficEnds {
  std::vector<NodeId> sources;
  std::vector<NodeId> destinations;
};

/// Which pairs: terminal -> terminal always (every terminal of the network, address owners
/// first in address order, then terminals without an address in network order).
struct TrafficEndsOptions {
  bool switchDestinations = false;  ///< add switches owning addresses as destinations
  bool switchSources = false;       ///< add every switch as a source
};
TrafficEnds trafficEnds(const Network& network, const RoutingResult& routing, const TrafficEndsOptions& options = {});

/// One walked pair.
struct PairWalk {
  NodeId source;
  NodeId destination;
  std::uint32_t path = 0;  ///< LMC path index
  Address address = 0;     ///< meaningless when status == NoAddress
  LayerId layer;
  PathStatus status = PathStatus::Delivered;
  std::span<const ChannelId> channels;  ///< injection first (preferred path, or up to the failure)
};

struct PairWalkOptions {
  bool allPaths = false;  ///< every LMC path (else path 0 only)
  int threads = 0;        ///< 0 = every core
  /// Skip pairs that carry no traffic (kNoLayer) instead of reporting them: off by default;
  /// terminal pairs with per-pair addressing always use addressFor, whose pair carries traffic.
  bool skipSilentPairs = false;
};

/// Worker indices forEachSource() and forEachPairWalk() use (visitor's `worker` < this).
unsigned pairWalkWorkers(int threads);

/// The parallel loop of every all-pairs computation: visit(worker, position) for every
/// source position in [0, sources), parallel over positions (OpenMP, dynamic schedule), one
/// position wholly on one worker; per-worker state by the worker index. The exception of the
/// smallest position is rethrown after the loop, so errors do not depend on the thread count.
void forEachSource(std::size_t sources, int threads, const std::function<void(unsigned, std::size_t)>& visit);

/// Walk the preferred path of every (source, destination != source, path) of `ends`
/// (contract at the top of this header). `visit(worker, sourcePosition, walk)`; a template
/// so that the per-pair call inlines (the analysis walks millions of pairs).
template <class Visit>
void forEachPairWalk(const RoutingSemantics& semantics, const TrafficEnds& ends, const PairWalkOptions& options,
                     Visit&& visit) {
  const unsigned workers = pairWalkWorkers(options.threads);
  std::vector<std::vector<ChannelId>> channelsOf(workers);
  forEachSource(ends.sources.size(), options.threads, [&](unsigned worker, std::size_t position) {
    const NodeId source = ends.sources[position];
    const bool sourceAddressed = semantics.hasAddress(source) || semantics.network().isSwitch(source);
    std::vector<ChannelId>& channels = channelsOf[worker];
    for (NodeId destination : ends.destinations) {
      if (destination == source) continue;
      PairWalk pair;
      pair.source = source;
      pair.destination = destination;
      if (!sourceAddressed || !semantics.hasAddress(destination)) {
        pair.status = PathStatus::NoAddress;
        visit(worker, position, std::as_const(pair));
        continue;
      }
      const std::uint32_t paths = options.allPaths ? semantics.pathCount(destination) : 1;
      for (std::uint32_t path = 0; path < paths; ++path) {
        pair.path = path;
        pair.address = semantics.address(source, destination, path);
        if (options.skipSilentPairs && semantics.hasAddress(source) &&
            !semantics.carriesTraffic(source, pair.address)) {
          continue;
        }
        pair.layer = semantics.injectionLayer(source, pair.address);
        if (pair.layer.value == RoutingResult::kNoLayer) {  // the source never sends to it
          channels.clear();
          pair.status = PathStatus::NoRoute;
        } else {
          pair.status = semantics.walk(source, pair.address, pair.layer, channels);
        }
        pair.channels = channels;
        visit(worker, position, std::as_const(pair));
      }
    }
  });
}

/// Text of a walk status ("no route", "loop", "dead port", "no address").
const char* pathStatusText(PathStatus status);

/// The message of a pair the analysis needs delivered and is not: "routing 'E' does not
/// deliver s -> d (LID l): no route at 'sw' after h hops", or that a terminal owns no address.
std::string describeUndelivered(const Network& network, const RoutingResult& routing, const PairWalk& walk);

}  // namespace routelab
