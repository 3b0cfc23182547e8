// The stored first paths (analysis/paths.h) as a load source of the sampler (sampling.h).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "analysis/sampling.h"
#include "core/errors.h"

namespace routelab {

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

/// Per-thread state: a load counter per channel (all zero between samples).
class StoredPathEvaluator final : public LoadSource::Evaluator {
 public:
  /// `contended`: contendedCore(paths) when paths.hasCompactCore(), else unused.
  StoredPathEvaluator(const PairPaths& paths, const ContendedCore& contended)
      : paths_(paths),
        contended_(contended),
        load_(paths.hasCompactCore() ? std::size_t{PairPaths::kNoCompactChannel} + 1 : paths.channelCount(), 0) {}

  SampleLoad maxLoad(std::span<const SourceDestination> pairs) override {
    const auto ml = static_cast<double>(integerMaxLoad(pairs));
    return {ml, ml, 0};
  }

  /// ML of `pairs`: a permutation loads every terminal channel at most once (sampling.h);
  /// an empty pattern (a random permutation that is the identity) counts as ML = 1.
  std::uint32_t integerMaxLoad(std::span<const SourceDestination> pairs) {
    if (paths_.hasCompactCore()) {
      if (contended_.stride == 0) return 1;  // no channel can carry two pairs of a sample
      switch (contended_.stride) {
        case 1: return compactMaxLoad<1>(pairs);
        case 2: return compactMaxLoad<2>(pairs);
        case 3: return compactMaxLoad<3>(pairs);
        case 4: return compactMaxLoad<4>(pairs);
        default: return compactMaxLoad<0>(pairs);
      }
    }
    std::int32_t ml = 1;
    for (const auto& [s, d] : pairs) {
      for (const std::uint32_t c : paths_.core(s, d)) ml = std::max(ml, ++load_[c]);
    }
    for (const auto& [s, d] : pairs) {
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
  std::uint32_t compactMaxLoad(std::span<const SourceDestination> pattern) {
    constexpr std::size_t kAhead = 16;
    const std::size_t stride = kStride != 0 ? kStride : contended_.stride;
    const SourceDestination* pairs = pattern.data();
    const std::size_t count = pattern.size();
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
  /// Per channel id (and, with compact records, the padding slot kNoCompactChannel). Signed:
  /// a load is at most the terminal count (< 2^16).
  std::vector<std::int32_t> load_;
};

class StoredPathSource final : public LoadSource {
 public:
  explicit StoredPathSource(const PairPaths& paths)
      : paths_(paths), contended_(paths.hasCompactCore() ? contendedCore(paths) : ContendedCore{}) {}
  std::size_t terminals() const override { return paths_.terminals(); }
  bool integral() const override { return true; }
  bool uncontended() const override { return paths_.hasCompactCore() && contended_.stride == 0; }
  int chunk() const override { return 256; }
  std::unique_ptr<Evaluator> evaluator() const override {
    return std::make_unique<StoredPathEvaluator>(paths_, contended_);
  }

 private:
  const PairPaths& paths_;
  ContendedCore contended_;
};

}  // namespace

std::unique_ptr<LoadSource> storedPathSource(const PairPaths& paths) {
  return std::make_unique<StoredPathSource>(paths);
}

SampledBandwidth sampleBandwidth(const PairPaths& paths, SampledPattern pattern, const SamplingOptions& options) {
  checkSampledPattern(paths.terminals(), pattern);  // before the contended core is built
  checkSamplingOptions(options);
  return sampleLoads(StoredPathSource(paths), pattern, options);
}

std::uint32_t sampleMaxLoad(const PairPaths& paths, SampledPattern pattern, std::uint64_t seed, std::uint64_t index) {
  checkSampledPattern(paths.terminals(), pattern);
  const StoredPathSource source(paths);
  std::vector<std::uint32_t> scratch(paths.terminals());
  std::vector<SourceDestination> pairs;
  drawSampledPattern(pattern, seed, index, scratch, pairs);
  return static_cast<std::uint32_t>(source.evaluator()->maxLoad(pairs).upper);
}

}  // namespace routelab
