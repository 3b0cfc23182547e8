#include "routing/checks.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/errors.h"
#include "graph/algorithms.h"
#include "routing/semantics.h"

namespace routelab {

namespace {

/// Failures found by one work item, merged in item order so the report does not depend on
/// the thread count.
struct ItemFindings {
  std::vector<std::string> failures;
  void add(std::size_t limit, std::string text) {
    if (failures.size() < limit) failures.push_back(std::move(text));
  }
};

std::string describeAddress(const Network& network, const AddressMap& addresses, Address a) {
  return fmt::format("address {} (LID {}, '{}')", a, addresses.lid(a), network.name(addresses.owner(a)));
}

struct TableFindings {
  std::uint64_t entries = 0, multi = 0, nonMinimal = 0, bad = 0, cycles = 0, incomplete = 0;
  ItemFindings findings;
};

/// Entry-local checks of one table entry (switch s, address a): every candidate port leads
/// somewhere legal, and one hop closer when the routing claims minimality.
void checkEntry(const Network& network, const RoutingResult& routing, std::span<const PortNumber> candidates,
                std::uint32_t s, Address a, const std::vector<std::uint32_t>& distance, std::size_t limit,
                TableFindings& out) {
  const AddressMap& addresses = routing.addresses;
  const NodeId destination = addresses.owner(a);
  ++out.entries;
  if (candidates.size() > 1) ++out.multi;
  const NodeId node = network.switchNode(s);
  for (PortNumber port : candidates) {
    if (port == kSelfPort) {
      if (node != destination) {
        ++out.bad;
        out.findings.add(limit, fmt::format("{}: port 0 (deliver here) for {}", network.describePort(node, port),
                                            describeAddress(network, addresses, a)));
      }
      continue;
    }
    const ChannelId channel = network.channelAt(node, port);
    if (!channel.valid()) {
      ++out.bad;
      out.findings.add(limit, fmt::format("{}: dead port for {}", network.describePort(node, port),
                                          describeAddress(network, addresses, a)));
      continue;
    }
    const NodeId next = network.target(channel);
    if (network.isTerminal(next) && next != destination) {
      ++out.bad;
      out.findings.add(limit, fmt::format("{}: leads to terminal '{}' for {}", network.describePort(node, port),
                                          network.name(next), describeAddress(network, addresses, a)));
      continue;
    }
    if (routing.minimal && distance[node.index()] != kUnreachable &&
        distance[next.index()] + 1 != distance[node.index()]) {
      ++out.nonMinimal;
      out.findings.add(limit, fmt::format("{}: candidate not on a shortest path to {}",
                                          network.describePort(node, port), describeAddress(network, addresses, a)));
    }
  }
}

/// Depth-first search over the candidate graph of address `a` from the switches its sources
/// inject into: every choice sequence must reach the destination. Returns true when the
/// graph has a cycle. `state` (one byte per switch) is scratch.
bool checkChoiceSequences(const Network& network, const RoutingResult& routing, const ForwardingTable& table, Address a,
                          std::span<const NodeId> starts, bool requiredDestination, std::size_t limit,
                          std::vector<std::uint8_t>& state, TableFindings& out) {
  const AddressMap& addresses = routing.addresses;
  const NodeId destination = addresses.owner(a);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // (switch, next candidate)
  std::fill(state.begin(), state.end(), 0);                    // 0 new, 1 on stack, 2 good, 3 bad
  bool cycle = false;
  for (NodeId start : starts) {
    const std::uint32_t root = network.switchIndex(start);
    if (state[root] != 0) continue;
    stack.assign(1, {root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [s, nextCandidate] = stack.back();
      const NodeId node = network.switchNode(s);
      const auto candidates = table.candidates(s, a);
      if (node == destination) {
        state[s] = 2;
        stack.pop_back();
        continue;
      }
      if (candidates.empty()) {
        state[s] = 3;
        if (requiredDestination) {
          ++out.incomplete;
          out.findings.add(limit, fmt::format("{}: no route for {}, reachable by candidate choices", network.name(node),
                                              describeAddress(network, addresses, a)));
        }
        stack.pop_back();
        continue;
      }
      if (nextCandidate >= candidates.size()) {
        if (state[s] == 1) state[s] = 2;
        stack.pop_back();
        continue;
      }
      const PortNumber port = candidates[nextCandidate++];
      const ChannelId channel = port == kSelfPort ? ChannelId() : network.channelAt(node, port);
      if (!channel.valid()) {
        state[s] = 3;
        continue;
      }
      const NodeId next = network.target(channel);
      if (!network.isSwitch(next)) {
        if (next != destination) state[s] = 3;
        continue;
      }
      const std::uint32_t t = network.switchIndex(next);
      if (state[t] == 1) {
        if (!cycle) {
          out.findings.add(
              limit, fmt::format("{}: candidate graph of {} has a cycle through {}", network.describePort(node, port),
                                 describeAddress(network, addresses, a), network.name(next)));
        }
        cycle = true;
        state[s] = 3;
        continue;
      }
      if (state[t] == 0) {
        state[t] = 1;
        stack.emplace_back(t, 0);
      }
    }
  }
  return cycle;
}

/// Candidate-graph checks of one table for the addresses of one destination node.
void checkDestinationTable(const Network& network, const RoutingResult& routing, const ForwardingTable& table,
                           NodeId destination, const std::vector<std::uint32_t>& distance,
                           const std::vector<std::vector<NodeId>>& startsByClass, bool requiredDestination,
                           std::size_t limit, TableFindings& out) {
  const AddressMap& addresses = routing.addresses;
  std::vector<std::uint8_t> state(network.switchCount());
  const Address base = addresses.base(destination);
  const std::uint32_t classes =
      std::max<std::uint32_t>(1, std::min(routing.sourceClasses, addresses.blockSize(destination)));
  for (std::uint32_t offset = 0; offset < addresses.blockSize(destination); ++offset) {
    const Address a = base + offset;
    for (std::uint32_t s = 0; s < network.switchCount(); ++s) {
      const auto candidates = table.candidates(s, a);
      if (!candidates.empty()) checkEntry(network, routing, candidates, s, a, distance, limit, out);
    }
    const auto& starts = startsByClass[classes > 1 ? offset % classes : 0];
    if (checkChoiceSequences(network, routing, table, a, starts, requiredDestination, limit, state, out)) {
      ++out.cycles;
    }
  }
}

/// Injection switches of the terminal sources (and switch sources), per source class
/// (source-dependent routings).
std::vector<std::vector<NodeId>> injectionSwitchesByClass(const Network& network, const RoutingResult& routing,
                                                          std::span<const NodeId> sources) {
  const std::uint32_t classes = std::max<std::uint32_t>(1, routing.sourceClasses);
  std::vector<std::vector<NodeId>> startsByClass(classes);
  std::vector<std::vector<std::uint8_t>> seen(classes, std::vector<std::uint8_t>(network.switchCount(), 0));
  for (NodeId source : sources) {
    NodeId start = source;
    if (network.isTerminal(source)) {
      const ChannelId inject = network.injectionChannel(source);
      if (!inject.valid() || !network.isSwitch(network.target(inject))) continue;
      start = network.target(inject);
    }
    std::uint32_t sourceClass = 0;
    const std::uint32_t index = routing.addresses.sourceIndex(source);
    if (classes > 1 && !routing.sourceClassOf.empty() && index != UINT32_MAX) {
      sourceClass = routing.sourceClassOf[index] % classes;
    }
    auto& flag = seen[sourceClass][network.switchIndex(start)];
    if (!flag) {
      flag = 1;
      startsByClass[sourceClass].push_back(start);
    }
  }
  return startsByClass;
}

/// Part 1: candidate graphs, per destination node and table (parallel over destinations,
/// merged in destination order).
void checkTables(const Network& network, const RoutingResult& routing, const RoutingCheckOptions& options,
                 std::span<const NodeId> sources, RoutingCheckReport& report, std::vector<std::string>& failures) {
  const std::vector<NodeId> destinations(routing.addresses.owners().begin(), routing.addresses.owners().end());
  const auto startsByClass = injectionSwitchesByClass(network, routing, sources);
  const auto destinationCount = static_cast<std::int64_t>(destinations.size());
  std::vector<TableFindings> tableFindings(destinations.size());
#if defined(ROUTELAB_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 4) if (destinationCount >= 128)
#endif
  for (std::int64_t i = 0; i < destinationCount; ++i) {
    const NodeId destination = destinations[static_cast<std::size_t>(i)];
    const std::vector<std::uint32_t> distance = hopDistances(network, destination);
    const bool required = network.isTerminal(destination) || options.requireManagementPairs;
    for (const ForwardingTable& table : routing.tables) {
      checkDestinationTable(network, routing, table, destination, distance, startsByClass, required,
                            options.maxFailures, tableFindings[static_cast<std::size_t>(i)]);
    }
  }
  for (const TableFindings& f : tableFindings) {
    report.entries += f.entries;
    report.multiCandidateEntries += f.multi;
    report.nonMinimalCandidates += f.nonMinimal;
    report.badCandidates += f.bad;
    report.candidateCycles += f.cycles;
    report.incompleteChoices += f.incomplete;
    for (const auto& text : f.findings.failures) {
      if (failures.size() < options.maxFailures) failures.push_back(text);
    }
  }
}

/// Part 2: totals of the walks of one source (merged in source order).
struct WalkTotals {
  std::uint64_t pairs = 0, delivered = 0, noRoute = 0, loops = 0, dead = 0, noAddress = 0;
  std::uint64_t terminalPairs = 0, terminalDelivered = 0, managementPairs = 0, managementDelivered = 0;
  std::uint64_t nonMinimal = 0, terminalHops = 0, terminalPaths = 0;
  std::uint32_t maxHops = 0;
  ItemFindings findings;
};

/// Hop distances from one source. A terminal with one cable is one hop from its switch, so
/// the terminals of a switch share that switch's BFS (plus one): on a fat-tree a BFS per
/// leaf switch instead of one per terminal.
class SourceDistances {
 public:
  void from(const Network& network, NodeId source) {
    source_ = source;
    NodeId root = source;
    offset_ = 0;
    if (network.isTerminal(source) && network.outChannels(source).size() == 1) {
      root = network.target(network.outChannels(source).front());
      offset_ = 1;
    }
    if (root != root_) {
      root_ = root;
      distance_ = hopDistances(network, root);
    }
  }
  std::uint32_t operator()(NodeId node) const {
    if (node == source_) return 0;
    const std::uint32_t d = distance_[node.index()];
    return d == kUnreachable ? d : d + offset_;
  }

 private:
  NodeId source_, root_;
  std::uint32_t offset_ = 0;
  std::vector<std::uint32_t> distance_;
};

/// One walked pair into `totals`; `distance(node)` is the hop distance from the pair's source.
void countWalk(const Network& network, const RoutingResult& routing, const RoutingCheckOptions& options,
               const PairWalk& walk, const SourceDistances& distance, WalkTotals& totals) {
  const std::size_t limit = options.maxFailures;
  const NodeId source = walk.source, destination = walk.destination;
  const bool terminalPair = network.isTerminal(source) && network.isTerminal(destination);
  ++totals.pairs;
  (terminalPair ? totals.terminalPairs : totals.managementPairs)++;
  if (walk.status == PathStatus::NoAddress) {
    ++totals.noAddress;
    totals.findings.add(
        limit,
        fmt::format("{} -> {}: {} owns no address (no LID)", network.name(source), network.name(destination),
                    routing.addresses.hasAddresses(destination) ? network.name(source) : network.name(destination)));
    return;
  }
  // Named only for a finding: formatting it for every delivered pair would dominate the walk.
  auto address = [&] { return describeAddress(network, routing.addresses, walk.address); };
  if (walk.status == PathStatus::Delivered) {
    ++totals.delivered;
    (terminalPair ? totals.terminalDelivered : totals.managementDelivered)++;
    const auto hops = static_cast<std::uint32_t>(walk.channels.size());
    totals.maxHops = std::max(totals.maxHops, hops);
    if (terminalPair) {
      totals.terminalHops += hops;
      ++totals.terminalPaths;
    }
    const std::uint32_t shortest = distance(destination);
    if (shortest != kUnreachable && hops > shortest) {
      ++totals.nonMinimal;
      if (routing.minimal) {
        totals.findings.add(limit, fmt::format("{} -> {}: path of {} hops, shortest is {}", network.name(source),
                                               address(), hops, shortest));
      }
    }
    return;
  }
  const NodeId at = walk.channels.empty() ? source : network.target(walk.channels.back());
  if (walk.status == PathStatus::Loop) {
    ++totals.loops;
    totals.findings.add(limit, fmt::format("{} -> {}: forwarding loop (walk passed {})", network.name(source),
                                           address(), network.name(at)));
  } else if (walk.status == PathStatus::DeadPort) {
    ++totals.dead;
    totals.findings.add(limit,
                        fmt::format("{} -> {}: dead port at {}", network.name(source), address(), network.name(at)));
  } else {
    ++totals.noRoute;
    if (terminalPair || options.requireManagementPairs) {
      totals.findings.add(limit,
                          fmt::format("{} -> {}: no route at {}", network.name(source), address(), network.name(at)));
    }
  }
}

/// Part 2: walks of every (source, destination, path) of `ends`, plus (fat-trees) the paths
/// per channel of the terminal pairs' path 0.
std::vector<WalkTotals> walkPairs(const RoutingSemantics& semantics, const TrafficEnds& ends,
                                  const RoutingCheckOptions& options, std::vector<std::uint64_t>& channelPaths) {
  const Network& network = semantics.network();
  const RoutingResult& routing = semantics.routing();
  PairWalkOptions walkOptions;
  walkOptions.allPaths = options.allPaths;
  const unsigned workers = pairWalkWorkers(walkOptions.threads);
  struct Worker {
    std::size_t source = SIZE_MAX;
    SourceDistances distance;
    std::vector<std::uint64_t> paths;
  };
  std::vector<Worker> perWorker(workers);
  for (Worker& w : perWorker) w.paths.assign(channelPaths.size(), 0);
  std::vector<WalkTotals> totals(ends.sources.size());
  forEachPairWalk(semantics, ends, walkOptions, [&](unsigned worker, std::size_t position, const PairWalk& walk) {
    const bool terminalPair = network.isTerminal(walk.source) && network.isTerminal(walk.destination);
    if (!terminalPair && network.isSwitch(walk.destination) && !options.terminalToSwitch &&
        network.isTerminal(walk.source)) {
      return;
    }
    Worker& w = perWorker[worker];
    if (w.source != position) {
      w.source = position;
      w.distance.from(network, walk.source);
    }
    countWalk(network, routing, options, walk, w.distance, totals[position]);
    if (!w.paths.empty() && terminalPair && walk.path == 0 && walk.status == PathStatus::Delivered) {
      for (ChannelId c : walk.channels) ++w.paths[c.index()];
    }
  });
  for (const Worker& w : perWorker) {
    for (std::size_t c = 0; c < channelPaths.size(); ++c) channelPaths[c] += w.paths[c];
  }
  return totals;
}

void sumWalks(const std::vector<WalkTotals>& walkTotals, std::size_t limit, RoutingCheckReport& report,
              std::vector<std::string>& failures) {
  std::uint64_t terminalHops = 0, terminalPaths = 0;
  for (const WalkTotals& t : walkTotals) {
    report.pairs += t.pairs;
    report.delivered += t.delivered;
    report.noRoute += t.noRoute;
    report.loops += t.loops;
    report.deadPorts += t.dead;
    report.noAddress += t.noAddress;
    report.terminalPairs += t.terminalPairs;
    report.terminalPairsDelivered += t.terminalDelivered;
    report.managementPairs += t.managementPairs;
    report.managementPairsDelivered += t.managementDelivered;
    report.nonMinimalPaths += t.nonMinimal;
    report.maxHops = std::max(report.maxHops, t.maxHops);
    terminalHops += t.terminalHops;
    terminalPaths += t.terminalPaths;
    for (const auto& text : t.findings.failures) {
      if (failures.size() < limit) failures.push_back(text);
    }
  }
  report.meanHops = terminalPaths ? static_cast<double>(terminalHops) / static_cast<double>(terminalPaths) : 0.0;
}

/// Route's order of the stages: ascending from the bottom, then descending from the top.
std::vector<StageCount> routeOrder(std::vector<StageCount> stages) {
  std::stable_sort(stages.begin(), stages.end(), [](const StageCount& x, const StageCount& y) {
    if (x.ascending != y.ascending) return x.ascending;
    return x.ascending ? x.lowerLevel < y.lowerLevel : x.lowerLevel > y.lowerLevel;
  });
  return stages;
}

}  // namespace

std::vector<StageCount> groupByStage(const Network& network, std::span<const std::uint64_t> pathsPerChannel) {
  const XgftLabels* labels = network.xgft();
  if (labels == nullptr) {
    throw AnalysisError("per-stage path counts need a fat-tree with known levels (XGFT labels); '" + network.origin() +
                        "' has none");
  }
  std::map<std::pair<std::size_t, bool>, StageCount> groups;  // (lower level, descending)
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    const ChannelId channel = ChannelId::fromIndex(c);
    const std::size_t from = labels->level[network.source(channel).index()];
    const std::size_t to = labels->level[network.target(channel).index()];
    const bool ascending = to > from;
    const std::size_t lower = std::min(from, to);
    auto [it, inserted] = groups.try_emplace({lower, !ascending});
    StageCount& stage = it->second;
    const std::uint64_t paths = pathsPerChannel[c];
    if (inserted) {
      stage.lowerLevel = lower;
      stage.ascending = ascending;
      stage.minPaths = stage.maxPaths = paths;
    }
    ++stage.channels;
    stage.minPaths = std::min(stage.minPaths, paths);
    stage.maxPaths = std::max(stage.maxPaths, paths);
    stage.meanPaths += static_cast<double>(paths);
  }
  std::vector<StageCount> stages;
  for (auto& [key, stage] : groups) {
    stage.meanPaths /= static_cast<double>(stage.channels);
    stages.push_back(stage);
  }
  return stages;
}

std::vector<std::uint64_t> terminalPathsPerChannel(const Network& network, const RoutingResult& routing, int threads) {
  const RoutingSemantics semantics(network, routing);
  TrafficEnds ends;
  ends.sources.assign(network.terminals().begin(), network.terminals().end());
  ends.destinations = ends.sources;
  PairWalkOptions options;
  options.threads = threads;
  const unsigned workers = pairWalkWorkers(threads);
  std::vector<std::vector<std::uint64_t>> perWorker(workers, std::vector<std::uint64_t>(network.channelCount(), 0));
  forEachPairWalk(semantics, ends, options, [&](unsigned worker, std::size_t, const PairWalk& walk) {
    if (walk.status != PathStatus::Delivered) throw AnalysisError(describeUndelivered(network, routing, walk));
    for (const ChannelId c : walk.channels) ++perWorker[worker][c.index()];
  });
  std::vector<std::uint64_t> total(network.channelCount(), 0);
  for (const auto& counts : perWorker) {
    for (std::size_t c = 0; c < total.size(); ++c) total[c] += counts[c];
  }
  return total;
}

RoutingCheckReport checkRouting(const Network& network, const RoutingResult& routing,
                                const RoutingCheckOptions& options) {
  const RoutingSemantics semantics(network, routing);  // validates the routing
  RoutingCheckReport report;
  report.claimsDeterministic = routing.deterministic;
  report.claimsMinimal = routing.minimal;
  const std::size_t limit = options.maxFailures;
  TrafficEndsOptions endsOptions;
  endsOptions.switchDestinations = true;  // every address owner; terminal -> switch filtered by the options
  endsOptions.switchSources = options.switchSources;
  const TrafficEnds ends = trafficEnds(network, routing, endsOptions);
  std::vector<NodeId> injecting;  // sources that inject: address owners and switches
  for (NodeId source : ends.sources) {
    if (routing.addresses.hasAddresses(source) || network.isSwitch(source)) injecting.push_back(source);
  }
  std::vector<std::string> tableFailures, walkFailures;
  checkTables(network, routing, options, injecting, report, tableFailures);

  const bool countChannels = options.channelCounts && network.xgft() != nullptr;
  std::vector<std::uint64_t> channelPaths(countChannels ? network.channelCount() : 0, 0);
  sumWalks(walkPairs(semantics, ends, options, channelPaths), limit, report, walkFailures);
  if (countChannels) report.stages = routeOrder(groupByStage(network, channelPaths));

  report.deterministicOk = !routing.deterministic || report.multiCandidateEntries == 0;
  report.minimalOk = !routing.minimal || (report.nonMinimalCandidates == 0 && report.nonMinimalPaths == 0);
  report.ok = report.terminalPairsDelivered == report.terminalPairs && report.loops == 0 && report.deadPorts == 0 &&
              report.badCandidates == 0 && report.candidateCycles == 0 && report.incompleteChoices == 0 &&
              report.deterministicOk && report.minimalOk &&
              (!options.requireManagementPairs || report.managementPairsDelivered == report.managementPairs);
  for (auto* list : {&walkFailures, &tableFailures}) {
    for (auto& text : *list) {
      if (report.failures.size() < limit) report.failures.push_back(std::move(text));
    }
  }
  if (!report.deterministicOk && report.failures.size() < limit) {
    report.failures.push_back(
        fmt::format("claims deterministic but {} entries have several candidates", report.multiCandidateEntries));
  }
  return report;
}

}  // namespace routelab
