#include "analysis/worst.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <optional>
#include <tuple>

#include "analysis/matching.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/parallel.h"
#include "routing/semantics.h"

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace routelab {

namespace {

/// Per-thread work space for one channel's bipartite graph.
struct ChannelSolver {
  explicit ChannelSolver(std::size_t terminals) : localOfDestination(terminals, 0), stamp(terminals, 0) {}

  /// Maximum matching of the pairs `pairs` (pair index s*N+d, ascending; `PairKey` is
  /// std::uint32_t up to 65535 terminals, std::uint64_t beyond). Fills the left CSR over
  /// distinct sources and local destination ids.
  template <class PairKey>
  std::size_t solve(std::span<const PairKey> pairs, std::size_t terminals) {
    ++generation;
    offsets.clear();
    targets.clear();
    sources.clear();
    destinations.clear();
    std::uint32_t previousSource = UINT32_MAX;
    for (const PairKey pair : pairs) {
      const auto s = static_cast<std::uint32_t>(pair / terminals);
      const auto d = static_cast<std::uint32_t>(pair % terminals);
      if (s != previousSource) {
        offsets.push_back(static_cast<std::uint32_t>(targets.size()));
        sources.push_back(s);
        previousSource = s;
      }
      if (stamp[d] != generation) {
        stamp[d] = generation;
        localOfDestination[d] = static_cast<std::uint32_t>(destinations.size());
        destinations.push_back(d);
      }
      targets.push_back(localOfDestination[d]);
    }
    offsets.push_back(static_cast<std::uint32_t>(targets.size()));
    return matcher.solve(offsets, targets, destinations.size());
  }

  std::vector<SourceDestination> matchedPairs() const {
    std::vector<SourceDestination> out;
    const auto match = matcher.matchOfLeft();
    for (std::size_t u = 0; u < match.size(); ++u) {
      if (match[u] != kUnmatched) out.push_back({sources[u], destinations[static_cast<std::size_t>(match[u])]});
    }
    return out;
  }

  /// min(#distinct sources, #distinct destinations): an upper bound of the matching.
  template <class PairKey>
  std::uint32_t bound(std::span<const PairKey> pairs, std::size_t terminals) {
    ++generation;
    std::uint32_t distinctSources = 0, distinctDestinations = 0;
    std::uint32_t previousSource = UINT32_MAX;
    for (const PairKey pair : pairs) {
      const auto s = static_cast<std::uint32_t>(pair / terminals);
      const auto d = static_cast<std::uint32_t>(pair % terminals);
      if (s != previousSource) {
        ++distinctSources;
        previousSource = s;
      }
      if (stamp[d] != generation) {
        stamp[d] = generation;
        ++distinctDestinations;
      }
    }
    return std::min(distinctSources, distinctDestinations);
  }

  HopcroftKarp matcher;
  std::vector<std::uint32_t> offsets, targets, sources, destinations;
  std::vector<std::uint32_t> localOfDestination;
  std::vector<std::uint64_t> stamp;
  std::uint64_t generation = 0;
};

/// Order key: larger = better (larger value, then smaller channel id).
std::uint64_t key(std::uint32_t value, std::uint32_t channel) {
  return (static_cast<std::uint64_t>(value) << 32) | (0xFFFFFFFFULL - channel);
}

/// The pair with a path whose first channel is a terminal channel: (0, 1) if N >= 2.
WorstCase terminalChannelCase(const PairPaths& paths) {
  WorstCase result;
  if (paths.terminals() < 2) return result;
  result.value = 1;
  result.channel = ChannelId(paths.path(0, 1).front());
  result.witness = {{0, 1}};
  return result;
}

}  // namespace

namespace {

/// Transpose of the core paths: pairs (s * N + d) per switch-to-switch channel, each list in
/// ascending pair order (CSR).
struct PairsByChannel {
  std::vector<std::uint32_t> start;
  std::vector<std::uint32_t> pairs;
  std::span<const std::uint32_t> of(std::size_t c) const {
    return std::span<const std::uint32_t>(pairs.data() + start[c], pairs.data() + start[c + 1]);
  }
};

PairsByChannel pairsByChannel(const PairPaths& paths) {
  const std::size_t n = paths.terminals();
  PairsByChannel out;
  out.start.assign(paths.channelCount() + 1, 0);
  for (std::uint32_t s = 0; s < n; ++s) {
    for (std::uint32_t d = 0; d < n; ++d) {
      for (const std::uint32_t c : paths.core(s, d)) ++out.start[c + 1];
    }
  }
  std::partial_sum(out.start.begin(), out.start.end(), out.start.begin());
  out.pairs.resize(out.start.back());
  std::vector<std::uint32_t> cursor(out.start.begin(), out.start.end() - 1);
  for (std::uint32_t s = 0; s < n; ++s) {
    for (std::uint32_t d = 0; d < n; ++d) {
      const auto pair = static_cast<std::uint32_t>(s * n + d);
      for (const std::uint32_t c : paths.core(s, d)) out.pairs[cursor[c]++] = pair;
    }
  }
  return out;
}

}  // namespace

WorstCase worstCasePermutationLoad(const PairPaths& paths, int threads) {
  const std::size_t n = paths.terminals();
  const std::size_t channels = paths.channelCount();
  WorstCase result = terminalChannelCase(paths);
  if (n < 2) return result;

  const PairsByChannel byChannel = pairsByChannel(paths);
  const auto& start = byChannel.start;
  auto pairsOfChannel = [&](std::size_t c) { return byChannel.of(c); };

  std::vector<std::uint32_t> used;
  for (std::uint32_t c = 0; c < channels; ++c) {
    if (start[c + 1] > start[c]) used.push_back(c);
  }
  result.channelsConsidered = used.size();
  if (used.empty()) return result;

  const int workers = workerThreads(threads);
  std::vector<std::uint32_t> bound(channels, 0);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
  {
    ChannelSolver solver(n);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (std::size_t i = 0; i < used.size(); ++i) bound[used[i]] = solver.bound(pairsOfChannel(used[i]), n);
  }
  std::sort(used.begin(), used.end(),
            [&](std::uint32_t a, std::uint32_t b) { return bound[a] != bound[b] ? bound[a] > bound[b] : a < b; });

  // The terminal-channel case (value 1) is the starting best; switch channels replace it
  // only with a strictly larger value (a value of 1 on a switch channel ties, and the
  // terminal channel stays reported, which is as exact).
  std::atomic<std::uint64_t> best(key(result.value, UINT32_MAX - 1));
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
  {
    ChannelSolver solver(n);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (std::size_t i = 0; i < used.size(); ++i) {
      const std::uint32_t c = used[i];
      if (bound[c] <= result.value) continue;  // cannot beat the terminal channels
      if (key(bound[c], c) <= best.load(std::memory_order_relaxed)) continue;
      const auto value = static_cast<std::uint32_t>(solver.solve(pairsOfChannel(c), n));
      const std::uint64_t candidate = key(value, c);
      std::uint64_t current = best.load(std::memory_order_relaxed);
      while (candidate > current && !best.compare_exchange_weak(current, candidate, std::memory_order_relaxed)) {
      }
    }
  }
  const std::uint64_t winner = best.load();
  // The reported work is its order-independent part: the channels whose bound does not
  // rule them out against the final answer, which every schedule must solve. (How many
  // more a run solves depends on how fast the threads found the answer; reporting that
  // made the output depend on the thread count.)
  result.channelsSolved = static_cast<std::size_t>(std::count_if(used.begin(), used.end(), [&](std::uint32_t c) {
    return bound[c] > result.value && key(bound[c], c) >= winner;
  }));
  const auto value = static_cast<std::uint32_t>(winner >> 32);
  if (value > result.value) {
    const auto c = static_cast<std::uint32_t>(0xFFFFFFFFULL - (winner & 0xFFFFFFFFULL));
    ChannelSolver solver(n);
    solver.solve(pairsOfChannel(c), n);
    result.value = value;
    result.channel = ChannelId(c);
    result.witness = solver.matchedPairs();
  }
  return result;
}

WorstCase channelWorstCase(const PairPaths& paths, ChannelId channel) {
  const std::size_t n = paths.terminals();
  std::vector<std::uint32_t> pairs;
  for (std::uint32_t s = 0; s < n; ++s) {
    for (std::uint32_t d = 0; d < n; ++d) {
      for (const std::uint32_t c : paths.path(s, d)) {
        if (c == channel.value) pairs.push_back(static_cast<std::uint32_t>(s * n + d));
      }
    }
  }
  ChannelSolver solver(n);
  WorstCase result;
  result.channel = channel;
  result.value = static_cast<std::uint32_t>(solver.solve(std::span<const std::uint32_t>(pairs), n));
  result.witness = solver.matchedPairs();
  result.channelsSolved = 1;
  result.channelsConsidered = 1;
  return result;
}

}  // namespace routelab

