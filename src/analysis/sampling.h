// routelab/analysis/sampling.h — ABB, AFPB, ADB: average bandwidth over random patterns.
//
// Nienaber et al. 2011 §II: for a pattern P, the bandwidth available to it is 1 / ML_R^P
// (link bandwidth normalised to 1); ABB, AFPB and ADB are the averages of 1/ML over all
// bisect (Def. 2), full-permutation (Def. 3) and dissemination (Def. 4) patterns. §IV's
// statistical method: sample 1000 random patterns, compute the 99% confidence interval of
// the mean; stop when it is within 1% of the mean, else double the number of samples and
// repeat. "Within 1%" is read as the 99% half-width <= precision x mean (the reading that
// matches the published numbers best, docs/REFERENCE.md).
//
// Determinism: sample i is drawn from Rng(deriveSeed(seed, i)) — one stream per sample,
// never per thread — and the mean is computed from an exact histogram of the integer ML
// values, so mean, half-width and sample count are bit-identical for every thread count.
//
// ML of a permutation: every terminal sends and receives at most once, so each terminal
// channel carries at most 1 pair; ML = max(1, max load of the switch-to-switch channels).
// Only the switch-to-switch part of each path is touched per sample.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis/paths.h"
#include "traffic/demand.h"

namespace routelab {

enum class SampledPattern { Bisect, FullPermutation, Dissemination, RandomPermutation };

/// "bisect", "full-permutation", "dissemination", "random-permutation".
std::string sampledPatternName(SampledPattern pattern);

/// Sample `index` of a sampled metric: the pattern drawn from Rng(deriveSeed(seed, index))
/// into `out` (`scratch`: one entry per terminal). The one seed scheme of every sampler
/// (first-path and split models), so both see the same patterns for the same seed.
void drawSampledPattern(SampledPattern pattern, std::uint64_t seed, std::uint64_t index,
                        std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out);

/// Splitting the samples of one run over several processes (MPI ranks, docs/SWEEPS.md):
/// process `part` of `parts` draws only its share of each round's sample indices
/// (sampleShare) and `sum` adds a vector element-wise over every process (an all-reduce;
/// every process calls it with the same sizes in the same order). Every sum is exact (counts
/// below 2^53, or one non-zero term per entry), so every process ends with the result of one
/// process, bit for bit, under every load source (sampleLoads).
struct SampleSplit {
  std::uint32_t part = 0;
  std::uint32_t parts = 1;
  std::function<void(std::span<double>)> sum;
};

/// The indices of [from, to) that `part` of `parts` draws: a contiguous range.
std::pair<std::uint64_t, std::uint64_t> sampleShare(std::uint64_t from, std::uint64_t to, std::uint32_t part,
                                                    std::uint32_t parts);

struct SamplingOptions {
  std::uint64_t seed = 1;
  double precision = 0.01;                ///< stop when half-width <= precision * mean
  std::uint64_t initialSamples = 1000;    ///< Nienaber §IV
  std::uint64_t maxSamples = 1ULL << 24;  ///< give up doubling beyond this (converged = false)
  int threads = 0;                        ///< 0 = every core; does not change the result
  SampleSplit split;                      ///< over processes; does not change the result
};

struct SampledBandwidth {
  std::string pattern;
  double mean = 0;           ///< mean of 1/ML
  double ci99HalfWidth = 0;  ///< z_{0.995} * s / sqrt(samples), s the sample std. deviation
  std::uint64_t samples = 0;
  bool converged = false;                                   ///< the stopping rule was met within maxSamples
  double meanMaxLoad = 0;                                   ///< mean of ML itself
  std::map<std::uint32_t, std::uint64_t> maxLoadHistogram;  ///< ML -> number of samples
  SamplingOptions options;                                  ///< the effective configuration
  // Load model (analysis/split.h). First-path and single-path routings: integer ML, the
  // histogram above. Split models: fractional ML per sample (splitHistogram, rounded to
  // 1e-9); best-split: `mean` uses each sample's achievable upper bound on ML and
  // `bandwidthUpperBound` its certified lower bound, so the exact best-split mean lies in
  // [mean, bandwidthUpperBound].
  std::string loadModel = "first-path";
  double bandwidthUpperBound = 0;
  double maxRelativeGap = 0;        ///< max over samples of (upper - lower) / upper
  bool exact = true;                ///< every sample's ML is exact (gap 0)
  std::uint32_t maxIterations = 0;  ///< best-split: most solver iterations of a sample
  std::map<double, std::uint64_t> splitHistogram;
};

/// z such that P(|Z| <= z) = 0.99 for a standard normal Z.
inline constexpr double kZ99 = 2.5758293035489004;

/// Checks every sampler shares: AnalysisError when `pattern` does not fit `terminals`
/// (at least 2; an even number for bisect and dissemination, Nienaber §II).
void checkSampledPattern(std::size_t terminals, SampledPattern pattern);
/// SpecError unless precision > 0 and initialSamples >= 2.
void checkSamplingOptions(const SamplingOptions& options);
/// The doubling schedule every sampler follows: draw firstSampleTarget() samples, then after
/// each round (the summary in `result`) call continueSampling(): it sets result.converged and
/// returns false when the 99% half-width <= precision x mean, returns false when doubling
/// `target` would pass maxSamples, and otherwise doubles `target` and returns true.
std::uint64_t firstSampleTarget(const SamplingOptions& options);
bool continueSampling(SampledBandwidth& result, const SamplingOptions& options, std::uint64_t& target);
/// The summary of integer-ML samples from their histogram (`histogram[ml]` samples had max
/// load ml; index 0 unused): samples, mean of 1/ML, its 99% half-width, mean ML and
/// maxLoadHistogram. Summed in ascending ML order, so the floating-point result does not
/// depend on how the samples were split between threads. Other fields are left as they are.
void summariseMaxLoads(const std::vector<std::uint64_t>& histogram, SampledBandwidth& out);

/// The summary of fractional samples (`upper[i]`, `lower[i]`: sample i's achievable ML and
/// its certified lower bound): samples, mean of 1/upper, its 99% half-width, mean ML, the
/// bandwidth bound (mean of 1/lower) and the largest relative gap, summed in sample order so
/// the result does not depend on the thread or process count. Needs at least two samples.
void summariseSplitSamples(const std::vector<double>& upper, const std::vector<double>& lower,
                           SampledBandwidth& result);

/// One sample's maximum channel load under a load source: `upper` the ML of the traffic
/// split the source uses (achievable), `lower` a certified lower bound on the source's
/// optimum (== upper when exact). At least 1 (a permutation loads each terminal channel once).
struct SampleLoad {
  double upper = 1;
  double lower = 1;
  std::uint32_t iterations = 0;  ///< solver iterations (best split), else 0
};

/// A per-pair load source of the sampler: how the pairs of one sampled pattern load the
/// channels — stored first paths (sampleBandwidth), table walks (analysis/table_walks.h),
/// even split or best split (analysis/split.h). Shared by the threads, each of which
/// evaluates through its own Evaluator (its work arrays).
class LoadSource {
 public:
  class Evaluator {
   public:
    virtual ~Evaluator() = default;
    /// The load of one pattern (the pairs of a sample). May throw AnalysisError naming a
    /// pair the routing does not deliver.
    virtual SampleLoad maxLoad(std::span<const SourceDestination> pairs) = 0;
  };
  virtual ~LoadSource() = default;
  virtual std::size_t terminals() const = 0;
  /// True when every ML is an integer in [1, terminals()] with upper == lower: the samples
  /// are summarised by their exact histogram (summariseMaxLoads), else in sample order
  /// (summariseSplitSamples). The two summaries round differently: a source keeps its kind.
  virtual bool integral() const = 0;
  /// True when no pattern loads any channel twice: every sample has ML 1 and none is drawn.
  virtual bool uncontended() const { return false; }
  /// Consecutive samples a thread takes at a time (cheap evaluations: more).
  virtual int chunk() const { return 16; }
  virtual std::unique_ptr<Evaluator> evaluator() const = 0;
};

/// The sampler of every load source: Nienaber §IV's doubling rule over the patterns of
/// drawSampledPattern (sample i from deriveSeed(seed, i)), evaluated on options.threads
/// threads and, with options.split, over several processes; the result is bit-identical for
/// every thread and process count. Integral sources fill maxLoadHistogram and set
/// bandwidthUpperBound = mean; the others fill splitHistogram, the gap fields and
/// maxIterations. `loadModel` is left for the caller to name. Throws AnalysisError for
/// patterns impossible on this terminal count (odd N for bisect and dissemination, N < 2),
/// SpecError for precision <= 0 or initialSamples < 2, and the error of the failing sample
/// of smallest index (the same on every process).
SampledBandwidth sampleLoads(const LoadSource& source, SampledPattern pattern, const SamplingOptions& options);

/// The stored first paths as a load source (integral; the contended-core fast path).
std::unique_ptr<LoadSource> storedPathSource(const PairPaths& paths);

/// sampleLoads over the stored first paths.
SampledBandwidth sampleBandwidth(const PairPaths& paths, SampledPattern pattern, const SamplingOptions& options);

/// ML of sample `index` (the pattern drawn from deriveSeed(seed, index)), for tests.
std::uint32_t sampleMaxLoad(const PairPaths& paths, SampledPattern pattern, std::uint64_t seed, std::uint64_t index);

}  // namespace routelab
