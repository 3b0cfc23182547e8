#include "analysis/sampling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
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

/// The compact core records of the pair paths (paths.h) without the channels no sample can
/// load twice. A channel whose pairs all come from one source, or all go to one destination,
/// carries at most one pair of any permutation (Nienaber Def. 1: every node sends at most
/// once and receives at most once), and ML >= 1 anyway, so dropping it never changes a
/// sample's ML. On D-mod-k fat-trees this drops every descending channel (one destination
/// per down channel on T(n+m, r) with n <= m). Layout: record(s, d) starts at
/// sourceRecord[s] + destinationRecord[d], `stride` entries, padded with kNoCompactChannel.
struct ContendedCore {
  std::size_t stride = 0;
  std::size_t lowest = 0, highest = 0;  ///< the kept channel ids lie in [lowest, highest)
  std::vector<std::uint16_t> records;
  std::vector<std::uint32_t> sourceRecord, destinationRecord;  // entry offsets (< 2^32: checked)
  const std::uint16_t* record(std::uint32_t s, std::uint32_t d) const {
    return records.data() + (std::size_t{sourceRecord[s]} + destinationRecord[d]);
  }
};

/// Calls visit(s, d) for one source s of every class of sources sharing a compact record row
/// (equal compactSourceOffset) and every destination d, skipping only s == d when s is alone
/// in its class; `multiple` tells whether the class has several sources. Every record a
/// pair (s, d), s != d, reads is visited.
template <class Visit>
void forEachRecordClass(const PairPaths& paths, Visit&& visit) {
  const auto n = static_cast<std::uint32_t>(paths.terminals());
  std::vector<std::pair<std::size_t, std::uint32_t>> offsets(n);
  for (std::uint32_t s = 0; s < n; ++s) offsets[s] = {paths.compactSourceOffset(s), s};
  std::sort(offsets.begin(), offsets.end());
  for (std::size_t first = 0; first < offsets.size();) {
    std::size_t last = first;
    while (last < offsets.size() && offsets[last].first == offsets[first].first) ++last;
    const std::uint32_t source = offsets[first].second;
    const bool multiple = last - first > 1;
    for (std::uint32_t d = 0; d < n; ++d) {
      if (multiple || d != source) visit(source, d, multiple);
    }
    first = last;
  }
}

ContendedCore contendedCore(const PairPaths& paths) {
  constexpr std::uint32_t kNone = UINT32_MAX;
  const std::size_t channels = paths.channelCount();
  const std::size_t stride = paths.coreStride();
  // Per channel: its only source class (by representative) and destination so far, or
  // kNone - 1 once there are several. A class of several sources counts as several
  // (conservative: a channel is dropped only when it provably has one source or one
  // destination).
  std::vector<std::uint32_t> sourceOf(channels, kNone), destinationOf(channels, kNone);
  auto note = [](std::uint32_t& slot, std::uint32_t value) {
    if (slot == kNone)
      slot = value;
    else if (slot != value)
      slot = kNone - 1;
  };
  forEachRecordClass(paths, [&](std::uint32_t s, std::uint32_t d, bool multiple) {
    const std::uint16_t* record = paths.compactCore(s, d);
    for (std::size_t i = 0; i < stride && record[i] != PairPaths::kNoCompactChannel; ++i) {
      note(sourceOf[record[i]], multiple ? kNone - 1 : s);
      note(destinationOf[record[i]], d);
    }
  });
  auto contended = [&](std::uint16_t c) { return sourceOf[c] == kNone - 1 && destinationOf[c] == kNone - 1; };
  ContendedCore out;
  out.lowest = channels;
  for (std::size_t c = 0; c < channels; ++c) {
    if (!contended(static_cast<std::uint16_t>(c))) continue;
    out.lowest = std::min(out.lowest, c);
    out.highest = c + 1;
  }
  forEachRecordClass(paths, [&](std::uint32_t s, std::uint32_t d, bool) {
    const std::uint16_t* record = paths.compactCore(s, d);
    out.stride = std::max<std::size_t>(
        out.stride, static_cast<std::size_t>(std::count_if(record, record + stride, [&](std::uint16_t c) {
          return c != PairPaths::kNoCompactChannel && contended(c);
        })));
  });
  if (out.stride == 0) return out;
  out.records.assign(paths.compactEntries() / stride * out.stride, PairPaths::kNoCompactChannel);
  if (out.records.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw AnalysisError(
        fmt::format("the contended core records of {} terminals exceed 2^32 entries", paths.terminals()));
  }
  out.sourceRecord.resize(paths.terminals());
  out.destinationRecord.resize(paths.terminals());
  for (std::uint32_t t = 0; t < paths.terminals(); ++t) {
    out.sourceRecord[t] = static_cast<std::uint32_t>(paths.compactSourceOffset(t) / stride * out.stride);
    out.destinationRecord[t] = static_cast<std::uint32_t>(paths.compactDestinationOffset(t) / stride * out.stride);
  }
  forEachRecordClass(paths, [&](std::uint32_t s, std::uint32_t d, bool) {
    const std::uint16_t* record = paths.compactCore(s, d);
    auto* kept = const_cast<std::uint16_t*>(out.record(s, d));
    for (std::size_t i = 0; i < stride && record[i] != PairPaths::kNoCompactChannel; ++i) {
      if (contended(record[i])) *kept++ = record[i];
    }
  });
  return out;
}