// ---- WORST from source classes (no per-pair storage; contract in worst.h) -----------------

namespace routelab {

namespace {

/// Terminals grouped into classes of sources whose paths coincide for every destination:
/// same first switch, same source class of the address map (addressFor depends on the
/// source only through sourceClassOf, routing_result.h) and the same layerOf row. Classes
/// are numbered by their smallest terminal; members are ascending terminal indices.
struct SourceClasses {
  std::vector<std::uint32_t> start;    // CSR over classes
  std::vector<std::uint32_t> members;  // terminal indices
  std::vector<std::uint32_t> classOf;  // per terminal
  std::vector<NodeId> firstSwitch;     // per class
  std::size_t count() const { return firstSwitch.size(); }
  std::span<const std::uint32_t> of(std::size_t k) const {
    return std::span<const std::uint32_t>(members.data() + start[k], members.data() + start[k + 1]);
  }
  std::uint32_t representative(std::size_t k) const { return members[start[k]]; }
};

/// What makes two sources' paths coincide (SourceClasses), sortable; rows are compared in
/// full within equal keys (the hash only orders them).
struct ClassKey {
  std::uint32_t firstSwitch, sourceClass;
  std::uint64_t rowHash;
  std::uint32_t terminal;
  auto tied() const { return std::tie(firstSwitch, sourceClass, rowHash, terminal); }
  bool sameKey(const ClassKey& other) const {
    return firstSwitch == other.firstSwitch && sourceClass == other.sourceClass && rowHash == other.rowHash;
  }
};

/// The key of every terminal (and its first switch into firstOf), or nullopt when a terminal
/// owns no address or is not cabled to a switch.
std::optional<std::vector<ClassKey>> classKeys(const Network& network, const RoutingResult& routing,
                                               std::vector<NodeId>& firstOf) {
  const std::size_t n = network.terminalCount();
  const std::size_t addresses = routing.addresses.count();
  std::vector<ClassKey> keys(n);
  firstOf.resize(n);
  for (std::uint32_t t = 0; t < n; ++t) {
    const NodeId node = network.terminalNode(t);
    if (!routing.addresses.hasAddresses(node)) return std::nullopt;
    const ChannelId inject = network.injectionChannel(node);
    if (!inject.valid() || !network.isSwitch(network.target(inject))) return std::nullopt;
    firstOf[t] = network.target(inject);
    const std::uint32_t index = routing.addresses.sourceIndex(node);
    std::uint32_t sourceClass = 0;
    if (routing.sourceClasses > 1 && !routing.sourceClassOf.empty()) {
      sourceClass = routing.sourceClassOf[index] % routing.sourceClasses;
    }
    std::uint64_t hash = 1469598103934665603ULL;
    if (!routing.layerOf.empty()) {
      const std::uint8_t* row = routing.layerOf.data() + static_cast<std::size_t>(index) * addresses;
      for (std::size_t a = 0; a < addresses; ++a) hash = (hash ^ row[a]) * 1099511628211ULL;
    }
    keys[t] = {network.switchIndex(firstOf[t]), sourceClass, hash, t};
  }
  std::sort(keys.begin(), keys.end(), [](const ClassKey& a, const ClassKey& b) { return a.tied() < b.tied(); });
  return keys;
}

/// Classes from a group per terminal (groups numbered in any order): renumbered by smallest
/// member, laid out as CSR.
SourceClasses layOutClasses(const std::vector<std::uint32_t>& groupOf, const std::vector<std::uint32_t>& leaders,
                            const std::vector<NodeId>& firstOf) {
  const std::size_t n = groupOf.size();
  std::vector<std::uint32_t> order(leaders.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return leaders[a] < leaders[b]; });
  std::vector<std::uint32_t> rank(leaders.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  SourceClasses classes;
  classes.classOf.resize(n);
  classes.start.assign(leaders.size() + 1, 0);
  for (std::uint32_t t = 0; t < n; ++t) {
    classes.classOf[t] = rank[groupOf[t]];
    ++classes.start[classes.classOf[t] + 1];
  }
  std::partial_sum(classes.start.begin(), classes.start.end(), classes.start.begin());
  classes.members.resize(n);
  std::vector<std::uint32_t> cursor(classes.start.begin(), classes.start.end() - 1);
  for (std::uint32_t t = 0; t < n; ++t) classes.members[cursor[classes.classOf[t]]++] = t;
  classes.firstSwitch.resize(leaders.size());
  for (std::uint32_t k = 0; k < leaders.size(); ++k) classes.firstSwitch[k] = firstOf[classes.representative(k)];
  return classes;
}

/// The classes, or nullopt when a terminal owns no address or is not cabled to a switch (the
/// reference then reports the failing pair).
std::optional<SourceClasses> sourceClasses(const Network& network, const RoutingResult& routing) {
  std::vector<NodeId> firstOf;
  const std::optional<std::vector<ClassKey>> keys = classKeys(network, routing, firstOf);
  if (!keys) return std::nullopt;
  const std::size_t n = keys->size();
  const std::size_t addresses = routing.addresses.count();
  auto sameRow = [&](std::uint32_t s, std::uint32_t t) {
    if (routing.layerOf.empty()) return true;
    auto row = [&](std::uint32_t terminal) {
      return routing.layerOf.data() +
             static_cast<std::size_t>(routing.addresses.sourceIndex(network.terminalNode(terminal))) * addresses;
    };
    return std::equal(row(s), row(s) + addresses, row(t));
  };
  // Runs of equal keys; within a run, rows are compared (hash collisions split classes).
  std::vector<std::uint32_t> groupOf(n, UINT32_MAX);
  std::vector<std::uint32_t> leaders;  // smallest terminal of each group
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first;
    while (last < n && (*keys)[last].sameKey((*keys)[first])) ++last;
    const std::size_t runLeaders = leaders.size();
    for (std::size_t i = first; i < last; ++i) {
      const std::uint32_t t = (*keys)[i].terminal;
      for (std::size_t g = runLeaders; g < leaders.size() && groupOf[t] == UINT32_MAX; ++g) {
        if (sameRow(leaders[g], t)) groupOf[t] = static_cast<std::uint32_t>(g);
      }
      if (groupOf[t] == UINT32_MAX) {
        groupOf[t] = static_cast<std::uint32_t>(leaders.size());
        leaders.push_back(t);
      }
    }
    first = last;
  }
  return layOutClasses(groupOf, leaders, firstOf);
}

/// The walk of one class to one destination: RoutingResult::walk from the class's first
/// switch, reporting the switch-to-switch channels (the delivery channel excluded).
class ClassWalker {
 public:
  ClassWalker(const Network& network, const RoutingResult& routing, const SourceClasses& classes)
      : network_(network), routing_(routing), classes_(classes), limit_(network.nodeCount() + 1) {}

