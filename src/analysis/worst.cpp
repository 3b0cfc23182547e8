#include "analysis/worst.h"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "analysis/matching.h"
#include "core/parallel.h"

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace routelab {

namespace {

/// Per-thread work space for one channel's bipartite graph.
struct ChannelSolver {
  explicit ChannelSolver(std::size_t terminals) : localOfDestination(terminals, 0), stamp(terminals, 0) {}

  /// Maximum matching of the pairs `pairs` (pair index s*N+d, ascending). Fills the left
  /// CSR over distinct sources and local destination ids.
  std::size_t solve(std::span<const std::uint32_t> pairs, std::size_t terminals) {
    ++generation;
    offsets.clear();
    targets.clear();
    sources.clear();
    destinations.clear();
    std::uint32_t previousSource = UINT32_MAX;
    for (const std::uint32_t pair : pairs) {
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
  std::uint32_t bound(std::span<const std::uint32_t> pairs, std::size_t terminals) {
    ++generation;
    std::uint32_t distinctSources = 0, distinctDestinations = 0;
    std::uint32_t previousSource = UINT32_MAX;
    for (const std::uint32_t pair : pairs) {
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
  result.value = static_cast<std::uint32_t>(solver.solve(pairs, n));
  result.witness = solver.matchedPairs();
  result.channelsSolved = 1;
  result.channelsConsidered = 1;
  return result;
}

}  // namespace routelab