/// Per-thread state: the pattern buffer and a load counter per channel (all zero between
/// samples).
class SampleWorker {
 public:
  /// `contended`: contendedCore(paths) when paths.hasCompactCore(), else unused.
  SampleWorker(const PairPaths& paths, const ContendedCore& contended, SampledPattern pattern)
      : paths_(paths),
        contended_(contended),
        pattern_(pattern),
        scratch_(paths.terminals()),
        load_(paths.hasCompactCore() ? std::size_t{PairPaths::kNoCompactChannel} + 1 : paths.channelCount(), 0) {}

  std::uint32_t maxLoad(std::uint64_t seed, std::uint64_t index) {
    // A permutation loads every terminal channel at most once (see sampling.h); an empty
    // pattern (a random permutation that is the identity) counts as ML = 1, no contention.
    if (paths_.hasCompactCore()) {
      if (contended_.stride == 0) return 1;  // no channel can carry two pairs of a sample
      drawSampledPattern(pattern_, seed, index, scratch_, pairs_);
      switch (contended_.stride) {
        case 1: return compactMaxLoad<1>();
        case 2: return compactMaxLoad<2>();
        case 3: return compactMaxLoad<3>();
        case 4: return compactMaxLoad<4>();
        default: return compactMaxLoad<0>();
      }
    }
    drawSampledPattern(pattern_, seed, index, scratch_, pairs_);
    std::int32_t ml = 1;
    for (const auto& [s, d] : pairs_) {
      for (const std::uint32_t c : paths_.core(s, d)) ml = std::max(ml, ++load_[c]);
    }
    for (const auto& [s, d] : pairs_) {
      for (const std::uint32_t c : paths_.core(s, d)) load_[c] = 0;
    }
    return static_cast<std::uint32_t>(ml);
  }