  struct Route {
    NodeId first, destination;
    Address address = 0;
    const ForwardingTable* table = nullptr;
    std::uint64_t treeKey = 0;  ///< distinct per (address, table): one next-hop function
  };

  /// The route of class k to terminal d; false when the source does not send there.
  bool route(std::size_t k, std::uint32_t d, Route& out) const {
    const NodeId source = network_.terminalNode(classes_.representative(k));
    out.first = classes_.firstSwitch[k];
    out.destination = network_.terminalNode(d);
    out.address = routing_.addressFor(source, out.destination);
    const LayerId layer = routing_.layer(routing_.addresses.sourceIndex(source), out.address);
    if (layer.value == RoutingResult::kNoLayer) return false;
    const std::size_t table = routing_.tableOfLayer[layer.index()];
    out.table = &routing_.tables[table];
    out.treeKey = static_cast<std::uint64_t>(out.address) * routing_.tables.size() + table + 1;
    return true;
  }

  /// Follows `route`, calling onChannel(channel id) for every switch-to-switch channel; stops
  /// early (returning true) when onChannel returns false. False when the walk is not
  /// delivered (no route, dead port, loop, a wrong terminal).
  template <class OnChannel>
  bool walk(const Route& route, OnChannel&& onChannel) const {
    NodeId at = route.first;
    for (std::size_t hops = 1;; ++hops) {
      if (at == route.destination) return false;  // a switch is never a terminal's owner
      const PortNumber port = route.table->port(network_.switchIndex(at), route.address);
      if (port == kNoRoute || port == kSelfPort) return false;
      const ChannelId next = network_.channelAt(at, port);
      if (!next.valid() || hops + 1 > limit_) return false;
      at = network_.target(next);
      if (at == route.destination) return true;
      if (!network_.isSwitch(at)) return false;
      if (!onChannel(next.value)) return true;
    }
  }

