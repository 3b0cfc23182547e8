#include "analysis/paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/errors.h"
#include "core/limits.h"
#include "graph/algorithms.h"
#include "routing/semantics.h"

namespace routelab {

namespace {

bool anyAdaptive(const RoutingResult& routing) {
  for (const auto& table : routing.tables) {
    if (table.adaptive()) return true;
  }
  return false;
}

}  // namespace

void routePair(const Network& network, const RoutingResult& routing, std::uint32_t s, std::uint32_t d,
               std::vector<ChannelId>& out) {
  PairWalk walk;
  walk.source = network.terminalNode(s);
  walk.destination = network.terminalNode(d);
  out.clear();
  if (!routing.addresses.hasAddresses(walk.destination) || !routing.addresses.hasAddresses(walk.source)) {
    walk.status = PathStatus::NoAddress;
    throw AnalysisError(describeUndelivered(network, routing, walk));
  }
  walk.address = routing.addressFor(walk.source, walk.destination);
  walk.layer = routing.layer(routing.addresses.sourceIndex(walk.source), walk.address);
  walk.status = routing.walk(network, walk.source, walk.address, walk.layer, out);
  if (walk.status != PathStatus::Delivered) {
    walk.channels = out;
    throw AnalysisError(describeUndelivered(network, routing, walk));
  }
}

namespace {

/// Every ordered pair of distinct terminals, in terminal order (PairPaths' indices).
TrafficEnds terminalEnds(const Network& network) {
  TrafficEnds ends;
  ends.sources.assign(network.terminals().begin(), network.terminals().end());
  ends.destinations = ends.sources;
  return ends;
}

/// A lower bound of the channel entries of all ordered terminal pairs' paths: a path has
/// 2 channels (injection, delivery) plus the hop distance between the switches its
/// terminals hang off. Cheap form first (2 per pair on one switch, 4 otherwise); the exact
/// minimal sum (a BFS from every switch with terminals) only where the cheap form stays
/// under the 2^32 limit but could be far below the truth. Uncabled terminals and
/// unreachable pairs count nothing (they fail later with a precise message).
std::uint64_t fewestPathChannels(const Network& network) {
  std::vector<std::uint64_t> attached(network.nodeCount(), 0);
  for (NodeId t : network.terminals()) {
    const ChannelId inject = network.injectionChannel(t);
    if (inject.valid()) ++attached[network.target(inject).index()];
  }
  const std::uint64_t n = network.terminalCount();
  const std::uint64_t pairs = n * (n > 0 ? n - 1 : 0);
  std::uint64_t sameSwitch = 0;
  std::vector<NodeId> leaves;
  for (NodeId s : network.switches()) {
    const std::uint64_t count = attached[s.index()];
    if (count == 0) continue;
    sameSwitch += count * (count - 1);
    leaves.push_back(s);
  }
  const std::uint64_t cheap = 2 * sameSwitch + 4 * (pairs - sameSwitch);
  constexpr std::uint64_t kLimit = std::numeric_limits<std::uint32_t>::max();
  if (cheap > kLimit || pairs * 8 <= kLimit) return cheap;
  std::uint64_t exact = 0;
  for (NodeId from : leaves) {
    const std::vector<std::uint32_t> distance = hopDistances(network, from);
    for (NodeId to : leaves) {
      if (distance[to.index()] == kUnreachable) continue;
      const std::uint64_t others = attached[to.index()] - (to == from ? 1 : 0);
      exact += attached[from.index()] * others * (2 + distance[to.index()]);
    }
  }
  return exact;
}

}  // namespace

PairPaths PairPaths::build(const Network& network, const RoutingResult& routing, int threads) {
  const std::size_t n = network.terminalCount();
  if (n > 65535) {
    throw AnalysisError(fmt::format("pair-path analysis supports up to 65535 terminals, the fabric has {}", n));
  }
  // Offsets (4 bytes per ordered pair) and at least two channels (8 bytes) per path,
  // checked before anything is allocated; the exact total is checked after pass 1.
  checkMemory(fmt::format("pair paths of {} terminals", n), saturatingBytes(n, n), "ordered pairs", 4 + 8);
  // Channel entries are 32-bit offsets. Refuse now what pass 1 would refuse only after
  // walking every pair (minutes on 32,768 terminals): a path between two terminals has at
  // least 2 channels (injection, delivery), and at least 4 when they hang off different
  // switches (a switch-to-switch hop between).
  const std::uint64_t fewestEntries = fewestPathChannels(network);
  if (fewestEntries > std::numeric_limits<std::uint32_t>::max()) {
    throw AnalysisError(
        fmt::format("pair paths of {} terminals exceed 2^32 channel entries (at least {} needed)", n, fewestEntries));
  }
  PairPaths paths;
  paths.terminals_ = n;
  paths.channelCount_ = network.channelCount();
  paths.engine_ = routing.engine;
  paths.adaptive_ = anyAdaptive(routing);
  paths.offset_.assign(n * n + 1, 0);
  // Pass 1: path lengths, by the all-pairs traversal of routing/semantics.h (parallel over
  // sources; the first failure, by source order, is the error whatever the thread count).
  const RoutingSemantics semantics(network, routing);
  const TrafficEnds ends = terminalEnds(network);
  PairWalkOptions walkOptions;
  walkOptions.threads = threads;
  forEachPairWalk(semantics, ends, walkOptions, [&](unsigned, std::size_t s, const PairWalk& walk) {
    if (walk.status != PathStatus::Delivered) throw AnalysisError(describeUndelivered(network, routing, walk));
    paths.offset_[s * n + network.terminalIndex(walk.destination)] = static_cast<std::uint32_t>(walk.channels.size());
  });
  std::uint64_t total = 0;  // lengths -> exclusive prefix sums
  for (std::size_t pair = 0; pair < n * n; ++pair) {
    const std::uint32_t pathLength = paths.offset_[pair];
    paths.offset_[pair] = static_cast<std::uint32_t>(total);
    total += pathLength;
    if (total > std::numeric_limits<std::uint32_t>::max()) {
      throw AnalysisError(fmt::format("pair paths of {} terminals exceed 2^32 channel entries", n));
    }
  }
  paths.offset_[n * n] = static_cast<std::uint32_t>(total);
  checkMemory(fmt::format("pair paths of {} terminals ({} ordered pairs)", n, n * n), total + n * n + 1,
              "channel entries and offsets", 4);
  paths.channels_.resize(total);

  // Pass 2: fill (the walks succeeded above, so they succeed again).
  forEachPairWalk(semantics, ends, walkOptions, [&](unsigned, std::size_t s, const PairWalk& walk) {
    std::uint32_t at = paths.offset_[s * n + network.terminalIndex(walk.destination)];
    for (ChannelId c : walk.channels) paths.channels_[at++] = c.value;
  });
  paths.buildCompactCore(network, routing);
  return paths;
}

void PairPaths::buildCompactCore(const Network& network, const RoutingResult& routing) {
  PairPaths& paths = *this;
  const std::size_t n = terminals_;
  // Compact fixed-width core records (see paths.h).
  std::size_t stride = 0;
  for (std::size_t pair = 0; pair < n * n; ++pair) {
    const std::size_t hops = paths.offset_[pair + 1] - paths.offset_[pair];
    stride = std::max(stride, hops >= 2 ? hops - 2 : 0);
  }
  if (paths.channelCount_ >= kNoCompactChannel || stride == 0) return;
  paths.coreStride_ = stride;

  // By (first switch, address): one layer, and address(s, d) = base(d) + offset(s) for all
  // pairs (checked on every pair); rows are the distinct first switches.
  bool bySwitch = routing.layerOf.empty() && routing.tables.size() == 1;
  std::vector<std::uint32_t> rowOf(n, 0), offsetOf(n, 0);
  std::vector<std::uint32_t> rowOfSwitch(network.switchCount(), UINT32_MAX);
  std::uint32_t rows = 0;
  for (std::uint32_t s = 0; s < n && bySwitch; ++s) {
    const NodeId source = network.terminalNode(s);
    const ChannelId inject = network.injectionChannel(source);
    const NodeId first = network.target(inject);
    if (!network.isSwitch(first)) {
      bySwitch = false;
      break;
    }
    std::uint32_t& row = rowOfSwitch[network.switchIndex(first)];
    if (row == UINT32_MAX) row = rows++;
    rowOf[s] = row;
    const NodeId other = network.terminalNode(s == 0 ? 1 : 0);
    offsetOf[s] = routing.addressFor(source, other) - routing.addresses.base(other);
    for (std::uint32_t d = 0; d < n && bySwitch; ++d) {
      if (d == s) continue;
      const NodeId destination = network.terminalNode(d);
      bySwitch = routing.addressFor(source, destination) == routing.addresses.base(destination) + offsetOf[s];
    }
  }
  const std::size_t addresses = routing.addresses.count();
  if (bySwitch && static_cast<std::size_t>(rows) * addresses < n * n) {
    paths.compactBySwitch_ = true;
    paths.compactCore_.assign(static_cast<std::size_t>(rows) * addresses * stride, kNoCompactChannel);
    paths.sourceOffset_.resize(n);
    paths.destinationOffset_.resize(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      paths.sourceOffset_[s] = (static_cast<std::size_t>(rowOf[s]) * addresses + offsetOf[s]) * stride;
    }
    for (std::uint32_t d = 0; d < n; ++d) {
      paths.destinationOffset_[d] = static_cast<std::size_t>(routing.addresses.base(network.terminalNode(d))) * stride;
    }
    // The core of (s, d) is the same for every source behind one first switch with one
    // address offset; write it from the pair paths (equal records are written repeatedly).
    for (std::uint32_t s = 0; s < n; ++s) {
      for (std::uint32_t d = 0; d < n; ++d) {
        if (d == s) continue;
        std::uint16_t* record = paths.compactCore_.data() + paths.sourceOffset_[s] + paths.destinationOffset_[d];
        for (const std::uint32_t c : paths.core(s, d)) *record++ = static_cast<std::uint16_t>(c);
      }
    }
  } else if (n * n * stride * 2 <= paths.memoryBytes()) {
    paths.compactCore_.assign(n * n * stride, kNoCompactChannel);
    paths.sourceOffset_.resize(n);
    paths.destinationOffset_.resize(n);
    for (std::uint32_t t = 0; t < n; ++t) {
      paths.sourceOffset_[t] = static_cast<std::size_t>(t) * n * stride;
      paths.destinationOffset_[t] = static_cast<std::size_t>(t) * stride;
    }
    for (std::uint32_t s = 0; s < n; ++s) {
      for (std::uint32_t d = 0; d < n; ++d) {
        std::uint16_t* record = paths.compactCore_.data() + paths.sourceOffset_[s] + paths.destinationOffset_[d];
        for (const std::uint32_t c : paths.core(s, d)) *record++ = static_cast<std::uint16_t>(c);
      }
    }
  } else {
    paths.coreStride_ = 0;
  }
}

}  // namespace routelab
