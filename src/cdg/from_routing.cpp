// Dependencies of a routing result: one memoised traversal per (address, layer). Contract
// and references: cdg/from_routing.h.
#include "cdg/from_routing.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <span>

#include "core/errors.h"
#include "core/limits.h"
#include "routing/semantics.h"

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

/// Terminal sources (positions in Shared::sources) cabled to one switch `start`.
struct StartGroup {
  NodeId start;
  std::vector<std::uint32_t> members{};
  /// First bit of this group's (port p of start, port q of the next switch) pairs in
  /// Workspace::emittedPairs (Shared::pairStride bits per p).
  std::uint64_t pairBase = 0;
};
/// Memory for Workspace::emittedPairs beyond which the grouped traversal does without it.
constexpr std::uint64_t kMaxPairBits = std::uint64_t{1} << 29;
constexpr std::uint32_t kNoGroup = UINT32_MAX;
/// Addresses per block of the grouped traversal: the table entries of one switch for 64
/// consecutive addresses share a cache line (one byte each).
constexpr std::size_t kBlock = 256;
/// FirstHop::next codes besides a node value: the outcome `kHopOutcome + state` is known at
/// the group's switch; kHopList: several candidates (resolve the switch itself).
constexpr std::uint32_t kHopList = UINT32_MAX;
constexpr std::uint32_t kHopOutcome = UINT32_MAX - 8;

/// Where packets for one address go from a group's switch S (grouped traversal): `next` is
/// the switch w that S's single candidate leads to (S's outcome is w's), with w's candidates
/// in `list`; or kHopList with S's own candidates in `list`; or an outcome code.
struct FirstHop {
  const PortNumber* list = nullptr;
  std::uint32_t size = 0;
  std::uint32_t next = kHopList;
  std::span<const PortNumber> candidates() const { return {list, size}; }
};
/// Workspace::injectionOwner: no address seen yet / addresses of several owners seen.
constexpr std::uint32_t kNoOwner = 0;
constexpr std::uint32_t kSeveralOwners = UINT32_MAX;