 private:
  const Network& network_;
  const RoutingResult& routing_;
  const SourceClasses& classes_;
  std::size_t limit_;
};

/// Per channel: distinct sources and destinations of the pairs through it, and the number of
/// those pairs (switch-to-switch channels; 0 elsewhere).
struct ChannelEnds {
  std::vector<std::uint32_t> sources, destinations;
  std::vector<std::uint64_t> pairs;
};

/// Class-major pass: distinct sources and pairs per channel. For class K and channel c, the
/// sources of K through c are all of K when K reaches at least two destinations through c,
/// else K minus that one destination; the pairs are |K| per destination reached through c,
/// less the destinations in K (a walk visits a channel at most once: a second visit is a
/// loop). False when some pair is not delivered.
bool countSources(const SourceClasses& classes, const ClassWalker& walker, std::size_t channels, int workers,
                  ChannelEnds& ends) {
  const auto n = static_cast<std::uint32_t>(classes.classOf.size());
  ends.sources.assign(channels, 0);
  ends.pairs.assign(channels, 0);
  std::atomic<bool> failed(false);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
  {
    std::vector<std::uint32_t> stamp(channels, UINT32_MAX), firstDestination(channels, 0), sources(channels, 0);
    std::vector<std::uint32_t> reached(channels, 0);  // destinations of K through c
    std::vector<std::uint64_t> pairs(channels, 0);    // modulo 2^64 until K is done
    std::vector<std::uint32_t> touched;
    ClassWalker::Route route;
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (std::size_t k = 0; k < classes.count(); ++k) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const auto size = static_cast<std::uint32_t>(classes.of(k).size());
      for (std::uint32_t d = 0; d < n; ++d) {
        if (size == 1 && classes.representative(k) == d) continue;
        const bool inClass = classes.classOf[d] == k;
        const bool delivered = walker.route(k, d, route) && walker.walk(route, [&](std::uint32_t c) {
          if (stamp[c] != k) {
            stamp[c] = static_cast<std::uint32_t>(k);
            firstDestination[c] = d;
            reached[c] = 1;
            touched.push_back(c);
          } else {
            ++reached[c];
          }
          if (inClass) --pairs[c];  // (s, s) is no pair
          return true;
        });
        if (!delivered) {
          failed = true;
          break;
        }
      }
      for (const std::uint32_t c : touched) {
        sources[c] += reached[c] > 1 ? size : size - (classes.classOf[firstDestination[c]] == k ? 1U : 0U);
        pairs[c] += std::uint64_t{reached[c]} * size;
      }
      touched.clear();
    }
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_worst_sources)
#endif
    {
      for (std::size_t c = 0; c < channels; ++c) {
        ends.sources[c] += sources[c];
        ends.pairs[c] += pairs[c];
      }
    }
  }
  return !failed.load();
}

