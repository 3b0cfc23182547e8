#include "analysis/table_walks.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <span>

#include "analysis/paths.h"
#include "core/parallel.h"
#include "traffic/pattern.h"

namespace routelab {

namespace {

/// ML of one pattern: max(1, the largest switch-to-switch channel load); `load` is all zero
/// on entry and on exit.
class PatternWalker {
 public:
  PatternWalker(const Network& network, const RoutingResult& routing)
      : network_(network), routing_(routing), load_(network.channelCount(), 0) {}

  std::uint32_t maxLoad(std::span<const SourceDestination> pairs, std::vector<std::uint64_t>* totals = nullptr) {
    std::uint32_t best = 1;
    for (const auto& [s, d] : pairs) {
      routePair(network_, routing_, s, d, walk_);
      if (totals != nullptr) {
        for (const ChannelId c : walk_) ++(*totals)[c.index()];
      }
      for (std::size_t i = 1; i + 1 < walk_.size(); ++i) {
        const std::size_t c = walk_[i].index();
        if (load_[c]++ == 0) touched_.push_back(c);
        best = std::max(best, load_[c]);
      }
    }
    for (const std::size_t c : touched_) load_[c] = 0;
    touched_.clear();
    return best;
  }

 private:
  const Network& network_;
  const RoutingResult& routing_;
  std::vector<std::uint32_t> load_;
  std::vector<std::size_t> touched_;
  std::vector<ChannelId> walk_;
};

/// Runs `body(walker, index)` for index in [from, to) on `threads` workers; the first
/// exception of any worker is rethrown after the loop (none escapes a parallel region).
template <class Body>
void parallelWalks(const Network& network, const RoutingResult& routing, std::uint64_t from, std::uint64_t to,
                   int threads, Body body) {
  std::exception_ptr failure;
  const std::int64_t first = static_cast<std::int64_t>(from), last = static_cast<std::int64_t>(to);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workerThreads(threads))
#else
  (void)threads;
#endif
  {
    PatternWalker walker(network, routing);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 16)
#endif
    for (std::int64_t index = first; index < last; ++index) {
      try {
        body(walker, static_cast<std::uint64_t>(index));
      } catch (...) {
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_report_failure)
#endif
        if (!failure) failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

class TableWalkEvaluator final : public LoadSource::Evaluator {
 public:
  TableWalkEvaluator(const Network& network, const RoutingResult& routing) : walker_(network, routing) {}
  SampleLoad maxLoad(std::span<const SourceDestination> pairs) override {
    const auto ml = static_cast<double>(walker_.maxLoad(pairs));
    return {ml, ml, 0};
  }

 private:
  PatternWalker walker_;
};

class TableWalkSource final : public LoadSource {
 public:
  TableWalkSource(const Network& network, const RoutingResult& routing) : network_(network), routing_(routing) {}
  std::size_t terminals() const override { return network_.terminalCount(); }
  bool integral() const override { return true; }
  std::unique_ptr<Evaluator> evaluator() const override {
    return std::make_unique<TableWalkEvaluator>(network_, routing_);
  }

 private:
  const Network& network_;
  const RoutingResult& routing_;
};

}  // namespace

std::unique_ptr<LoadSource> tableWalkSource(const Network& network, const RoutingResult& routing) {
  return std::make_unique<TableWalkSource>(network, routing);
}

SampledBandwidth sampleByWalks(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                               const SamplingOptions& options) {
  return sampleLoads(TableWalkSource(network, routing), pattern, options);
}

ShiftLoads shiftLoads(const Network& network, const RoutingResult& routing, const std::vector<std::int64_t>& shifts,
                      int threads) {
  ShiftLoads out;
  out.maxLoads.assign(shifts.size(), 0);
  out.channelTotals.assign(network.channelCount(), 0);
  const std::size_t n = network.terminalCount();
  std::vector<std::vector<std::uint64_t>> perThread(static_cast<std::size_t>(workerThreads(threads)));
  parallelWalks(network, routing, 0, shifts.size(), threads, [&](PatternWalker& walker, std::uint64_t index) {
    std::size_t me = 0;
#ifdef ROUTELAB_HAVE_OPENMP
    me = static_cast<std::size_t>(omp_get_thread_num());
#endif
    std::vector<std::uint64_t>& totals = perThread[me];
    if (totals.empty()) totals.assign(network.channelCount(), 0);
    out.maxLoads[index] = walker.maxLoad(shiftPairs(n, shifts[index]), &totals);
  });
  for (const auto& totals : perThread) {
    for (std::size_t c = 0; c < totals.size(); ++c) out.channelTotals[c] += totals[c];
  }
  for (const std::uint64_t t : out.channelTotals) out.hops += t;
  out.pairs = shifts.size() * n;  // s in 1..N-1: N pairs each
  return out;
}

}  // namespace routelab
