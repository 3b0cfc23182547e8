// Dependencies of a routing result: one memoised traversal per (address, layer). Contract
// and references: cdg/from_routing.h.
#include "cdg/from_routing.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>

#include "core/errors.h"
#include "core/limits.h"

namespace routelab {

namespace {

// Resolution state of a switch for the current (address, layer); the outcomes are ordered
// by severity so that an adaptive entry's outcome is the worst over its candidates.
enum : std::uint8_t { kUnvisited = 0, kOnStack = 1, kDelivered = 2, kNoRoute = 3, kDeadPort = 4, kLoop = 5 };

PathStatus statusOf(std::uint8_t state) {
  switch (state) {
    case kDelivered: return PathStatus::Delivered;
    case kDeadPort: return PathStatus::DeadPort;
    case kLoop: return PathStatus::Loop;
    default: return PathStatus::NoRoute;
  }
}

struct Source {
  NodeId node;
  std::uint32_t sourceIndex = 0;
  NodeId start;         ///< first switch (the node itself for a switch source)
  ChannelId injection;  ///< terminal -> switch channel (invalid for switches)
  bool isSwitch = false;
};

/// Does `source` send to address `a`? Not for pairs marked kNoLayer (per-pair addressing),
/// and, for source-dependent routings, only to the addresses of its source class
/// (RoutingResult::addressFor: offset = path * classes + class).
bool carriesTraffic(const RoutingResult& routing, const Source& source, Address a) {
  if (!routing.sends(source.sourceIndex, a)) return false;
  if (routing.sourceClasses <= 1) return true;
  const std::uint32_t block = routing.addresses.blockSize(routing.addresses.owner(a));
  const std::uint32_t classes = block >= routing.sourceClasses ? routing.sourceClasses : 1;
  if (classes <= 1) return true;
  const std::uint32_t sourceClass =
      routing.sourceClassOf.empty() ? 0 : routing.sourceClassOf[source.sourceIndex] % classes;
  return routing.addresses.offset(a) % classes == sourceClass;
}

/// Keep the `cap` smallest failures (sorted).
void keepExample(std::vector<RouteFailure>& examples, const RouteFailure& failure, std::size_t cap) {
  if (cap == 0) return;
  if (examples.size() == cap && !(failure < examples.back())) return;
  examples.insert(std::upper_bound(examples.begin(), examples.end(), failure), failure);
  if (examples.size() > cap) examples.pop_back();
}

struct Shared {
  const Network& network;
  const RoutingResult& routing;
  const TrafficScope& scope;
  ChannelDependencyGraph::SlotLayout layout;
  std::size_t words = 0;  ///< 64-bit words of one slot bitmap
  std::vector<Source> sources{};
  std::vector<Address> destinations{};
  std::vector<const ForwardingTable*> distinctTables{};
};

struct Frame {
  std::uint32_t node;
  std::uint32_t next;
  std::uint8_t worst;
};

/// Per-thread scratch and partial results.
struct Workspace {
  explicit Workspace(const Shared& shared)
      : state(shared.network.nodeCount(), kUnvisited),
        reached(shared.network.nodeCount(), 0),
        bitmaps(shared.routing.layerCount(), std::vector<std::uint64_t>(shared.words, 0)),
        byLayer(shared.routing.layerCount()),
        emitted(shared.network.channelCount()) {}

  std::vector<std::uint8_t> state;
  std::vector<std::uint8_t> reached;
  std::vector<std::uint32_t> touched;
  std::vector<std::uint32_t> queue;
  std::vector<Frame> frames;
  std::vector<std::vector<std::uint64_t>> bitmaps;
  std::vector<std::vector<std::uint32_t>> byLayer;  ///< source positions per layer
  /// Per channel c, the last two (candidate list, bitmap) pairs whose dependencies
  /// c -> list were emitted. Candidate lists are interned by the table, so the list's
  /// address identifies it: addresses routed alike (fat-tree up ports) skip the work.
  struct Emitted {
    const PortNumber* list = nullptr;
    const std::uint64_t* bits = nullptr;
  };
  std::vector<std::array<Emitted, 2>> emitted;

  std::uint64_t routes = 0, delivered = 0, noRoute = 0, loops = 0, deadPorts = 0, unrouted = 0, escapeFailures = 0;
  std::vector<RouteFailure> failures, unroutedExamples, escapeExamples;