/// Destination-major pass: distinct destinations per channel. The walks to one destination
/// with one (address, table) form a tree, so a walk stops at the first channel an earlier
/// walk of the same tree marked (its remainder is marked too).
void countDestinations(const SourceClasses& classes, const ClassWalker& walker, std::size_t channels, int workers,
                       ChannelEnds& ends) {
  const auto n = static_cast<std::uint32_t>(classes.classOf.size());
  ends.destinations.assign(channels, 0);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
  {
    std::vector<std::uint64_t> tree(channels, 0);
    std::vector<std::uint32_t> lastDestination(channels, UINT32_MAX), destinations(channels, 0);
    ClassWalker::Route route;
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (std::uint32_t d = 0; d < n; ++d) {
      for (std::size_t k = 0; k < classes.count(); ++k) {
        if (classes.of(k).size() == 1 && classes.representative(k) == d) continue;
        if (!walker.route(k, d, route)) continue;  // cannot happen: countSources walked it
        walker.walk(route, [&](std::uint32_t c) {
          if (tree[c] == route.treeKey) return false;
          tree[c] = route.treeKey;
          if (lastDestination[c] != d) {
            lastDestination[c] = d;
            ++destinations[c];
          }
          return true;
        });
      }
    }
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_worst_destinations)
#endif
    for (std::size_t c = 0; c < channels; ++c) ends.destinations[c] += destinations[c];
  }
}

