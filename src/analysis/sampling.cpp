#include "analysis/sampling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <vector>

#include "core/errors.h"
#include "core/parallel.h"
#include "core/random.h"
#include "traffic/pattern.h"

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace routelab {

std::string sampledPatternName(SampledPattern pattern) {
  switch (pattern) {
    case SampledPattern::Bisect: return "bisect";
    case SampledPattern::FullPermutation: return "full-permutation";
    case SampledPattern::Dissemination: return "dissemination";
    case SampledPattern::RandomPermutation: return "random-permutation";
  }
  return "pattern";
}

void drawSampledPattern(SampledPattern pattern, std::uint64_t seed, std::uint64_t index,
                        std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out) {
  Rng rng(deriveSeed(seed, index));
  switch (pattern) {
    case SampledPattern::Bisect: sampleBisect(rng, scratch, out); break;
    case SampledPattern::FullPermutation: sampleFullPermutation(rng, scratch, out); break;
    case SampledPattern::Dissemination: sampleDissemination(rng, scratch, out); break;
    case SampledPattern::RandomPermutation: sampleRandomPermutation(rng, scratch, out); break;
  }
}

void summariseMaxLoads(const std::vector<std::uint64_t>& histogram, SampledBandwidth& out) {
  std::uint64_t samples = 0;
  double sum = 0, sumLoad = 0;
  for (std::size_t ml = 1; ml < histogram.size(); ++ml) {
    samples += histogram[ml];
    sum += static_cast<double>(histogram[ml]) / static_cast<double>(ml);
    sumLoad += static_cast<double>(histogram[ml]) * static_cast<double>(ml);
  }
  out.samples = samples;
  if (samples == 0) return;
  const double mean = sum / static_cast<double>(samples);
  double squares = 0;
  for (std::size_t ml = 1; ml < histogram.size(); ++ml) {
    const double deviation = 1.0 / static_cast<double>(ml) - mean;
    squares += static_cast<double>(histogram[ml]) * deviation * deviation;
  }
  const double variance = samples > 1 ? squares / static_cast<double>(samples - 1) : 0.0;
  out.mean = mean;
  out.ci99HalfWidth = kZ99 * std::sqrt(variance / static_cast<double>(samples));
  out.meanMaxLoad = sumLoad / static_cast<double>(samples);
  out.maxLoadHistogram.clear();
  for (std::size_t ml = 1; ml < histogram.size(); ++ml) {
    if (histogram[ml] != 0) out.maxLoadHistogram[static_cast<std::uint32_t>(ml)] = histogram[ml];
  }
}

void checkSampledPattern(std::size_t terminals, SampledPattern pattern) {
  if (terminals < 2) {
    throw AnalysisError(fmt::format("{} patterns need at least 2 terminals, the fabric has {}",
                                    sampledPatternName(pattern), terminals));
  }
  if ((pattern == SampledPattern::Bisect || pattern == SampledPattern::Dissemination) && terminals % 2 != 0) {
    throw AnalysisError(fmt::format("{} patterns need an even number of terminals (Nienaber §II), the fabric has {}",
                                    sampledPatternName(pattern), terminals));
  }
}

void checkSamplingOptions(const SamplingOptions& options) {
  if (!(options.precision > 0)) {
    throw SpecError(
        fmt::format("precision must be > 0 (a fraction of the mean, e.g. 0.01), got {}", options.precision));
  }
  if (options.initialSamples < 2) throw SpecError("at least 2 initial samples are needed for a confidence interval");
}

std::uint64_t firstSampleTarget(const SamplingOptions& options) {
  return std::max<std::uint64_t>(2, std::min(options.initialSamples, options.maxSamples));
}

std::pair<std::uint64_t, std::uint64_t> sampleShare(std::uint64_t from, std::uint64_t to, std::uint32_t part,
                                                    std::uint32_t parts) {
  const std::uint64_t count = to - from;
  const auto at = [&](std::uint64_t p) { return from + count / parts * p + std::min<std::uint64_t>(p, count % parts); };
  return {at(part), at(part + 1)};
}

bool continueSampling(SampledBandwidth& result, const SamplingOptions& options, std::uint64_t& target) {
  if (result.ci99HalfWidth <= options.precision * result.mean) {
    result.converged = true;
    return false;
  }
  if (target * 2 > options.maxSamples) return false;
  target *= 2;
  return true;
}

void summariseSplitSamples(const std::vector<double>& upper, const std::vector<double>& lower,
                           SampledBandwidth& result) {
  const std::size_t drawn = upper.size();
  double sum = 0, sumBound = 0, sumLoad = 0, gap = 0;
  for (std::uint64_t i = 0; i < drawn; ++i) {
    sum += 1.0 / upper[i];
    sumBound += 1.0 / lower[i];
    sumLoad += upper[i];
    gap = std::max(gap, (upper[i] - lower[i]) / upper[i]);
  }
  const double mean = sum / static_cast<double>(drawn);
  double squares = 0;
  for (std::uint64_t i = 0; i < drawn; ++i) squares += (1.0 / upper[i] - mean) * (1.0 / upper[i] - mean);
  result.samples = drawn;
  result.mean = mean;
  result.ci99HalfWidth = kZ99 * std::sqrt(squares / static_cast<double>(drawn - 1) / static_cast<double>(drawn));
  result.meanMaxLoad = sumLoad / static_cast<double>(drawn);
  result.bandwidthUpperBound = sumBound / static_cast<double>(drawn);
  result.maxRelativeGap = gap;
  result.exact = gap == 0;
}

namespace {

/// The samples drawn so far. Integral sources: `histogram` (all rounds) and `round` (this
/// round's counts, index ML). Others: upper, lower and iterations per sample index.
struct SampleStore {
  std::vector<std::uint64_t> histogram, round;
  std::vector<double> upper, lower;
  std::vector<std::uint32_t> iterations;
};

using SampleFailure = std::pair<std::uint64_t, std::exception_ptr>;

/// The load of sample `index` (drawn into `scratch` / `pairs`).
SampleLoad evaluateSample(const LoadSource& source, LoadSource::Evaluator& evaluator, SampledPattern pattern,
                          std::uint64_t seed, std::uint64_t index, std::vector<std::uint32_t>& scratch,
                          std::vector<SourceDestination>& pairs) {
  if (source.uncontended()) return {};
  drawSampledPattern(pattern, seed, index, scratch, pairs);
  return evaluator.maxLoad(pairs);
}

/// Evaluates samples [from, to) on the option's threads into `store`; returns the failures
/// (an exception must not leave an OpenMP region: each is caught inside its sample).
std::vector<SampleFailure> evaluateRound(const LoadSource& source, SampledPattern pattern,
                                         const SamplingOptions& options, std::uint64_t from, std::uint64_t to,
                                         SampleStore& store) {
  std::vector<SampleFailure> failures;
  const bool integral = source.integral();
  [[maybe_unused]] const int workers = workerThreads(options.threads);
  [[maybe_unused]] const int chunk = source.chunk();
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
  {
    const std::unique_ptr<LoadSource::Evaluator> evaluator = source.evaluator();
    std::vector<std::uint32_t> scratch(source.terminals());
    std::vector<SourceDestination> pairs;
    std::vector<std::uint64_t> local(store.round.size(), 0);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, chunk)
#endif
    for (std::uint64_t index = from; index < to; ++index) {
      try {
        const SampleLoad load = evaluateSample(source, *evaluator, pattern, options.seed, index, scratch, pairs);
        if (integral) {
          ++local[static_cast<std::size_t>(load.upper)];
        } else {
          store.upper[index] = load.upper;
          store.lower[index] = load.lower;
          store.iterations[index] = load.iterations;
        }
      } catch (...) {
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_sampling_failures)
#endif
        failures.emplace_back(index, std::current_exception());
      }
    }
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_sampling_merge)
#endif
    for (std::size_t i = 0; i < local.size(); ++i) store.round[i] += local[i];
  }
  return failures;
}