  void resetStates() {
    for (std::uint32_t n : touched) state[n] = kUnvisited;
    touched.clear();
  }
};

class Traversal {
 public:
  Traversal(const Shared& shared, Workspace& ws) : s_(shared), net_(shared.network), ws_(ws) {}

  /// Dependencies c -> (every candidate of switch w for a), w != destination.
  void emitSuccessors(const ForwardingTable& table, Address a, ChannelId c, NodeId w, std::uint64_t* bits) {
    const auto candidates = table.candidates(net_.switchIndex(w), a);
    if (candidates.empty()) return;
    if (candidates.size() == 1) {  // deterministic entry: one bit, cheaper than the cache
      if (candidates[0] == kSelfPort) return;
      const ChannelId next = net_.channelAt(w, candidates[0]);
      if (!next.valid()) return;
      const std::uint32_t slot = s_.layout.slot(c, next);
      bits[slot / 64] |= std::uint64_t{1} << (slot % 64);
      return;
    }
    auto& cache = ws_.emitted[c.index()];
    for (const auto& entry : cache) {
      if (entry.list == candidates.data() && entry.bits == bits) return;
    }
    cache[1] = cache[0];
    cache[0] = {candidates.data(), bits};
    for (PortNumber p : candidates) {
      if (p == kSelfPort) continue;
      const ChannelId next = net_.channelAt(w, p);
      if (!next.valid()) continue;
      const std::uint32_t slot = s_.layout.slot(c, next);
      bits[slot / 64] |= std::uint64_t{1} << (slot % 64);
    }
  }

  /// Outcome of packets for `a` standing at switch `start` (iterative DFS, memoised in
  /// ws.state until resetStates()), emitting the dependencies of every edge it follows.
  std::uint8_t resolve(const ForwardingTable& table, Address a, NodeId destination, NodeId start, std::uint64_t* bits) {
    if (ws_.state[start.index()] >= kDelivered) return ws_.state[start.index()];
    push(start);
    std::uint8_t result = kDelivered;
    while (!ws_.frames.empty()) {
      Frame& frame = ws_.frames.back();
      const NodeId v(frame.node);
      bool descended = false;
      if (v != destination) {
        const auto candidates = table.candidates(net_.switchIndex(v), a);
        if (candidates.empty()) frame.worst = std::max<std::uint8_t>(frame.worst, kNoRoute);
        while (frame.next < candidates.size()) {
          const PortNumber p = candidates[frame.next++];
          std::uint8_t outcome = kDelivered;
          if (p == kSelfPort) {
            outcome = kNoRoute;  // "deliver here" at a switch that is not the destination
          } else {
            const ChannelId c = net_.channelAt(v, p);
            if (!c.valid()) {
              outcome = kDeadPort;
            } else {
              const NodeId w = net_.target(c);
              if (w == destination) {
                outcome = kDelivered;
              } else if (!net_.isSwitch(w)) {
                outcome = kNoRoute;  // delivered to the wrong terminal
              } else {
                emitSuccessors(table, a, c, w, bits);
                const std::uint8_t seen = ws_.state[w.index()];
                if (seen == kOnStack) {
                  outcome = kLoop;
                } else if (seen >= kDelivered) {
                  outcome = seen;
                } else {
                  push(w);  // invalidates `frame`
                  descended = true;
                  break;
                }
              }
            }
          }
          frame.worst = std::max(frame.worst, outcome);
        }
      }
      if (descended) continue;
      const std::uint8_t worst = ws_.frames.back().worst;
      ws_.state[ws_.frames.back().node] = worst;
      ws_.frames.pop_back();
      if (ws_.frames.empty())
        result = worst;
      else
        ws_.frames.back().worst = std::max(ws_.frames.back().worst, worst);
    }
    return result;
  }

  /// Outcome of the route of `source` to `a` (with the injection dependency).
  std::uint8_t route(const Source& source, const ForwardingTable& table, Address a, NodeId destination,
                     std::uint64_t* bits) {
    if (!source.isSwitch) {
      if (!source.injection.valid()) return kDeadPort;
      if (source.start == destination) return kDelivered;
      emitSuccessors(table, a, source.injection, source.start, bits);
    }
    return resolve(table, a, destination, source.start, bits);
  }