struct Source {
  NodeId node;
  std::uint32_t sourceIndex = 0;
  NodeId start;         ///< first switch (the node itself for a switch source)
  ChannelId injection;  ///< terminal -> switch channel (invalid for switches)
  bool isSwitch = false;
};

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
  const RoutingSemantics& semantics;
  const TrafficScope& scope;
  ChannelDependencyGraph::SlotLayout layout;
  std::size_t words = 0;  ///< 64-bit words of one slot bitmap
  std::vector<Source> sources{};
  std::vector<Address> destinations{};
  /// Terminals that own no address: every pair from or to them fails (routing/semantics.h).
  std::vector<NodeId> unaddressed{};
  /// Grouped traversal (from_routing.h, "Sources grouped by switch"): every in-scope pair
  /// is traffic in layer 0 only, so the terminal sources of one switch share the outcome.
  bool grouped = false;
  std::vector<StartGroup> groups{};
  std::vector<std::uint32_t> groupOf{};     ///< per node: its group (terminals), or kNoGroup
  std::vector<std::uint32_t> groupAt{};     ///< per node: the group starting there (switches), or kNoGroup
  std::vector<std::uint32_t> individual{};  ///< sources routed one by one (switches, no cable)
  /// Ports per switch + 1 (the largest port count + 1), and the bits of all groups' pairs
  /// (0: Workspace::emittedPairs not used).
  std::uint64_t pairStride = 0;
  std::uint64_t pairBits = 0;
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
        injection(shared.routing.layerCount()),
        layerUsed(shared.routing.layerCount(), 0),
        lists(shared.network.nodeCount()),
        emitted(shared.network.channelCount()),
        injectionOwner(shared.grouped ? shared.network.channelCount() : 0, kNoOwner),
        firstHops(shared.grouped ? kBlock * shared.groups.size() : 0),
        emittedPairs((shared.pairBits + 63) / 64, 0) {}

  std::vector<std::uint8_t> state;
  std::vector<std::uint8_t> reached;
  std::vector<std::uint32_t> touched;
  std::vector<std::uint32_t> queue;
  std::vector<Frame> frames;
  std::vector<std::vector<std::uint64_t>> bitmaps;
  std::vector<std::vector<std::uint32_t>> byLayer;  ///< source positions per layer
  std::vector<LayerId> injection;                   ///< injection layers of one pair
  std::vector<std::uint8_t> layerUsed;              ///< per layer: some in-scope traffic uses it
  /// Per switch: its candidates for the current (address, layer), valid while its state is
  /// not kUnvisited (read from the table once per address).
  std::vector<std::span<const PortNumber>> lists;
  /// Per channel c, the last two (candidate set, bitmap) pairs whose dependencies
  /// c -> set were emitted: addresses routed alike (fat-tree up ports, in any rotation)
  /// skip the work. The set's key is Traversal::setKey().
  struct Emitted {
    std::uint64_t key = 0;
    const std::uint64_t* bits = nullptr;
  };
  std::vector<std::array<Emitted, 2>> emitted;
  /// Direct-mapped memo of setKey() by list address (candidate lists are interned by the
  /// table, so a list's address identifies it while the table lives).
  struct ListKey {
    const PortNumber* list = nullptr;
    std::uint64_t key = 0;
  };
  std::array<ListKey, 256> listKeys{};
  /// Grouped traversal: per output channel c' of a group's switch, the owner (node value + 1)
  /// of the addresses whose entry there names c', kSeveralOwners, or kNoOwner. Terminal t of
  /// the group depends injection(t) -> c' iff an owner other than t is recorded.
  std::vector<std::uint32_t> injectionOwner;
  /// Grouped traversal: the first hop from every group's switch for every address of the
  /// block (position in block x groups + group), and the destination's group of the address.
  std::vector<FirstHop> firstHops;
  /// Grouped traversal: per group, (port p of its switch S, port q of the switch w that p
  /// leads to) pairs whose dependency c -> c' (c out of S on p, c' out of w on q) was emitted
  /// — it is the same for every address routed p then q, so it is emitted once.
  std::vector<std::uint64_t> emittedPairs;
  std::uint32_t destinationGroup = kNoGroup;

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

  /// Candidates of switch w for a in `table`: from the table on the first visit of the
  /// current (address, layer), afterwards from ws.lists.
  std::span<const PortNumber> listAt(const ForwardingTable& table, Address a, NodeId w) const {
    if (ws_.state[w.index()] != kUnvisited) return ws_.lists[w.index()];
    return table.candidates(net_.switchIndex(w), a);
  }

  /// A key of the SET of ports of an interned candidate list (size >= 2): bit p + 1 for every
  /// port p, with bit 0 set, when all ports are below 63 (so rotations of one list share
  /// the key); else the list's address, which is even (2-byte aligned), so the two kinds
  /// never meet.
  std::uint64_t setKey(std::span<const PortNumber> candidates) {
    auto& memo = ws_.listKeys[(reinterpret_cast<std::uintptr_t>(candidates.data()) >> 1) % ws_.listKeys.size()];
    if (memo.list == candidates.data()) return memo.key;
    std::uint64_t key = 1;
    for (PortNumber p : candidates) {
      if (p >= 63) {
        key = reinterpret_cast<std::uintptr_t>(candidates.data());
        break;
      }
      key |= std::uint64_t{2} << p;
    }
    memo = {candidates.data(), key};
    return key;
  }

  /// Dependencies c -> (every channel of `candidates`, the list of switch w for the current
  /// address), w != destination.
  void emitSuccessors(std::span<const PortNumber> candidates, ChannelId c, NodeId w, std::uint64_t* bits) {
    if (candidates.empty()) return;
    if (candidates.size() == 1) {  // deterministic entry: one bit, cheaper than the cache
      if (candidates[0] == kSelfPort) return;
      const ChannelId next = net_.channelAt(w, candidates[0]);
      if (!next.valid()) return;
      const std::uint32_t slot = s_.layout.slot(c, next);
      bits[slot / 64] |= std::uint64_t{1} << (slot % 64);
      return;
    }
    const std::uint64_t key = setKey(candidates);
    auto& cache = ws_.emitted[c.index()];
    for (const auto& entry : cache) {
      if (entry.key == key && entry.bits == bits) return;
    }
    cache[1] = cache[0];
    cache[0] = {key, bits};
    for (PortNumber p : candidates) {
      if (p == kSelfPort) continue;
      const ChannelId next = net_.channelAt(w, p);
      if (!next.valid()) continue;
      const std::uint32_t slot = s_.layout.slot(c, next);
      bits[slot / 64] |= std::uint64_t{1} << (slot % 64);
    }
  }

  /// Outcome of taking port p at switch v for a (kUnvisited: descend into ws.frames' new
  /// top), emitting the dependencies of the channel taken.
  std::uint8_t step(const ForwardingTable& table, Address a, NodeId destination, NodeId v, PortNumber p, bool emit,
                    std::uint64_t* bits) {
    if (p == kSelfPort) return kNoRoute;  // "deliver here" at a switch that is not the destination
    const ChannelId c = net_.channelAt(v, p);
    if (!c.valid()) return kDeadPort;
    const NodeId w = net_.target(c);
    if (w == destination) return kDelivered;
    if (!net_.isSwitch(w)) return kNoRoute;  // delivered to the wrong terminal
    const std::uint8_t seen = ws_.state[w.index()];
    const auto candidates = listAt(table, a, w);
    if (emit) emitSuccessors(candidates, c, w, bits);
    if (seen == kOnStack) return kLoop;
    if (seen >= kDelivered) return seen;
    push(w, candidates);
    return kUnvisited;
  }

  /// Outcome of packets for `a` standing at switch `start` (iterative DFS, memoised in
  /// ws.state until resetStates()), emitting the dependencies of every edge it follows.
  std::uint8_t resolve(const ForwardingTable& table, Address a, NodeId destination, NodeId start, std::uint64_t* bits) {
    if (ws_.state[start.index()] >= kDelivered) return ws_.state[start.index()];
    return resolveFrom(table, a, destination, start,
                       start == destination ? std::span<const PortNumber>{} : listAt(table, a, start), bits);
  }

  /// resolve() of an unvisited `start` whose candidates are known.
  std::uint8_t resolveFrom(const ForwardingTable& table, Address a, NodeId destination, NodeId start,
                           std::span<const PortNumber> startCandidates, std::uint64_t* bits) {
    push(start, startCandidates);
    std::uint8_t result = kDelivered;
    while (!ws_.frames.empty()) {
      Frame& frame = ws_.frames.back();
      const NodeId v(frame.node);
      bool descended = false;
      if (v != destination) {
        const auto candidates = ws_.lists[v.index()];
        if (candidates.empty()) frame.worst = std::max<std::uint8_t>(frame.worst, kNoRoute);
        const bool emit = !sendsFrom(v, candidates);
        while (frame.next < candidates.size()) {
          const std::uint8_t outcome = step(table, a, destination, v, candidates[frame.next++], emit, bits);
          if (outcome == kUnvisited) {  // pushed: `frame` is invalidated
            descended = true;
            break;
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
      emitSuccessors(listAt(table, a, source.start), source.injection, source.start, bits);
    }
    return resolve(table, a, destination, source.start, bits);
  }

  void count(const Source& source, Address a, NodeId destination, LayerId layer, std::uint8_t outcome) {
    ++ws_.routes;
    if (outcome == kDelivered) {
      ++ws_.delivered;
      return;
    }
    const RouteFailure failure{source.node, destination, a, layer, statusOf(outcome)};
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

  /// Lysne Defs. 11-12: each pair's traffic in each layer it may be injected in
  /// (RoutingSemantics::injectionLayers); it stays there.
  void layered(Address a) {
    const NodeId destination = s_.routing.addresses.owner(a);
    for (auto& list : ws_.byLayer) list.clear();
    for (std::uint32_t k = 0; k < s_.sources.size(); ++k) {
      const Source& source = s_.sources[k];
      if (source.node == destination) continue;
      const std::size_t layers = s_.semantics.injectionLayers(source.node, a, ws_.injection);
      for (std::size_t i = 0; i < layers; ++i) ws_.byLayer[ws_.injection[i].index()].push_back(k);
    }
    for (std::size_t layer = 0; layer < ws_.byLayer.size(); ++layer) {
      if (ws_.byLayer[layer].empty()) continue;
      ws_.layerUsed[layer] = 1;
      const LayerId id = LayerId::fromIndex(layer);
      const ForwardingTable& table = s_.routing.table(id);
      std::uint64_t* bits = ws_.bitmaps[layer].data();
      ws_.resetStates();
      for (std::uint32_t k : ws_.byLayer[layer]) {
        const Source& source = s_.sources[k];
        count(source, a, destination, id, route(source, table, a, destination, bits));
      }
    }
  }

  /// The layered traversal when every pair is traffic in layer 0 only (Shared::grouped),
  /// for a block of at most kBlock addresses. First, switch by switch (each switch's table
  /// entries for the block are adjacent in memory), wherever a group's switch S has senders:
  /// the injection owners (recordInjection) and the first hop (firstHop: for a single
  /// candidate also the dependencies of its channel). Then address by address: the
  /// terminals of S share the outcome of S, counted in bulk; the traversal does not emit a
  /// single-candidate S's channel again (sendsFrom). So the work per address is O(switches
  /// reached), not O(sources), and the table is read along its rows for the switches with
  /// terminals.
  void groupedBlock(std::span<const Address> block) {
    const ForwardingTable& table = s_.routing.table(LayerId(0));
    std::uint64_t* bits = ws_.bitmaps[0].data();
    const std::size_t groups = s_.groups.size();
    for (std::uint32_t g = 0; g < groups; ++g) {
      const StartGroup& group = s_.groups[g];
      const std::uint32_t switchIndex = net_.switchIndex(group.start);
      const PortNumber* recorded = nullptr;  // a list whose channels all have several owners
      for (std::size_t i = 0; i < block.size(); ++i) {
        const Address a = block[i];
        const auto candidates = table.candidates(switchIndex, a);
        const NodeId destination = s_.routing.addresses.owner(a);
        if (group.start == destination || !hasSenders(g, s_.groupOf[destination.index()])) continue;
        if (candidates.data() != recorded && recordInjection(candidates, group.start, destination)) {
          recorded = candidates.data();
        }
        ws_.firstHops[i * groups + g] = firstHop(table, a, destination, group, candidates, bits);
      }
    }
    for (std::size_t i = 0; i < block.size(); ++i) {
      grouped(table, block[i], i * groups, bits);
    }
  }

  /// Does group g have a terminal other than the destination (in group destinationGroup)?
  bool hasSenders(std::uint32_t g, std::uint32_t destinationGroup) const {
    return s_.groups[g].members.size() > (g == destinationGroup ? 1U : 0U);
  }

  /// Were the channels out of switch v, whose candidates for the current address are
  /// `candidates`, emitted by groupedBlock (firstHop)?
  bool sendsFrom(NodeId v, std::span<const PortNumber> candidates) const {
    if (!s_.grouped || candidates.size() != 1) return false;
    const std::uint32_t g = s_.groupAt[v.index()];
    return g != kNoGroup && hasSenders(g, ws_.destinationGroup);
  }

  /// The first hop of `start` for a and, when `start` has a single candidate, the
  /// dependencies of its channel (what resolve() emits there; sendsFrom).
  FirstHop firstHop(const ForwardingTable& table, Address a, NodeId destination, const StartGroup& group,
                    std::span<const PortNumber> candidates, std::uint64_t* bits) {
    const NodeId start = group.start;
    const FirstHop own{candidates.data(), static_cast<std::uint32_t>(candidates.size()), kHopList};
    if (candidates.size() > 1) return own;
    if (candidates.empty() || candidates[0] == kSelfPort) return {own.list, own.size, kHopOutcome + kNoRoute};
    const ChannelId c = net_.channelAt(start, candidates[0]);
    if (!c.valid()) return {own.list, own.size, kHopOutcome + kDeadPort};
    const NodeId w = net_.target(c);
    if (w == destination) return {own.list, own.size, kHopOutcome + kDelivered};
    if (!net_.isSwitch(w)) return {own.list, own.size, kHopOutcome + kNoRoute};  // another terminal
    const auto next = table.candidates(net_.switchIndex(w), a);
    if (next.size() == 1 && s_.pairBits != 0 && next[0] < s_.pairStride) {
      const std::uint64_t pair = group.pairBase + candidates[0] * s_.pairStride + next[0];
      std::uint64_t& word = ws_.emittedPairs[pair / 64];
      const std::uint64_t bit = std::uint64_t{1} << (pair % 64);
      if ((word & bit) == 0) emitSuccessors(next, c, w, bits);
      word |= bit;
    } else {
      emitSuccessors(next, c, w, bits);
    }
    return {next.data(), static_cast<std::uint32_t>(next.size()), w.value};
  }

  /// One address of groupedBlock: the first hops of the groups' switches are at `position` +
  /// group in ws.firstHops.
  void grouped(const ForwardingTable& table, Address a, std::size_t position, std::uint64_t* bits) {
    const NodeId destination = s_.routing.addresses.owner(a);
    const LayerId layer(0);
    ws_.destinationGroup = s_.groupOf[destination.index()];
    ws_.resetStates();
    bool used = false;
    for (std::uint32_t g = 0; g < s_.groups.size(); ++g) {
      if (!hasSenders(g, ws_.destinationGroup)) continue;
      const StartGroup& group = s_.groups[g];
      const std::uint64_t senders = group.members.size() - (g == ws_.destinationGroup ? 1 : 0);
      used = true;
      const std::uint8_t outcome = group.start == destination
                                       ? std::uint8_t{kDelivered}
                                       : startOutcome(table, a, destination, group.start, position + g, bits);
      if (outcome == kDelivered) {
        ws_.routes += senders;
        ws_.delivered += senders;
        continue;
      }
      for (std::uint32_t k : group.members) {
        const Source& source = s_.sources[k];
        if (source.node != destination) count(source, a, destination, layer, outcome);
      }
    }
    for (std::uint32_t k : s_.individual) {
      const Source& source = s_.sources[k];
      if (source.node == destination) continue;
      used = true;
      count(source, a, destination, layer, route(source, table, a, destination, bits));
    }
    if (used) ws_.layerUsed[0] = 1;
  }

  /// The outcome of a group's switch `start` (not the destination) whose first hop is at
  /// `position` in ws.firstHops: a single candidate into switch w has w's outcome (a cycle
  /// through start passes through w).
  std::uint8_t startOutcome(const ForwardingTable& table, Address a, NodeId destination, NodeId start,
                            std::size_t position, std::uint64_t* bits) {
    const FirstHop& hop = ws_.firstHops[position];
    const NodeId at = hop.next == kHopList ? start : NodeId(hop.next);
    if (hop.next != kHopList && hop.next >= kHopOutcome) return static_cast<std::uint8_t>(hop.next - kHopOutcome);
    const std::uint8_t seen = ws_.state[at.index()];
    return seen >= kDelivered ? seen : resolveFrom(table, a, destination, at, hop.candidates(), bits);
  }

  /// Terminals at switch `start` send to `destination` along `candidates`: note the owner of
  /// every output channel they name (Workspace::injectionOwner). True when every channel
  /// named has several owners (recording the same list again changes nothing).
  bool recordInjection(std::span<const PortNumber> candidates, NodeId start, NodeId destination) {
    const std::uint32_t owner = destination.value + 1;
    bool saturated = true;
    for (PortNumber p : candidates) {
      if (p == kSelfPort) continue;
      const ChannelId next = net_.channelAt(start, p);
      if (!next.valid()) continue;
      std::uint32_t& recorded = ws_.injectionOwner[next.index()];
      if (recorded == kNoOwner)
        recorded = owner;
      else if (recorded != owner)
        recorded = kSeveralOwners;
      saturated = saturated && recorded == kSeveralOwners;
    }
    return saturated;
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
      if (source.node == destination) continue;
      const std::size_t layers = s_.semantics.injectionLayers(source.node, a, ws_.injection);
      if (layers == 0) continue;
      for (std::size_t i = 0; i < layers; ++i) ws_.layerUsed[ws_.injection[i].index()] = 1;
      ws_.layerUsed[escapeId.index()] = 1;
      if (!source.isSwitch && !source.injection.valid()) continue;
      reach(source.start);
    }
    // The hop rule of escape routings (RoutingSemantics::hopChoices): every layer's
    // candidates; the distinct tables give the same ports without repeating shared ones.
    for (std::size_t head = 0; head < ws_.queue.size(); ++head) {
      const NodeId v(ws_.queue[head]);
      for (const LayerId layer : s_.semantics.tableLayers()) {
        for (PortNumber p : s_.semantics.candidates(v, a, layer)) {
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
        keepExample(ws_.escapeExamples, RouteFailure{NodeId(v), destination, a, escapeId, statusOf(outcome)},
                    s_.scope.maxExamples);
      }
    }
    for (std::uint32_t v : ws_.queue) ws_.reached[v] = 0;
    for (const Source& source : s_.sources) {
      if (source.node == destination || !s_.semantics.carriesTraffic(source.node, a)) continue;
      count(source, a, destination, escapeId, route(source, escapeTable, a, destination, bits));
    }
  }

 private:
  void push(NodeId node, std::span<const PortNumber> candidates) {
    ws_.state[node.index()] = kOnStack;
    ws_.lists[node.index()] = candidates;
    ws_.touched.push_back(node.value);
    ws_.frames.push_back({node.value, 0, kDelivered});
  }

  const Shared& s_;
  const Network& net_;
  Workspace& ws_;
};

/// The verifier's own limits, on top of the routing's invariants (routing/semantics.h).
void checkScope(const RoutingResult& routing, const TrafficScope& scope) {
  if (scope.switchTraffic && !routing.addresses.includesSwitches()) {
    throw AnalysisError("switch traffic requested but the routing has no switch addresses (route switches too)");
  }
}

}  // namespace

namespace {

/// In-scope sources (address owners) and destination addresses, and the terminals that own
/// no address (routing/semantics.h: the ends come from the fabric).
void collectEnds(Shared& shared) {
  const Network& network = shared.network;
  const RoutingResult& routing = shared.routing;
  for (NodeId owner : routing.addresses.owners()) {
    const bool isSwitch = network.isSwitch(owner);
    if (isSwitch && !shared.scope.switchTraffic) continue;
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
    if (network.isSwitch(routing.addresses.owner(a)) && !shared.scope.switchTraffic) continue;
    shared.destinations.push_back(a);
  }
  for (NodeId terminal : network.terminals()) {
    if (!routing.addresses.hasAddresses(terminal)) shared.unaddressed.push_back(terminal);
  }
}

/// Grouped traversal: does every in-scope (source, address) pair carry traffic in layer 0
/// and only there (RoutingSemantics::injectionLayers: no per-pair layers or allowed sets,
/// one source class)? Then group the terminal sources by the switch they are cabled to.
void groupSources(Shared& shared) {
  const RoutingResult& routing = shared.routing;
  shared.grouped =
      routing.escapeLayer < 0 && routing.layerOf.empty() && routing.allowedLayers.empty() && routing.sourceClasses <= 1;
  if (!shared.grouped) return;
  shared.groupOf.assign(shared.network.nodeCount(), kNoGroup);
  shared.groupAt.assign(shared.network.nodeCount(), kNoGroup);
  for (std::uint32_t k = 0; k < shared.sources.size(); ++k) {
    const Source& source = shared.sources[k];
    if (source.isSwitch || !source.injection.valid()) {
      shared.individual.push_back(k);
      continue;
    }
    std::uint32_t& group = shared.groupAt[source.start.index()];
    if (group == kNoGroup) {
      group = static_cast<std::uint32_t>(shared.groups.size());
      shared.groups.push_back({source.start});
    }
    shared.groups[group].members.push_back(k);
    shared.groupOf[source.node.index()] = group;
  }
  for (NodeId node : shared.network.switches()) {
    shared.pairStride = std::max<std::uint64_t>(shared.pairStride, shared.network.portCount(node) + 1U);
  }
  std::uint64_t bits = 0;
  for (StartGroup& group : shared.groups) {
    group.pairBase = bits;
    bits += (shared.network.portCount(group.start) + 1U) * shared.pairStride;
  }
  shared.pairBits = bits <= kMaxPairBits ? bits : 0;
}

/// The injection dependencies of the grouped traversal: injection(t) -> c' for every
/// terminal t of a group and output channel c' of its switch that carried traffic to an
/// address t does not own (the workers' records combined first).
void emitGroupedInjections(const Shared& shared, const std::vector<std::unique_ptr<Workspace>>& partials,
                           std::vector<std::uint64_t>& bits) {
  std::vector<std::uint32_t> owners(shared.network.channelCount(), kNoOwner);
  for (const auto& ws : partials) {
    for (std::size_t c = 0; c < owners.size(); ++c) {
      const std::uint32_t other = ws->injectionOwner[c];
      if (other == kNoOwner || other == owners[c]) continue;
      owners[c] = owners[c] == kNoOwner ? other : kSeveralOwners;
    }
  }
  for (const StartGroup& group : shared.groups) {
    for (std::uint32_t k : group.members) {
      const Source& source = shared.sources[k];
      for (ChannelId next : shared.network.outChannels(group.start)) {
        const std::uint32_t owner = owners[next.index()];
        if (owner == kNoOwner || owner == source.node.value + 1) continue;
        const std::uint32_t slot = shared.layout.slot(source.injection, next);
        bits[slot / 64] |= std::uint64_t{1} << (slot % 64);
      }
    }
  }
}

/// Every pair from or to a terminal without an address fails (one route per pair of nodes).
void countUnaddressed(const Shared& shared, RoutingDependencies& result) {
  const RoutingResult& routing = shared.routing;
  std::vector<NodeId> destinationNodes;
  for (NodeId owner : routing.addresses.owners()) {
    if (shared.network.isTerminal(owner) || shared.scope.switchTraffic) destinationNodes.push_back(owner);
  }
  auto fail = [&](NodeId source, NodeId destination) {
    ++result.routes;
    ++result.noAddress;
    keepExample(result.failures, RouteFailure{source, destination, kNoAddress, LayerId(0), PathStatus::NoAddress},
                shared.scope.maxExamples);
  };
  for (NodeId missing : shared.unaddressed) {
    for (const Source& source : shared.sources) fail(source.node, missing);
    for (NodeId destination : destinationNodes) fail(missing, destination);
    for (NodeId other : shared.unaddressed) {
      if (other != missing) fail(missing, other);
    }
  }
}

/// Merge the workers' partial results: sums, unions and the smallest examples do not
/// depend on the thread count.
void merge(const Shared& shared, const std::vector<std::unique_ptr<Workspace>>& partials, RoutingDependencies& result) {
  const std::size_t maxExamples = shared.scope.maxExamples;
  std::vector<std::vector<std::uint64_t>> merged(shared.routing.layerCount(),
                                                 std::vector<std::uint64_t>(shared.words, 0));
  result.layerUsed.assign(shared.routing.layerCount(), false);
  for (const auto& ws : partials) {
    result.routes += ws->routes;
    result.delivered += ws->delivered;
    result.noRoute += ws->noRoute;
    result.loops += ws->loops;
    result.deadPorts += ws->deadPorts;
    result.unroutedSwitchPairs += ws->unrouted;
    result.escapeFailures += ws->escapeFailures;
    for (const auto& f : ws->failures) keepExample(result.failures, f, maxExamples);
    for (const auto& f : ws->unroutedExamples) keepExample(result.unroutedSwitchExamples, f, maxExamples);
    for (const auto& f : ws->escapeExamples) keepExample(result.escapeFailureExamples, f, maxExamples);
    for (std::size_t layer = 0; layer < merged.size(); ++layer) {
      for (std::size_t w = 0; w < shared.words; ++w) merged[layer][w] |= ws->bitmaps[layer][w];
      if (ws->layerUsed[layer]) result.layerUsed[layer] = true;
    }
  }
  if (shared.grouped) emitGroupedInjections(shared, partials, merged[0]);
  for (std::size_t layer = 0; layer < merged.size(); ++layer) {
    result.graph.addDependencySlots(LayerId::fromIndex(layer), merged[layer]);
  }
}

RoutingDependencies build(const Network& network, const RoutingResult& routing, const TrafficScope& scope,
                          bool allowGrouped) {
  // The one layer limit (core/limits.h) first, before validation reads the per-pair layers
  // and before the graph allocates a slot set per layer.
  if (routing.layerCount() == 0 || routing.layerCount() > kMaxLayers) {
    throw AnalysisError(fmt::format("routing has {} layers; 1..{} are supported", routing.layerCount(), kMaxLayers));
  }
  const RoutingSemantics semantics(network, routing);  // validates the routing
  checkScope(routing, scope);
  RoutingDependencies result(ChannelDependencyGraph(network, routing.layerCount()));
  Shared shared{network, routing, semantics, scope, result.graph.slotLayout(), 0};
  shared.words = (shared.layout.size() + 63) / 64;
  collectEnds(shared);
  if (allowGrouped) groupSources(shared);
  result.sources = shared.sources.size() + shared.unaddressed.size();
  result.destinations = shared.destinations.size() + shared.unaddressed.size();

  const auto count = static_cast<std::int64_t>(shared.destinations.size());
  std::vector<std::unique_ptr<Workspace>> partials;
  // Small routings are not worth the threads (the region's start-up would dominate).
  const bool parallel = static_cast<std::uint64_t>(count) * (shared.sources.size() + network.switchCount()) > 200000;
#pragma omp parallel if (parallel)
  {
    auto ws = std::make_unique<Workspace>(shared);
    Traversal traversal(shared, *ws);
    if (shared.grouped) {
      const std::int64_t blocks = (count + static_cast<std::int64_t>(kBlock) - 1) / static_cast<std::int64_t>(kBlock);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t b = 0; b < blocks; ++b) {
        const auto first = static_cast<std::size_t>(b) * kBlock;
        traversal.groupedBlock(
            std::span(shared.destinations).subspan(first, std::min(kBlock, shared.destinations.size() - first)));
      }
    } else {
#pragma omp for schedule(dynamic, 8)
      for (std::int64_t i = 0; i < count; ++i) {
        const Address a = shared.destinations[static_cast<std::size_t>(i)];
        if (routing.escapeLayer >= 0)
          traversal.escape(a);
        else
          traversal.layered(a);
      }
    }
#pragma omp critical(routelab_cdg_merge)
    partials.push_back(std::move(ws));
  }
  merge(shared, partials, result);
  countUnaddressed(shared, result);
  return result;
}

}  // namespace

RoutingDependencies buildRoutingDependencies(const Network& network, const RoutingResult& routing,
                                             const TrafficScope& scope) {
  return build(network, routing, scope, true);
}

RoutingDependencies buildRoutingDependenciesPerSource(const Network& network, const RoutingResult& routing,
                                                      const TrafficScope& scope) {
  return build(network, routing, scope, false);
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
