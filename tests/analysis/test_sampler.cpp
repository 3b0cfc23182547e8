// The one sampler (analysis/sampling.h sampleLoads) over every load source: the samples split
// over processes give the one-process result bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "analysis/paths.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/table_walks.h"
#include "engines/registry.h"
#include "fabric/fabric.h"

namespace routelab {
namespace {

/// An all-reduce (sum) over `parts` threads, standing in for MPI_Allreduce.
class ThreadSum {
 public:
  explicit ThreadSum(std::ptrdiff_t parts) : barrier_(parts) {}
  void sum(std::span<double> values) {
    {
      std::lock_guard lock(mutex_);
      if (total_.size() != values.size()) total_.assign(values.size(), 0.0);
      for (std::size_t i = 0; i < values.size(); ++i) total_[i] += values[i];
    }
    barrier_.arrive_and_wait();
    std::copy(total_.begin(), total_.end(), values.begin());
    barrier_.arrive_and_wait();
    {
      std::lock_guard lock(mutex_);
      total_.clear();
    }
    barrier_.arrive_and_wait();
  }

 private:
  std::barrier<> barrier_;
  std::mutex mutex_;
  std::vector<double> total_;
};

/// The result of sampleLoads(source) with the samples split over `parts` threads, each
/// standing for a process; every part's result must be the same.
std::vector<SampledBandwidth> splitRun(const LoadSource& source, SampledPattern pattern, const SamplingOptions& base,
                                       std::uint32_t parts) {
  ThreadSum reduce(parts);
  std::vector<SampledBandwidth> results(parts);
  std::vector<std::jthread> threads;
  for (std::uint32_t p = 0; p < parts; ++p) {
    threads.emplace_back([&, p] {
      SamplingOptions options = base;
      options.split = {p, parts, [&reduce](std::span<double> values) { reduce.sum(values); }};
      results[p] = sampleLoads(source, pattern, options);
    });
  }
  threads.clear();  // joins
  return results;
}

void expectSame(const SampledBandwidth& a, const SampledBandwidth& b, const std::string& what) {
  EXPECT_EQ(a.samples, b.samples) << what;
  EXPECT_EQ(a.mean, b.mean) << what;
  EXPECT_EQ(a.ci99HalfWidth, b.ci99HalfWidth) << what;
  EXPECT_EQ(a.meanMaxLoad, b.meanMaxLoad) << what;
  EXPECT_EQ(a.bandwidthUpperBound, b.bandwidthUpperBound) << what;
  EXPECT_EQ(a.maxRelativeGap, b.maxRelativeGap) << what;
  EXPECT_EQ(a.maxIterations, b.maxIterations) << what;
  EXPECT_EQ(a.converged, b.converged) << what;
  EXPECT_EQ(a.maxLoadHistogram, b.maxLoadHistogram) << what;
  EXPECT_EQ(a.splitHistogram, b.splitHistogram) << what;
}

/// A multipath routing on an irregular fabric (mp-lash on random:switches=16: every source's
/// ML varies from sample to sample, so no round meets the stopping rule) and the load sources
/// over it, by name; best split only where asked.
struct IrregularMultipathSources {
  explicit IrregularMultipathSources(bool bestSplit) {
    sources.emplace_back("stored paths", storedPathSource(paths));
    sources.emplace_back("table walks", tableWalkSource(fabric.network, routing));
    sources.emplace_back("even split", evenSplitSource(fabric.network, routing));
    if (bestSplit) sources.emplace_back("best split", bestSplitSource(fabric.network, routing));
  }
  Fabric fabric = loadFabric("random:switches=16");
  RoutingResult routing = runEngine("mp-lash", fabric.network);
  PairPaths paths = PairPaths::build(fabric.network, routing, 1);
  std::vector<std::pair<std::string, std::unique_ptr<LoadSource>>> sources;
};

TEST(Sampler, EverySourceSplitOverProcessesGivesTheOneProcessResultBitForBit) {
  const IrregularMultipathSources multipath(true);
  const auto& sources = multipath.sources;
  SamplingOptions options;
  options.seed = 11;
  options.initialSamples = 40;
  options.precision = 1e-6;  // never met: every doubling round up to maxSamples
  options.maxSamples = 320;
  options.threads = 2;
  for (const auto& [name, source] : sources) {
    const SampledBandwidth whole = sampleLoads(*source, SampledPattern::FullPermutation, options);
    ASSERT_EQ(whole.samples, 320U) << name;  // four rounds: 40, 80, 160, 320
    for (const std::uint32_t parts : {2U, 3U}) {
      for (const SampledBandwidth& part : splitRun(*source, SampledPattern::FullPermutation, options, parts)) {
        expectSame(part, whole, name + " over " + std::to_string(parts));
      }
    }
  }
}

// The sample count follows docs/ANALYSIS.md's doubling rule, recomputed here: a first round of
// min(initial, max) samples (at least 2), doubled while the doubled count stays within
// --max-samples; a bound below the first round cuts it, for every load source.
TEST(Sampler, SampleCountIsTheDoublingRuleBoundedByMaxSamples) {
  const IrregularMultipathSources multipath(false);
  const auto& sources = multipath.sources;
  const auto expected = [](std::uint64_t initial, std::uint64_t maximum) {
    std::uint64_t target = std::max<std::uint64_t>(2, std::min(initial, maximum));
    while (target * 2 <= maximum) target *= 2;
    return target;
  };
  SamplingOptions options;
  options.seed = 5;
  options.precision = 1e-9;  // met only by equal samples (the 2-sample round may be): the bound decides
  options.threads = 2;
  for (const auto& [initial, maximum] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {40, 7}, {40, 2}, {40, 39}, {40, 40}, {40, 41}, {40, 79}, {40, 80}, {40, 200}, {1000, 100}}) {
    options.initialSamples = initial;
    options.maxSamples = maximum;
    for (const auto& [name, source] : sources) {
      const SampledBandwidth result = sampleLoads(*source, SampledPattern::FullPermutation, options);
      EXPECT_EQ(result.samples, expected(initial, maximum)) << name << " initial " << initial << " max " << maximum;
    }
  }
  EXPECT_EQ(expected(40, 200), 160U);  // 40, 80, 160: 320 would pass the bound
  EXPECT_EQ(expected(1000, 100), 100U);
}

// The evaluators' contract (sampling.h, SampleLoad): a source that computes its load exactly
// reports upper == lower and no solver iterations; the first-path ones (stored paths, table
// walks) an integer ML equal to a recount of the pattern's stored paths, at least 1.
TEST(Sampler, ExactSourcesReportTheirLoadWithoutSolverIterations) {
  const Fabric fabric = loadFabric("random:switches=16");
  const RoutingResult routing = runEngine("mp-lash", fabric.network);
  const PairPaths paths = PairPaths::build(fabric.network, routing, 1);
  const auto n = static_cast<std::uint32_t>(paths.terminals());
  std::vector<std::pair<std::string, std::unique_ptr<LoadSource>>> sources;
  sources.emplace_back("stored paths", storedPathSource(paths));
  sources.emplace_back("table walks", tableWalkSource(fabric.network, routing));
  sources.emplace_back("even split", evenSplitSource(fabric.network, routing));
  for (const auto& [name, source] : sources) {
    const std::unique_ptr<LoadSource::Evaluator> evaluator = source->evaluator();
    for (std::uint32_t shift = 0; shift < 6; ++shift) {  // shift 0: the empty pattern
      std::vector<SourceDestination> pairs;
      for (std::uint32_t s = 0; shift != 0 && s < n; ++s) pairs.push_back({s, (s + shift) % n});
      const SampleLoad load = evaluator->maxLoad(pairs);
      const std::string what = name + ", shift " + std::to_string(shift);
      EXPECT_EQ(load.upper, load.lower) << what;
      EXPECT_EQ(load.iterations, 0U) << what;
      EXPECT_GE(load.upper, 1.0) << what;
      if (!source->integral()) continue;
      std::vector<std::uint32_t> count(paths.channelCount(), 0);
      std::uint32_t recount = 1;
      for (const auto& [s, d] : pairs) {
        for (const std::uint32_t c : paths.path(s, d)) recount = std::max(recount, ++count[c]);
      }
      EXPECT_EQ(load.upper, recount) << what;
    }
  }
}

}  // namespace
}  // namespace routelab