  void count(const Source& source, Address a, NodeId destination, LayerId layer, std::uint8_t outcome) {
    ++ws_.routes;
    if (outcome == kDelivered) {
      ++ws_.delivered;
      return;
    }
    const RouteFailure failure{source.node, a, layer, statusOf(outcome)};
    if (outcome == kNoRoute && source.isSwitch && net_.isSwitch(destination)) {
      ++ws_.unrouted;
      keepExample(ws_.unroutedExamples, failure, s_.scope.maxExamples);
      return;
    }
    if (outcome == kNoRoute)
      ++ws_.noRoute;
    else if (outcome == kLoop)
      ++ws_.loops;
    else
      ++ws_.deadPorts;
    keepExample(ws_.failures, failure, s_.scope.maxExamples);
  }

  /// Lysne Defs. 11-12: each pair's traffic in each layer assigned to it.
  void layered(Address a) {
    const NodeId destination = s_.routing.addresses.owner(a);
    const RoutingResult& routing = s_.routing;
    const std::size_t addresses = routing.addresses.count();
    for (auto& list : ws_.byLayer) list.clear();
    for (std::uint32_t k = 0; k < s_.sources.size(); ++k) {
      const Source& source = s_.sources[k];
      if (source.node == destination || !carriesTraffic(routing, source, a)) continue;
      const std::size_t entry = static_cast<std::size_t>(source.sourceIndex) * addresses + a;
      std::uint32_t mask = routing.allowedLayers.empty() ? 0 : routing.allowedLayers[entry];
      if (mask == 0) mask = 1U << routing.layer(source.sourceIndex, a).index();
      for (std::size_t layer = 0; mask != 0; ++layer, mask >>= 1) {
        if (mask & 1U) ws_.byLayer[layer].push_back(k);
      }
    }
    for (std::size_t layer = 0; layer < ws_.byLayer.size(); ++layer) {
      if (ws_.byLayer[layer].empty()) continue;
      const LayerId id = LayerId::fromIndex(layer);
      const ForwardingTable& table = routing.table(id);
      std::uint64_t* bits = ws_.bitmaps[layer].data();
      ws_.resetStates();
      for (std::uint32_t k : ws_.byLayer[layer]) {
        const Source& source = s_.sources[k];
        count(source, a, destination, id, route(source, table, a, destination, bits));
      }
    }
  }

  /// Duato (Lysne Defs. 13-15, Theorem 4): extended dependency graph of the escape layer.
  void escape(Address a) {
    const NodeId destination = s_.routing.addresses.owner(a);
    const LayerId escapeId = LayerId::fromIndex(s_.routing.escapeLayer);
    const ForwardingTable& escapeTable = s_.routing.table(escapeId);
    std::uint64_t* bits = ws_.bitmaps[escapeId.index()].data();
    ws_.resetStates();
    // Switches reachable under R: closure over every layer's candidates.
    ws_.queue.clear();
    auto reach = [&](NodeId w) {
      if (w == destination || !net_.isSwitch(w) || ws_.reached[w.index()]) return;
      ws_.reached[w.index()] = 1;
      ws_.queue.push_back(w.value);
    };
    for (const Source& source : s_.sources) {
      if (source.node == destination || !carriesTraffic(s_.routing, source, a)) continue;
      if (!source.isSwitch && !source.injection.valid()) continue;
      reach(source.start);
    }
    for (std::size_t head = 0; head < ws_.queue.size(); ++head) {
      const NodeId v(ws_.queue[head]);
      for (const ForwardingTable* table : s_.distinctTables) {
        for (PortNumber p : table->candidates(net_.switchIndex(v), a)) {
          if (p == kSelfPort) continue;
          const ChannelId c = net_.channelAt(v, p);
          if (c.valid()) reach(net_.target(c));
        }
      }
    }
    // R' must deliver from every one of them; its edges from there are the extended CDG.
    for (std::uint32_t v : ws_.queue) {
      const std::uint8_t outcome = resolve(escapeTable, a, destination, NodeId(v), bits);
      if (outcome != kDelivered) {
        ++ws_.escapeFailures;
        if (outcome == kLoop) ++ws_.loops;
        keepExample(ws_.escapeExamples, RouteFailure{NodeId(v), a, escapeId, statusOf(outcome)}, s_.scope.maxExamples);
      }
    }
    for (std::uint32_t v : ws_.queue) ws_.reached[v] = 0;
    for (const Source& source : s_.sources) {
      if (source.node == destination || !carriesTraffic(s_.routing, source, a)) continue;
      count(source, a, destination, escapeId, route(source, escapeTable, a, destination, bits));
    }
  }