/// Adds every process's share of the round [drawn, target) (options.split.sum): the round's
/// histogram, or the per-sample values (zero outside a process's share, so each sum has one
/// non-zero term); returns the number of failed samples over every process.
std::uint64_t combineRound(const LoadSource& source, const SamplingOptions& options, std::uint64_t drawn,
                           std::uint64_t target, std::size_t localFailures, SampleStore& store) {
  const std::size_t count = target - drawn;
  const auto [from, to] = sampleShare(drawn, target, options.split.part, options.split.parts);
  std::vector<double> values;
  if (source.integral()) {
    values.assign(store.round.begin(), store.round.end());  // counts < 2^53: exact
  } else {
    values.assign(3 * count, 0.0);
    for (std::uint64_t i = from; i < to; ++i) {
      values[i - drawn] = store.upper[i];
      values[count + i - drawn] = store.lower[i];
      values[2 * count + i - drawn] = store.iterations[i];
    }
  }
  values.push_back(static_cast<double>(localFailures));
  options.split.sum(values);
  if (source.integral()) {
    for (std::size_t i = 0; i < store.round.size(); ++i) store.round[i] = static_cast<std::uint64_t>(values[i]);
  } else {
    for (std::uint64_t i = drawn; i < target; ++i) {
      store.upper[i] = values[i - drawn];
      store.lower[i] = values[count + i - drawn];
      store.iterations[i] = static_cast<std::uint32_t>(values[2 * count + i - drawn]);
    }
  }
  return static_cast<std::uint64_t>(values.back());
}

