// WORST under a split model (analysis/split.h worstUnderModel).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <tuple>

#include "analysis/matching.h"
#include "analysis/split.h"
#include "analysis/worst.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/parallel.h"

namespace routelab {

namespace {

constexpr std::uint32_t kNone = kNoRouteState;

}  // namespace

namespace {

struct ChannelShare {
  std::uint16_t source, destination;
  double weight;
};

/// Every channel's even-split shares, as per-channel lists (CSR: the shares of channel c are
/// shares[start[c] .. start[c + 1]), in source order, then destination order).
struct ChannelShares {
  std::vector<std::uint32_t> start;
  std::vector<ChannelShare> shares;
};

/// The even split of every ordered terminal pair over its route graph (the all-pairs loop of
/// routing/semantics.h; errors by source order), transposed to per-channel share lists.
/// Throws LimitError beyond `maxEntries` (channel, pair) entries: before the walk when the
/// lower bound of two per ordered pair (its terminals' own channels) exceeds it, else as soon
/// as the sources walked exceed it (then the sources not yet started are skipped; the error
/// does not depend on the thread count: it is raised exactly when the sources that deliver
/// hold more than `maxEntries`, whichever are walked first).
ChannelShares collectEvenShares(const Network& network, const RoutingResult& routing, int threads,
                                bool escapeEverywhere, std::size_t maxEntries) {
  const std::size_t n = network.terminalCount();
  const std::size_t lowerBound = 2 * n * (n == 0 ? 0 : n - 1);
  if (lowerBound > maxEntries) {
    throw LimitError(
        fmt::format("even-split WORST keeps every pair's split: at least {} (channel, pair) entries "
                    "for {} terminals (two per ordered pair) exceed the limit of {}; use "
                    "--load-model first-path or a smaller fabric",
                    lowerBound, n, maxEntries));
  }
  std::atomic<std::size_t> walked{0};
  std::atomic<bool> beyondLimit{false};
  // Per source: every (channel, destination, share) of its pairs' even splits.
  std::vector<std::vector<std::tuple<std::uint32_t, std::uint16_t, double>>> perSource(n);
  struct Worker {
    Worker(const Network& net, const RoutingResult& result, bool everywhere)
        : builder(net, result, everywhere), load(net.channelCount(), 0.0) {}
    RouteGraphBuilder builder;
    RouteGraph graph;
    std::vector<double> load, flow;
  };
  std::vector<std::unique_ptr<Worker>> perWorker(pairWalkWorkers(threads));
  // The limit's error comes first: a pair's routing error may lie in a source skipped.
  std::exception_ptr walkError;
  try {
    forEachSource(n, threads, [&](unsigned w, std::size_t s) {
      if (beyondLimit.load(std::memory_order_relaxed)) return;
      if (!perWorker[w]) perWorker[w] = std::make_unique<Worker>(network, routing, escapeEverywhere);
      Worker& worker = *perWorker[w];
      for (std::size_t d = 0; d < n; ++d) {
        if (s == d) continue;
        worker.builder.build(static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d), worker.graph);
        addEvenSplit(worker.graph, worker.load, worker.flow);
        for (const std::uint32_t c : worker.graph.edgeChannel) {
          if (worker.load[c] == 0) continue;
          perSource[s].emplace_back(c, static_cast<std::uint16_t>(d), worker.load[c]);
          worker.load[c] = 0;
        }
      }
      if (walked.fetch_add(perSource[s].size()) + perSource[s].size() > maxEntries) beyondLimit = true;
    });
  } catch (...) {
    walkError = std::current_exception();
  }
  if (beyondLimit) {
    throw LimitError(
        fmt::format("even-split WORST keeps every pair's split: more than {} (channel, pair) entries; "
                    "use --load-model first-path or a smaller fabric",
                    maxEntries));
  }
  if (walkError) std::rethrow_exception(walkError);
  const std::size_t total = walked;
  ChannelShares result;
  result.start.assign(network.channelCount() + 1, 0);
  for (const auto& list : perSource) {
    for (const auto& entry : list) ++result.start[std::get<0>(entry) + 1];
  }
  for (std::size_t c = 0; c < network.channelCount(); ++c) result.start[c + 1] += result.start[c];
  result.shares.resize(total);
  std::vector<std::uint32_t> cursor(result.start.begin(), result.start.end() - 1);
  for (std::size_t s = 0; s < n; ++s) {
    for (const auto& [c, d, w] : perSource[s]) result.shares[cursor[c]++] = {static_cast<std::uint16_t>(s), d, w};
  }
  return result;
}

/// Bound per channel on its maximum-weight matching: min(sum of row maxima, sum of column
/// maxima) over its share matrix (any matching takes at most one entry per row and column).
std::vector<double> matchingBounds(const ChannelShares& all, std::size_t terminals) {
  const std::size_t channelCount = all.start.size() - 1;
  const std::vector<std::uint32_t>& start = all.start;
  const std::vector<ChannelShare>& shares = all.shares;
  std::vector<double> bound(channelCount, 0.0);
  std::vector<double> rowMax(terminals, 0.0), columnMax(terminals, 0.0);
  for (std::size_t c = 0; c < channelCount; ++c) {
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      rowMax[shares[i].source] = std::max(rowMax[shares[i].source], shares[i].weight);
      columnMax[shares[i].destination] = std::max(columnMax[shares[i].destination], shares[i].weight);
    }
    double rows = 0, columns = 0;
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      rows += rowMax[shares[i].source];
      rowMax[shares[i].source] = 0;
      columns += columnMax[shares[i].destination];
      columnMax[shares[i].destination] = 0;
    }
    bound[c] = std::min(rows, columns);
  }
  return bound;
}