/// The pairs (s * N + d as a PairKey, ascending) through each channel of `batch`, by one
/// class-major pass.
template <class PairKey>
std::vector<std::vector<PairKey>> gatherPairs(const SourceClasses& classes, const ClassWalker& walker,
                                              std::size_t channels, std::span<const std::uint32_t> batch, int workers) {
  const auto n = static_cast<std::uint32_t>(classes.classOf.size());
  std::vector<std::uint32_t> slot(channels, UINT32_MAX);
  for (std::uint32_t i = 0; i < batch.size(); ++i) slot[batch[i]] = i;
  std::vector<std::vector<PairKey>> pairs(batch.size());
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
  {
    std::vector<std::vector<PairKey>> local(batch.size());
    ClassWalker::Route route;
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (std::size_t k = 0; k < classes.count(); ++k) {
      const auto members = classes.of(k);
      for (std::uint32_t d = 0; d < n; ++d) {
        if (members.size() == 1 && members[0] == d) continue;
        if (!walker.route(k, d, route)) continue;
        walker.walk(route, [&](std::uint32_t c) {
          if (slot[c] == UINT32_MAX) return true;
          for (const std::uint32_t s : members) {
            if (s != d) local[slot[c]].push_back(static_cast<PairKey>(PairKey{s} * n + d));
          }
          return true;
        });
      }
    }
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_worst_gather)
#endif
    for (std::size_t i = 0; i < batch.size(); ++i) pairs[i].insert(pairs[i].end(), local[i].begin(), local[i].end());
  }
  for (auto& list : pairs) std::sort(list.begin(), list.end());
  return pairs;
}

/// The first source (by terminal index) with a pair that is not delivered, from the walks of
/// every class (as countSources; used when countSources failed).
std::uint32_t firstUndeliveredSource(const SourceClasses& classes, const ClassWalker& walker) {
  const auto n = static_cast<std::uint32_t>(classes.classOf.size());
  std::uint32_t first = n;
  ClassWalker::Route route;
  for (std::size_t k = 0; k < classes.count() && classes.representative(k) < first; ++k) {
    std::vector<std::uint32_t> failing;  // at most two needed
    for (std::uint32_t d = 0; d < n && failing.size() < 2; ++d) {
      if (!(walker.route(k, d, route) && walker.walk(route, [](std::uint32_t) { return true; }))) failing.push_back(d);
    }
    for (const std::uint32_t s : classes.of(k)) {
      if (failing.size() > 1 || (failing.size() == 1 && failing[0] != s)) {
        first = std::min(first, s);
        break;
      }
    }
  }
  return first;
}

