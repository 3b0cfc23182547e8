#include "analysis/sampling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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

namespace {

/// Per-thread state: the pattern buffer and a load counter per channel (all zero between
/// samples: each sample clears exactly the entries it touched).
class SampleWorker {
 public:
  SampleWorker(const PairPaths& paths, SampledPattern pattern)
      : paths_(paths), pattern_(pattern), scratch_(paths.terminals()), load_(paths.channelCount(), 0) {}

  std::uint32_t maxLoad(std::uint64_t seed, std::uint64_t index) {
    drawSampledPattern(pattern_, seed, index, scratch_, pairs_);
    // A permutation loads every terminal channel at most once (see sampling.h); an empty
    // pattern (a random permutation that is the identity) counts as ML = 1, no contention.
    std::uint32_t ml = 1;
    if (paths_.hasCompactCore()) {
      // Random records of a multi-megabyte table: prefetch all of them first so the cache
      // misses overlap, then count; clearing the whole (small) counter array is cheaper than
      // revisiting the records.
      const std::size_t stride = paths_.coreStride();
      for (const auto& [s, d] : pairs_) __builtin_prefetch(paths_.compactCore(s, d));
      for (const auto& [s, d] : pairs_) {
        const std::uint16_t* record = paths_.compactCore(s, d);
        for (std::size_t i = 0; i < stride && record[i] != PairPaths::kNoCompactChannel; ++i) {
          ml = std::max(ml, ++load_[record[i]]);
        }
      }
      std::fill(load_.begin(), load_.end(), 0);
      return ml;
    }
    for (const auto& [s, d] : pairs_) {
      for (const std::uint32_t c : paths_.core(s, d)) ml = std::max(ml, ++load_[c]);
    }
    for (const auto& [s, d] : pairs_) {
      for (const std::uint32_t c : paths_.core(s, d)) load_[c] = 0;
    }
    return ml;
  }

 private:
  const PairPaths& paths_;
  SampledPattern pattern_;
  std::vector<std::uint32_t> scratch_;
  std::vector<SourceDestination> pairs_;
  std::vector<std::uint32_t> load_;
};

/// Mean, half-width and mean ML from the ML histogram (count per ML value), in ascending ML
/// order so the floating-point result is independent of how samples were split.
void summarise(const std::vector<std::uint64_t>& histogram, SampledBandwidth& out) {
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

}  // namespace

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

bool continueSampling(SampledBandwidth& result, const SamplingOptions& options, std::uint64_t& target) {
  if (result.ci99HalfWidth <= options.precision * result.mean) {
    result.converged = true;
    return false;
  }
  if (target * 2 > options.maxSamples) return false;
  target *= 2;
  return true;
}

std::uint32_t sampleMaxLoad(const PairPaths& paths, SampledPattern pattern, std::uint64_t seed, std::uint64_t index) {
  checkSampledPattern(paths.terminals(), pattern);
  SampleWorker worker(paths, pattern);
  return worker.maxLoad(seed, index);
}

SampledBandwidth sampleBandwidth(const PairPaths& paths, SampledPattern pattern, const SamplingOptions& options) {
  checkSampledPattern(paths.terminals(), pattern);
  checkSamplingOptions(options);
  SampledBandwidth result;
  result.pattern = sampledPatternName(pattern);
  result.options = options;
  [[maybe_unused]] const int workers = workerThreads(options.threads);
  // ML <= N for any permutation (at most N pairs share a channel).
  std::vector<std::uint64_t> histogram(paths.terminals() + 2, 0);
  std::uint64_t drawn = 0;
  std::uint64_t target = firstSampleTarget(options);
  while (true) {
    const std::uint64_t from = drawn;
    const std::uint64_t to = target;
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
    {
      SampleWorker worker(paths, pattern);
      std::vector<std::uint64_t> local(histogram.size(), 0);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(static, 256)
#endif
      for (std::uint64_t index = from; index < to; ++index) ++local[worker.maxLoad(options.seed, index)];
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_sampling_merge)
#endif
      for (std::size_t i = 0; i < local.size(); ++i) histogram[i] += local[i];
    }
    drawn = to;
    summarise(histogram, result);
    if (!continueSampling(result, options, target)) break;
  }
  return result;
}

}  // namespace routelab
