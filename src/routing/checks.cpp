#include "routing/checks.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "graph/algorithms.h"

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

/// Candidate-graph checks of one table for the addresses of one destination node.
void checkDestinationTable(const Network& network, const RoutingResult& routing, const ForwardingTable& table,
                           NodeId destination, const std::vector<std::uint32_t>& distance,
                           const std::vector<std::vector<NodeId>>& startsByClass, bool requiredDestination,
                           std::size_t limit, TableFindings& out) {
  const AddressMap& addresses = routing.addresses;
  const std::size_t switches = network.switchCount();
  std::vector<std::uint8_t> state(switches);                   // 0 new, 1 on stack, 2 good, 3 bad
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;  // (switch, next candidate)
  const Address base = addresses.base(destination);
  const std::uint32_t classes =
      std::max<std::uint32_t>(1, std::min(routing.sourceClasses, addresses.blockSize(destination)));
  for (std::uint32_t offset = 0; offset < addresses.blockSize(destination); ++offset) {
    const Address a = base + offset;
    // Entry-local checks.
    for (std::uint32_t s = 0; s < switches; ++s) {
      const auto candidates = table.candidates(s, a);
      if (candidates.empty()) continue;
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
          out.findings.add(limit,
                           fmt::format("{}: candidate not on a shortest path to {}", network.describePort(node, port),
                                       describeAddress(network, addresses, a)));
        }
      }
    }
    // Every choice sequence from the switches the sources of this address inject into must
    // reach the destination: depth-first search over the candidate graph.
    std::fill(state.begin(), state.end(), 0);
    bool cycle = false;
    for (NodeId start : startsByClass[classes > 1 ? offset % classes : 0]) {
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
            out.findings.add(limit, fmt::format("{}: no route for {}, reachable by candidate choices",
                                                network.name(node), describeAddress(network, addresses, a)));
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
    if (cycle) ++out.cycles;
  }
}

}  // namespace

RoutingCheckReport checkRouting(const Network& network, const RoutingResult& routing,
                                const RoutingCheckOptions& options) {
  RoutingCheckReport report;
  report.claimsDeterministic = routing.deterministic;
  report.claimsMinimal = routing.minimal;
  const AddressMap& addresses = routing.addresses;
  const std::size_t limit = options.maxFailures;

  // Destinations: nodes owning addresses, in address order.
  std::vector<NodeId> destinations(addresses.owners().begin(), addresses.owners().end());
  // Sources: terminals owning addresses, then switches if asked.
  std::vector<NodeId> sources;
  for (NodeId node : destinations) {
    if (network.isTerminal(node)) sources.push_back(node);
  }
  if (options.switchSources) {
    for (NodeId s : network.switches()) sources.push_back(s);
  }
  // Injection switches of terminal sources, per source class (source-dependent routings).
  const std::uint32_t classes = std::max<std::uint32_t>(1, routing.sourceClasses);
  std::vector<std::vector<NodeId>> startsByClass(classes);
  {
    std::vector<std::vector<std::uint8_t>> seen(classes, std::vector<std::uint8_t>(network.switchCount(), 0));
    for (NodeId source : sources) {
      NodeId start = source;
      if (network.isTerminal(source)) {
        const ChannelId inject = network.injectionChannel(source);
        if (!inject.valid() || !network.isSwitch(network.target(inject))) continue;
        start = network.target(inject);
      }
      std::uint32_t sourceClass = 0;
      const std::uint32_t index = addresses.sourceIndex(source);
      if (classes > 1 && !routing.sourceClassOf.empty() && index != UINT32_MAX) {
        sourceClass = routing.sourceClassOf[index] % classes;
      }
      auto& flag = seen[sourceClass][network.switchIndex(start)];
      if (!flag) {
        flag = 1;
        startsByClass[sourceClass].push_back(start);
      }
    }
  }

  // ---- Part 1: candidate graphs, per destination node and table -------------------------
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
      checkDestinationTable(network, routing, table, destination, distance, startsByClass, required, limit,
                            tableFindings[static_cast<std::size_t>(i)]);
    }
  }
  std::vector<std::string> tableFailures;
  for (const TableFindings& f : tableFindings) {
    report.entries += f.entries;
    report.multiCandidateEntries += f.multi;
    report.nonMinimalCandidates += f.nonMinimal;
    report.badCandidates += f.bad;
    report.candidateCycles += f.cycles;
    report.incompleteChoices += f.incomplete;
    for (const auto& text : f.findings.failures) {
      if (tableFailures.size() < limit) tableFailures.push_back(text);
    }
  }

  // ---- Part 2: walks of every (source, destination, path) --------------------------------
  const XgftLabels* labels = network.xgft();
  const bool countChannels = options.channelCounts && labels != nullptr;
  struct WalkTotals {
    std::uint64_t pairs = 0, delivered = 0, noRoute = 0, loops = 0, dead = 0;
    std::uint64_t terminalPairs = 0, terminalDelivered = 0, managementPairs = 0, managementDelivered = 0;
    std::uint64_t nonMinimal = 0, terminalHops = 0, terminalPaths = 0;
    std::uint32_t maxHops = 0;
    ItemFindings findings;
  };
  const auto sourceCount = static_cast<std::int64_t>(sources.size());
  std::vector<WalkTotals> walkTotals(sources.size());
  std::vector<std::uint64_t> channelPaths(countChannels ? network.channelCount() : 0, 0);