/// The reference's error (PairPaths::build: the first undelivered pair by source, then
/// destination order) for a fabric too large for the reference; `from` is the first source
/// that can fail (0 when unknown).
[[noreturn]] void throwFirstUndelivered(const Network& network, const RoutingResult& routing,
                                        const RoutingSemantics& semantics, std::uint32_t from) {
  TrafficEnds ends;
  ends.destinations.assign(network.terminals().begin(), network.terminals().end());
  PairWalkOptions options;
  options.threads = 1;
  for (std::size_t s = from; s < ends.destinations.size(); ++s) {
    ends.sources = {ends.destinations[s]};
    forEachPairWalk(semantics, ends, options, [&](unsigned, std::size_t, const PairWalk& walk) {
      if (walk.status != PathStatus::Delivered) throw AnalysisError(describeUndelivered(network, routing, walk));
    });
  }
  throw AnalysisError("worst-case load: a pair is not delivered");  // not reached: a walk failed
}

/// Bytes of the fast path's own structures, checked before they are allocated. Per terminal:
/// the class keys (24), first switches, grouping, layout and classes (9 x 4), the matcher's
/// destination maps (12). Per channel: the shared counts, bounds and batch slots (5 x 4 + 8)
/// and, per thread, the larger counting pass (countSources: 4 x 4 + 8).
constexpr std::uint64_t kBytesPerTerminal = 24 + 9 * 4 + 12;
constexpr std::uint64_t kSharedBytesPerChannel = 5 * 4 + 8;
constexpr std::uint64_t kThreadBytesPerChannel = 4 * 4 + 8;

/// The channels' pairs are gathered in batches of doubling size whose pairs stay within half
/// the budget (a first channel alone may use all of it): the merged lists, the threads' lists
/// (up to twice their size while growing) and the matcher's CSR.
template <class PairKey>
constexpr std::uint64_t kBytesPerGatheredPair = 3 * sizeof(PairKey) + 4;

/// Solves the channels of `used` (sorted by decreasing bound) in bound order, as the
/// reference, into `result` (whose value is the terminal channels' 1); returns the best key.
/// A batch's gathered pairs stay within half of `budgetBytes` (one channel's, within all of it).
template <class PairKey>
std::uint64_t solveInBoundOrder(const SourceClasses& classes, const ClassWalker& walker, const ChannelEnds& ends,
                                std::span<const std::uint32_t> used, std::span<const std::uint32_t> bound, int workers,
                                std::uint64_t budgetBytes, WorstCase& result) {
  const std::size_t n = classes.classOf.size();
  const std::uint32_t terminalValue = result.value;
  std::uint64_t best = key(terminalValue, UINT32_MAX - 1);
  ChannelSolver solver(n);
  std::size_t next = 0, batchSize = 1;
  auto open = [&](std::uint32_t c) { return bound[c] > terminalValue && key(bound[c], c) > best; };
  while (next < used.size() && open(used[next])) {
    std::uint64_t pairs = ends.pairs[used[next]];
    std::size_t end = next + 1;
    const std::size_t last = std::min(used.size(), next + batchSize);
    while (end < last &&
           saturatingBytes(pairs + ends.pairs[used[end]], kBytesPerGatheredPair<PairKey>) <= budgetBytes / 2) {
      pairs += ends.pairs[used[end++]];
    }
    checkMemory(fmt::format("worst-case load: pairs of {} channels gathered for matching", end - next), pairs, "pairs",
                kBytesPerGatheredPair<PairKey>, budgetBytes);
    const std::span<const std::uint32_t> batch = used.subspan(next, end - next);
    const auto gathered = gatherPairs<PairKey>(classes, walker, ends.pairs.size(), batch, workers);
    for (std::size_t i = 0; i < batch.size() && open(batch[i]); ++i) {  // keys decrease along `used`
      const auto value = static_cast<std::uint32_t>(solver.solve(std::span<const PairKey>(gathered[i]), n));
      if (key(value, batch[i]) > best) {
        best = key(value, batch[i]);
        result.value = value;
        result.channel = ChannelId(batch[i]);
        result.witness = solver.matchedPairs();
      }
    }
    next = end;
    batchSize *= 2;
  }
  return best;
}