/// Exact even-split WORST: the maximum over channels of the maximum-weight matching of the
/// channel's share matrix, channels visited by decreasing bound and cut off by it.
SplitWorstCase evenSplitWorst(const Network& network, const RoutingResult& routing, int threads, std::size_t maxEntries,
                              bool escapeEverywhere = true) {
  const std::size_t n = network.terminalCount();
  if (n > 65535) throw AnalysisError(fmt::format("split WORST supports up to 65535 terminals, the fabric has {}", n));
  const std::size_t channelCount = network.channelCount();
  const ChannelShares all = collectEvenShares(network, routing, threads, escapeEverywhere, maxEntries);
  const std::vector<std::uint32_t>& start = all.start;
  const std::vector<ChannelShare>& shares = all.shares;
  const std::vector<double> bound = matchingBounds(all, n);
  std::vector<std::uint32_t> order;
  for (std::uint32_t c = 0; c < channelCount; ++c) {
    if (start[c + 1] > start[c]) order.push_back(c);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return bound[a] > bound[b]; });
  SplitWorstCase result;
  result.model = LoadModel::EvenSplit;
  double best = -1;
  std::uint32_t bestChannel = kNone;
  std::vector<std::uint32_t> rowOf(n, kNone), columnOf(n, kNone), rowTerminal, columnTerminal;
  std::vector<double> matrix;
  std::vector<int> match;
  for (const std::uint32_t c : order) {
    if (bound[c] < best - kLoadTolerance) break;
    if (bound[c] <= best + kLoadTolerance && c > bestChannel) continue;
    rowTerminal.clear();
    columnTerminal.clear();
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      if (rowOf[shares[i].source] == kNone) {
        rowOf[shares[i].source] = static_cast<std::uint32_t>(rowTerminal.size());
        rowTerminal.push_back(shares[i].source);
      }
      if (columnOf[shares[i].destination] == kNone) {
        columnOf[shares[i].destination] = static_cast<std::uint32_t>(columnTerminal.size());
        columnTerminal.push_back(shares[i].destination);
      }
    }
    matrix.assign(rowTerminal.size() * columnTerminal.size(), 0.0);
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      matrix[rowOf[shares[i].source] * columnTerminal.size() + columnOf[shares[i].destination]] += shares[i].weight;
    }
    const double value = roundLoad(maxWeightMatching(matrix, rowTerminal.size(), columnTerminal.size(), match));
    ++result.channelsSolved;
    if (value > best + kLoadTolerance || (std::abs(value - best) <= kLoadTolerance && c < bestChannel)) {
      best = value;
      bestChannel = c;
      result.witness.clear();
      for (std::size_t r = 0; r < rowTerminal.size(); ++r) {
        if (match[r] >= 0) {
          result.witness.push_back({rowTerminal[r], columnTerminal[static_cast<std::size_t>(match[r])]});
        }
      }
    }
    for (const std::uint32_t t : rowTerminal) rowOf[t] = kNone;
    for (const std::uint32_t t : columnTerminal) columnOf[t] = kNone;
  }
  std::sort(result.witness.begin(), result.witness.end(),
            [](const SourceDestination& a, const SourceDestination& b) { return a.source < b.source; });
  result.value = result.lower = std::max(0.0, best);
  if (bestChannel != kNone) result.channel = ChannelId::fromIndex(bestChannel);
  return result;
}

}  // namespace

SplitWorstCase worstUnderModel(const Network& network, const RoutingResult& routing, LoadModel model, int threads,
                               const BestSplitOptions& bestSplit, std::size_t maxEntries) {
  SplitWorstCase result;
  result.model = model;
  if (model == LoadModel::FirstPath || isSinglePath(network, routing)) {
    const WorstCase worst = worstCasePermutationLoad(network, routing, threads);
    result.value = result.lower = worst.value;
    result.channel = worst.channel;
    result.witness = worst.witness;
    result.channelsSolved = worst.channelsSolved;
    return result;
  }
  SplitWorstCase even = evenSplitWorst(network, routing, threads, maxEntries);
  if (model == LoadModel::EvenSplit) return even;
  // Best split: upper = min(first-path WORST, even-split WORST); lower = the best-split
  // lower bounds of both witness permutations.
  const WorstCase first = worstCasePermutationLoad(network, routing, threads);
  result.channelsSolved = even.channelsSolved + first.channelsSolved;
  if (first.value < even.value) {
    result.value = first.value;
    result.channel = first.channel;
    result.witness = first.witness;
  } else {
    result.value = even.value;
    result.channel = even.channel;
    result.witness = even.witness;
  }
  SplitWorstCase noEscape;
  if (routing.escapeLayer >= 0) {
    noEscape = evenSplitWorst(network, routing, threads, maxEntries, false);
    result.channelsSolved += noEscape.channelsSolved;
    if (noEscape.value < result.value) {
      result.value = noEscape.value;
      result.channel = noEscape.channel;
      result.witness = noEscape.witness;
    }
  }
  RouteGraphBuilder builder(network, routing);
  SplitWorkspace ws;
  BestSplitOptions tight = bestSplit;
  tight.maxIterations = std::max<std::uint32_t>(tight.maxIterations, 2000);
  const std::vector<SourceDestination>* witnesses[] = {&first.witness, &even.witness, &noEscape.witness};
  for (const std::vector<SourceDestination>* witness : witnesses) {
    if (witness->empty()) continue;
    const BestSplitLoad b = bestSplitMaxLoad(builder, network.channelCount(), *witness, tight, ws);
    result.lower = std::max(result.lower, b.lower);
  }
  result.lower = std::min(result.lower, result.value);
  return result;
}

}  // namespace routelab