#if defined(ROUTELAB_HAVE_OPENMP)
#pragma omp parallel if (sourceCount >= 128)
#endif
  {
    std::vector<std::uint64_t> localPaths(channelPaths.size(), 0);
    std::vector<ChannelId> channels;
#if defined(ROUTELAB_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 4)
#endif
    for (std::int64_t i = 0; i < sourceCount; ++i) {
      const NodeId source = sources[static_cast<std::size_t>(i)];
      WalkTotals& totals = walkTotals[static_cast<std::size_t>(i)];
      const std::vector<std::uint32_t> distance = hopDistances(network, source);
      const std::uint32_t sourceIndex = addresses.sourceIndex(source);
      for (NodeId destination : destinations) {
        if (destination == source) continue;
        const bool terminalPair = network.isTerminal(source) && network.isTerminal(destination);
        if (!terminalPair && network.isSwitch(destination) && !options.terminalToSwitch && network.isTerminal(source)) {
          continue;
        }
        const std::uint32_t paths = options.allPaths ? routing.pathCount(destination) : 1;
        for (std::uint32_t path = 0; path < paths; ++path) {
          const Address a = routing.addressFor(source, destination, path);
          const LayerId layer = sourceIndex == UINT32_MAX ? LayerId(0) : routing.layer(sourceIndex, a);
          const PathStatus status = routing.walk(network, source, a, layer, channels);
          ++totals.pairs;
          (terminalPair ? totals.terminalPairs : totals.managementPairs)++;
          if (status == PathStatus::Delivered) {
            ++totals.delivered;
            (terminalPair ? totals.terminalDelivered : totals.managementDelivered)++;
            const auto hops = static_cast<std::uint32_t>(channels.size());
            totals.maxHops = std::max(totals.maxHops, hops);
            if (terminalPair) {
              totals.terminalHops += hops;
              ++totals.terminalPaths;
            }
            if (distance[destination.index()] != kUnreachable && hops > distance[destination.index()]) {
              ++totals.nonMinimal;
              if (routing.minimal) {
                totals.findings.add(
                    limit, fmt::format("{} -> {}: path of {} hops, shortest is {}", network.name(source),
                                       describeAddress(network, addresses, a), hops, distance[destination.index()]));
              }
            }
            if (countChannels && terminalPair && path == 0) {
              for (ChannelId c : channels) ++localPaths[c.index()];
            }
            continue;
          }
          const NodeId at = channels.empty() ? source : network.target(channels.back());
          const bool required = terminalPair || options.requireManagementPairs;
          if (status == PathStatus::Loop) {
            ++totals.loops;
            totals.findings.add(limit, fmt::format("{} -> {}: forwarding loop (walk passed {})", network.name(source),
                                                   describeAddress(network, addresses, a), network.name(at)));
          } else if (status == PathStatus::DeadPort) {
            ++totals.dead;
            totals.findings.add(limit, fmt::format("{} -> {}: dead port at {}", network.name(source),
                                                   describeAddress(network, addresses, a), network.name(at)));
          } else {
            ++totals.noRoute;
            if (required) {
              totals.findings.add(limit, fmt::format("{} -> {}: no route at {}", network.name(source),
                                                     describeAddress(network, addresses, a), network.name(at)));
            }
          }
        }
      }
    }
#if defined(ROUTELAB_HAVE_OPENMP)
#pragma omp critical
#endif
    for (std::size_t c = 0; c < localPaths.size(); ++c) channelPaths[c] += localPaths[c];
  }
  std::vector<std::string> walkFailures;
  std::uint64_t terminalHops = 0, terminalPaths = 0;
  for (const WalkTotals& t : walkTotals) {
    report.pairs += t.pairs;
    report.delivered += t.delivered;
    report.noRoute += t.noRoute;
    report.loops += t.loops;
    report.deadPorts += t.dead;
    report.terminalPairs += t.terminalPairs;
    report.terminalPairsDelivered += t.terminalDelivered;
    report.managementPairs += t.managementPairs;
    report.managementPairsDelivered += t.managementDelivered;
    report.nonMinimalPaths += t.nonMinimal;
    report.maxHops = std::max(report.maxHops, t.maxHops);
    terminalHops += t.terminalHops;
    terminalPaths += t.terminalPaths;
    for (const auto& text : t.findings.failures) {
      if (walkFailures.size() < limit) walkFailures.push_back(text);
    }
  }
  report.meanHops = terminalPaths ? static_cast<double>(terminalHops) / static_cast<double>(terminalPaths) : 0.0;

  // ---- Part 3: per-stage channel loads (fat-trees) ---------------------------------------
  if (countChannels) {
    std::map<std::pair<std::size_t, bool>, StageChannelLoad> stages;
    for (std::size_t c = 0; c < network.channelCount(); ++c) {
      const ChannelId channel = ChannelId::fromIndex(c);
      const std::size_t from = labels->level[network.source(channel).index()];
      const std::size_t to = labels->level[network.target(channel).index()];
      auto& stage = stages[{from, to > from}];
      const std::uint64_t paths = channelPaths[c];
      if (stage.channels == 0) {
        stage.level = from;
        stage.up = to > from;
        stage.minPaths = stage.maxPaths = paths;
      }
      ++stage.channels;
      stage.minPaths = std::min(stage.minPaths, paths);
      stage.maxPaths = std::max(stage.maxPaths, paths);
      stage.meanPaths += static_cast<double>(paths);
    }
    for (auto& [key, stage] : stages) {
      stage.meanPaths /= static_cast<double>(stage.channels);
      report.stages.push_back(stage);
    }
    // Order: up stages by level, then down stages from the top.
    std::stable_sort(report.stages.begin(), report.stages.end(), [](const auto& x, const auto& y) {
      if (x.up != y.up) return x.up;
      return x.up ? x.level < y.level : x.level > y.level;
    });
  }

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