/// The steps of the contract in worst.h, each a call. `widePairKeys` runs as beyond 65535
/// terminals whatever the size (pairs keyed in 64 bits, an undelivered pair found without the
/// reference); `budgetBytes` is the budget of the fast path's own memory (test hooks:
/// worstCasePermutationLoadWithWidePairKeys, worstCasePermutationLoadWithMemoryBudget).
WorstCase worstFromSourceClasses(const Network& network, const RoutingResult& routing, int threads, bool widePairKeys,
                                 std::uint64_t budgetBytes = kMemoryBudgetBytes) {
  const std::size_t n = network.terminalCount();
  auto reference = [&] { return worstCasePermutationLoad(PairPaths::build(network, routing, threads), threads); };
  if (n < 2) return reference();
  const RoutingSemantics semantics(network, routing);  // validates the routing
  const std::size_t channels = network.channelCount();
  const int workers = workerThreads(threads);
  // The fast path's own structures (not the reference's pair paths), before allocating them.
  checkMemory(fmt::format("worst-case load: source classes of {} terminals", n), n, "terminals", kBytesPerTerminal,
              budgetBytes);
  checkMemory(fmt::format("worst-case load: channel counts of {} channels ({} threads)", channels, workers), channels,
              "channels", kSharedBytesPerChannel + kThreadBytesPerChannel * static_cast<std::uint64_t>(workers),
              budgetBytes);
  const bool referenceFits = n <= 65535 && !widePairKeys;
  const std::optional<SourceClasses> classes = sourceClasses(network, routing);
  if (!classes) {
    if (referenceFits) return reference();
    throwFirstUndelivered(network, routing, semantics, 0);
  }
  const ClassWalker walker(network, routing, *classes);
  ChannelEnds ends;
  if (!countSources(*classes, walker, channels, workers, ends)) {
    if (referenceFits) return reference();
    throwFirstUndelivered(network, routing, semantics, firstUndeliveredSource(*classes, walker));
  }
  countDestinations(*classes, walker, channels, workers, ends);

  WorstCase result;  // the terminal channels: (0, 1) loads the injection channel of terminal 0
  result.value = 1;
  result.channel = network.injectionChannel(network.terminalNode(0));
  result.witness = {{0, 1}};
  std::vector<std::uint32_t> used, bound(channels, 0);
  for (std::uint32_t c = 0; c < channels; ++c) {
    if (ends.sources[c] == 0) continue;
    used.push_back(c);
    bound[c] = std::min(ends.sources[c], ends.destinations[c]);
  }
  result.channelsConsidered = used.size();
  std::sort(used.begin(), used.end(),
            [&](std::uint32_t a, std::uint32_t b) { return bound[a] != bound[b] ? bound[a] > bound[b] : a < b; });
  // Pairs are keyed s * N + d: 32 bits up to 65535 terminals, 64 bits beyond.
  const std::uint32_t terminalValue = result.value;
  const std::uint64_t best =
      referenceFits
          ? solveInBoundOrder<std::uint32_t>(*classes, walker, ends, used, bound, workers, budgetBytes, result)
          : solveInBoundOrder<std::uint64_t>(*classes, walker, ends, used, bound, workers, budgetBytes, result);
  result.channelsSolved = static_cast<std::size_t>(std::count_if(
      used.begin(), used.end(), [&](std::uint32_t c) { return bound[c] > terminalValue && key(bound[c], c) >= best; }));
  return result;
}

}  // namespace

WorstCase worstCasePermutationLoad(const Network& network, const RoutingResult& routing, int threads) {
  return worstFromSourceClasses(network, routing, threads, false);
}

WorstCase worstCasePermutationLoadWithWidePairKeys(const Network& network, const RoutingResult& routing, int threads) {
  return worstFromSourceClasses(network, routing, threads, true);
}

WorstCase worstCasePermutationLoadWithMemoryBudget(const Network& network, const RoutingResult& routing, int threads,
                                                   std::uint64_t memoryBudgetBytes) {
  return worstFromSourceClasses(network, routing, threads, false, memoryBudgetBytes);
}

}  // namespace routelab