 private:
  void push(NodeId node) {
    ws_.state[node.index()] = kOnStack;
    ws_.touched.push_back(node.value);
    ws_.frames.push_back({node.value, 0, kDelivered});
  }

  const Shared& s_;
  const Network& net_;
  Workspace& ws_;
};

std::string endName(const Network& network, const RoutingResult& routing, NodeId node) {
  const Address base = routing.addresses.base(node);
  return fmt::format("'{}' (LID {})", network.name(node), routing.addresses.lid(base));
}

void validate(const Network& network, const RoutingResult& routing, const TrafficScope& scope, const Shared& shared) {
  if (routing.tables.empty()) throw AnalysisError("routing has no forwarding table");
  const std::size_t addresses = routing.addresses.count();
  for (std::size_t t = 0; t < routing.tables.size(); ++t) {
    const ForwardingTable& table = routing.tables[t];
    if (table.switchCount() != network.switchCount() || table.addressCount() != addresses) {
      throw AnalysisError(
          fmt::format("forwarding table {} is {} switches x {} addresses, the network has {} switches "
                      "and the routing {} addresses",
                      t, table.switchCount(), table.addressCount(), network.switchCount(), addresses));
    }
  }
  for (std::size_t layer = 0; layer < routing.layerCount(); ++layer) {
    if (routing.tableOfLayer[layer] >= routing.tables.size()) {
      throw AnalysisError(
          fmt::format("layer {} uses table {} of {}", layer, routing.tableOfLayer[layer], routing.tables.size()));
    }
  }
  for (NodeId owner : routing.addresses.owners()) {
    if (owner.index() >= network.nodeCount()) throw AnalysisError("routing addresses name a node outside the network");
  }
  if (scope.switchTraffic && !routing.addresses.includesSwitches()) {
    throw AnalysisError("switch traffic requested but the routing has no switch addresses (route switches too)");
  }
  const std::size_t pairs = routing.addresses.owners().size() * addresses;
  if (!routing.layerOf.empty() && routing.layerOf.size() != pairs) {
    throw AnalysisError(fmt::format("layer assignment has {} entries, {} sources x {} addresses expected",
                                    routing.layerOf.size(), routing.addresses.owners().size(), addresses));
  }
  if (!routing.allowedLayers.empty() && routing.allowedLayers.size() != pairs) {
    throw AnalysisError(
        fmt::format("allowed-layer sets have {} entries, {} expected", routing.allowedLayers.size(), pairs));
  }
  if (routing.escapeLayer >= static_cast<int>(routing.layerCount())) {
    throw AnalysisError(fmt::format("escape layer {} of {} layers", routing.escapeLayer, routing.layerCount()));
  }
  if (routing.escapeLayer >= 0) return;  // escape routings: every pair may use every layer
  const std::uint32_t layerMask = (1U << routing.layerCount()) - 1;
  for (const Source& source : shared.sources) {
    for (Address a : shared.destinations) {
      const NodeId destination = routing.addresses.owner(a);
      if (destination == source.node || !carriesTraffic(routing, source, a)) continue;
      const std::size_t entry = static_cast<std::size_t>(source.sourceIndex) * addresses + a;
      const std::uint32_t mask = routing.allowedLayers.empty() ? 0 : routing.allowedLayers[entry];
      if (mask != 0) {
        if ((mask & ~layerMask) != 0) {
          throw AnalysisError(fmt::format("pair {} -> {}: allowed layers 0x{:x} exceed the {} layers of the routing",
                                          endName(network, routing, source.node),
                                          endName(network, routing, destination), mask, routing.layerCount()));
        }
        continue;
      }
      const std::size_t layer = routing.layerOf.empty() ? 0 : routing.layerOf[entry];
      if (layer >= routing.layerCount()) {
        throw AnalysisError(fmt::format("pair {} -> '{}' (LID {}): layer {} but the routing has {} layers",
                                        endName(network, routing, source.node), network.name(destination),
                                        routing.addresses.lid(a), layer, routing.layerCount()));
      }
    }
  }
}

}  // namespace

RoutingDependencies buildRoutingDependencies(const Network& network, const RoutingResult& routing,
                                             const TrafficScope& scope) {
  // The layer limit (core/limits.h) before allocating the graph's layers.
  if (routing.layerCount() == 0 || routing.layerCount() > kMaxLayers) {
    throw AnalysisError(fmt::format("routing has {} layers; 1..{} are supported", routing.layerCount(), kMaxLayers));
  }
  RoutingDependencies result(ChannelDependencyGraph(network, std::max<std::size_t>(routing.layerCount(), 1)));
  Shared shared{network, routing, scope, result.graph.slotLayout(), 0};
  shared.words = (shared.layout.size() + 63) / 64;
  for (NodeId owner : routing.addresses.owners()) {
    if (owner.index() >= network.nodeCount()) break;  // reported by validate()
    const bool isSwitch = network.isSwitch(owner);
    if (isSwitch && !scope.switchTraffic) continue;
    Source source;
    source.node = owner;
    source.sourceIndex = routing.addresses.sourceIndex(owner);
    source.isSwitch = isSwitch;
    if (isSwitch) {
      source.start = owner;
    } else {
      source.injection = network.injectionChannel(owner);
      if (source.injection.valid()) source.start = network.target(source.injection);
    }
    shared.sources.push_back(source);
  }
  for (Address a = 0; a < routing.addresses.count(); ++a) {
    const NodeId owner = routing.addresses.owner(a);
    if (owner.index() >= network.nodeCount()) break;
    if (network.isSwitch(owner) && !scope.switchTraffic) continue;
    shared.destinations.push_back(a);
  }
  validate(network, routing, scope, shared);
  for (const ForwardingTable& table : routing.tables) shared.distinctTables.push_back(&table);
  result.sources = shared.sources.size();
  result.destinations = shared.destinations.size();

  const auto count = static_cast<std::int64_t>(shared.destinations.size());
  std::vector<std::unique_ptr<Workspace>> partials;
  // Small routings are not worth the threads (the region's start-up would dominate).
  const bool parallel = static_cast<std::uint64_t>(count) * (shared.sources.size() + network.switchCount()) > 200000;
#pragma omp parallel if (parallel)
  {
    auto ws = std::make_unique<Workspace>(shared);
    Traversal traversal(shared, *ws);
#pragma omp for schedule(dynamic, 8)
    for (std::int64_t i = 0; i < count; ++i) {
      const Address a = shared.destinations[static_cast<std::size_t>(i)];
      if (routing.escapeLayer >= 0)
        traversal.escape(a);
      else
        traversal.layered(a);
    }
#pragma omp critical(routelab_cdg_merge)
    partials.push_back(std::move(ws));
  }
  // Merge: sums, unions and the smallest examples do not depend on the thread count.
  std::vector<std::vector<std::uint64_t>> merged(routing.layerCount(), std::vector<std::uint64_t>(shared.words, 0));
  for (const auto& ws : partials) {
    result.routes += ws->routes;
    result.delivered += ws->delivered;
    result.noRoute += ws->noRoute;
    result.loops += ws->loops;
    result.deadPorts += ws->deadPorts;
    result.unroutedSwitchPairs += ws->unrouted;
    result.escapeFailures += ws->escapeFailures;
    for (const auto& f : ws->failures) keepExample(result.failures, f, scope.maxExamples);
    for (const auto& f : ws->unroutedExamples) keepExample(result.unroutedSwitchExamples, f, scope.maxExamples);
    for (const auto& f : ws->escapeExamples) keepExample(result.escapeFailureExamples, f, scope.maxExamples);
    for (std::size_t layer = 0; layer < merged.size(); ++layer) {
      for (std::size_t w = 0; w < shared.words; ++w) merged[layer][w] |= ws->bitmaps[layer][w];
    }
  }
  for (std::size_t layer = 0; layer < merged.size(); ++layer) {
    result.graph.addDependencySlots(LayerId::fromIndex(layer), merged[layer]);
  }
  return result;
}

ChannelDependencyGraph dependencyGraphOfPaths(const Network& network, std::size_t layerCount,
                                              std::span<const std::vector<ChannelId>> paths,
                                              std::span<const LayerId> layers) {
  if (paths.size() != layers.size()) {
    throw RoutingError(fmt::format("{} paths but {} layers given", paths.size(), layers.size()));
  }
  ChannelDependencyGraph graph(network, layerCount);
  for (std::size_t i = 0; i < paths.size(); ++i) graph.addPath(layers[i], paths[i]);
  return graph;
}

}  // namespace routelab