 private:
  /// ML over the contended records (stride kStride, 0 = contended_.stride). Records are
  /// random entries of a table of up to megabytes: each is prefetched kAhead pairs before it
  /// is counted, so the misses overlap. Padding entries (kNoCompactChannel) count into their
  /// own slot, which starts far below zero so it never reaches the maximum: every record is
  /// read at full stride, without a branch per entry.
  template <std::size_t kStride>
  std::uint32_t compactMaxLoad() {
    constexpr std::size_t kAhead = 16;
    const std::size_t stride = kStride != 0 ? kStride : contended_.stride;
    const SourceDestination* pairs = pairs_.data();
    const std::size_t count = pairs_.size();
    std::int32_t* load = load_.data();
    load[PairPaths::kNoCompactChannel] = std::numeric_limits<std::int32_t>::min();
    for (std::size_t i = 0; i < std::min(count, kAhead); ++i) {
      __builtin_prefetch(contended_.record(pairs[i].source, pairs[i].destination));
    }
    std::int32_t ml = 1;
    for (std::size_t i = 0; i < count; ++i) {
      if (i + kAhead < count) {
        __builtin_prefetch(contended_.record(pairs[i + kAhead].source, pairs[i + kAhead].destination));
      }
      const std::uint16_t* record = contended_.record(pairs[i].source, pairs[i].destination);
      for (std::size_t k = 0; k < stride; ++k) ml = std::max(ml, ++load[record[k]]);
    }
    // Clearing the (small) range of counters in use is cheaper than revisiting the records.
    std::fill(load + contended_.lowest, load + contended_.highest, 0);
    return static_cast<std::uint32_t>(ml);
  }

  const PairPaths& paths_;
  const ContendedCore& contended_;
  SampledPattern pattern_;
  std::vector<std::uint32_t> scratch_;
  std::vector<SourceDestination> pairs_;
  /// Per channel id (and, with compact records, the padding slot kNoCompactChannel). Signed:
  /// a load is at most the terminal count (< 2^16).
  std::vector<std::int32_t> load_;
};

}  // namespace

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

std::uint32_t sampleMaxLoad(const PairPaths& paths, SampledPattern pattern, std::uint64_t seed, std::uint64_t index) {
  checkSampledPattern(paths.terminals(), pattern);
  const ContendedCore contended = paths.hasCompactCore() ? contendedCore(paths) : ContendedCore{};
  SampleWorker worker(paths, contended, pattern);
  return worker.maxLoad(seed, index);
}

SampledBandwidth sampleBandwidth(const PairPaths& paths, SampledPattern pattern, const SamplingOptions& options) {
  checkSampledPattern(paths.terminals(), pattern);
  checkSamplingOptions(options);
  SampledBandwidth result;
  result.pattern = sampledPatternName(pattern);
  result.options = options;
  [[maybe_unused]] const int workers = workerThreads(options.threads);
  const ContendedCore contended = paths.hasCompactCore() ? contendedCore(paths) : ContendedCore{};
  // ML <= N for any permutation (at most N pairs share a channel).
  std::vector<std::uint64_t> histogram(paths.terminals() + 2, 0);
  std::uint64_t drawn = 0;
  std::uint64_t target = firstSampleTarget(options);
  const bool split = options.split.parts > 1 && options.split.sum;
  std::vector<std::uint64_t> round(histogram.size(), 0);
  while (true) {
    // Plain variables, not a structured binding: clang (the TSan build) does not let the
    // OpenMP region capture structured bindings.
    const std::pair<std::uint64_t, std::uint64_t> share =
        split ? sampleShare(drawn, target, options.split.part, options.split.parts)
              : std::pair<std::uint64_t, std::uint64_t>{drawn, target};
    const std::uint64_t from = share.first, to = share.second;
    std::fill(round.begin(), round.end(), 0);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers)
#endif
    {
      SampleWorker worker(paths, contended, pattern);
      std::vector<std::uint64_t> local(round.size(), 0);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(static, 256)
#endif
      for (std::uint64_t index = from; index < to; ++index) ++local[worker.maxLoad(options.seed, index)];
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_sampling_merge)
#endif
      for (std::size_t i = 0; i < local.size(); ++i) round[i] += local[i];
    }
    if (split) {
      // Counts are far below 2^53: the sums of doubles are exact.
      std::vector<double> counts(round.begin(), round.end());
      options.split.sum(counts);
      for (std::size_t i = 0; i < round.size(); ++i) round[i] = static_cast<std::uint64_t>(counts[i]);
    }
    for (std::size_t i = 0; i < round.size(); ++i) histogram[i] += round[i];
    drawn = target;
    summariseMaxLoads(histogram, result);
    if (!continueSampling(result, options, target)) break;
  }
  return result;
}

}  // namespace routelab