/// Rethrows the error of the failed sample of smallest index over every process. Every
/// process calls it when any failed (a second all-reduce finds that index); a process that
/// did not draw the sample evaluates it itself, which fails the same way.
[[noreturn]] void rethrowFirstFailure(const LoadSource& source, SampledPattern pattern, const SamplingOptions& options,
                                      bool split, std::uint64_t drawn, std::uint64_t target,
                                      const std::vector<SampleFailure>& failures) {
  const auto local = std::min_element(failures.begin(), failures.end(),
                                      [](const SampleFailure& a, const SampleFailure& b) { return a.first < b.first; });
  if (!split) std::rethrow_exception(local->second);
  std::vector<double> failed(target - drawn, 0.0);
  for (const SampleFailure& failure : failures) failed[failure.first - drawn] = 1;
  options.split.sum(failed);
  const std::uint64_t first =
      drawn + static_cast<std::uint64_t>(std::find_if(failed.begin(), failed.end(), [](double f) { return f != 0; }) -
                                         failed.begin());
  if (local != failures.end() && local->first == first) std::rethrow_exception(local->second);
  std::vector<std::uint32_t> scratch(source.terminals());
  std::vector<SourceDestination> pairs;
  evaluateSample(source, *source.evaluator(), pattern, options.seed, first, scratch, pairs);
  throw AnalysisError(fmt::format("sample {} failed on another process and not on this one", first));
}

/// The summary of every sample drawn so far.
void summarise(const LoadSource& source, SampleStore& store, SampledBandwidth& result) {
  if (source.integral()) {
    for (std::size_t i = 0; i < store.round.size(); ++i) store.histogram[i] += store.round[i];
    summariseMaxLoads(store.histogram, result);
    result.bandwidthUpperBound = result.mean;  // integer ML: the mean is exact
  } else {
    summariseSplitSamples(store.upper, store.lower, result);
  }
}

}  // namespace

SampledBandwidth sampleLoads(const LoadSource& source, SampledPattern pattern, const SamplingOptions& options) {
  checkSampledPattern(source.terminals(), pattern);
  checkSamplingOptions(options);
  SampledBandwidth result;
  result.pattern = sampledPatternName(pattern);
  result.options = options;
  const bool split = options.split.parts > 1 && options.split.sum;
  SampleStore store;
  // ML <= N for any permutation (at most N pairs share a channel).
  if (source.integral()) store.histogram.assign(source.terminals() + 2, 0);
  std::uint64_t drawn = 0;
  std::uint64_t target = firstSampleTarget(options);
  while (true) {
    if (!source.integral()) {
      store.upper.resize(target);
      store.lower.resize(target);
      store.iterations.resize(target);
    }
    store.round.assign(store.histogram.size(), 0);
    const auto [from, to] =
        split ? sampleShare(drawn, target, options.split.part, options.split.parts) : std::pair{drawn, target};
    const std::vector<SampleFailure> failures = evaluateRound(source, pattern, options, from, to, store);
    const std::uint64_t failed =
        split ? combineRound(source, options, drawn, target, failures.size(), store) : failures.size();
    if (failed != 0) rethrowFirstFailure(source, pattern, options, split, drawn, target, failures);
    drawn = target;
    summarise(source, store, result);
    if (!continueSampling(result, options, target)) break;
  }
  if (!source.integral()) {
    for (const double ml : store.upper) ++result.splitHistogram[ml];
    result.maxIterations = *std::max_element(store.iterations.begin(), store.iterations.end());
  }
  return result;
}

}  // namespace routelab
