// ABB / AFPB / ADB (Nienaber §II, §IV): exact means on a tiny fabric, the stopping rule,
// identical results for every thread count, small Table II rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>

#include "analysis/sampling.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "hand_routing.h"
#include "traffic/pattern.h"

using namespace routelab;

namespace {

std::uint32_t maxLoad(const PairPaths& paths, const std::vector<SourceDestination>& pairs) {
  std::vector<std::uint32_t> load(paths.channelCount(), 0);
  std::uint32_t ml = 1;
  for (const auto& [s, d] : pairs) {
    for (const std::uint32_t c : paths.path(s, d)) ml = std::max(ml, ++load[c]);
  }
  return ml;
}

/// Exact ABB, AFPB, ADB by enumerating all N! permutations: each bisect pattern, each
/// derangement and each perfect matching arises from equally many permutations.
std::array<double, 3> exactBandwidths(const PairPaths& paths) {
  const std::size_t n = paths.terminals();
  std::vector<std::uint32_t> pi(n);
  std::iota(pi.begin(), pi.end(), 0U);
  double bisect = 0, full = 0, dissemination = 0;
  std::size_t permutations = 0, derangements = 0;
  std::vector<SourceDestination> pairs;
  do {
    ++permutations;
    pairs.clear();
    for (std::size_t i = 0; i < n / 2; ++i) pairs.push_back({pi[i], pi[i + n / 2]});
    bisect += 1.0 / maxLoad(paths, pairs);
    pairs.clear();
    for (std::size_t i = 0; i < n; i += 2) {
      pairs.push_back({pi[i], pi[i + 1]});
      pairs.push_back({pi[i + 1], pi[i]});
    }
    dissemination += 1.0 / maxLoad(paths, pairs);
    bool deranged = true;
    pairs.clear();
    for (std::uint32_t s = 0; s < n; ++s) {
      deranged = deranged && pi[s] != s;
      pairs.push_back({s, pi[s]});
    }
    if (deranged) {
      ++derangements;
      full += 1.0 / maxLoad(paths, pairs);
    }
  } while (std::next_permutation(pi.begin(), pi.end()));
  return {bisect / static_cast<double>(permutations), full / static_cast<double>(derangements),
          dissemination / static_cast<double>(permutations)};
}

}  // namespace

TEST(Sampling, MeansAgreeWithExhaustiveEnumeration) {
  const Network net = makeGft2(2, 2, 4);  // N = 8: 40,320 permutations
  const PairPaths paths = PairPaths::build(net, test::handDmodk(net, 2, 2));
  const auto exact = exactBandwidths(paths);
  const SampledPattern kinds[] = {SampledPattern::Bisect, SampledPattern::FullPermutation,
                                  SampledPattern::Dissemination};
  for (std::size_t i = 0; i < 3; ++i) {
    SamplingOptions options;
    options.seed = 5;
    options.precision = 0.003;
    const SampledBandwidth sampled = sampleBandwidth(paths, kinds[i], options);
    EXPECT_TRUE(sampled.converged);
    EXPECT_GT(sampled.samples, 1000u);
    // Within 2 half-widths of the truth (a 99% interval: failing this is a ~1e-6 event).
    EXPECT_NEAR(sampled.mean, exact[i], 2 * sampled.ci99HalfWidth) << sampled.pattern;
  }
}

// The sampler's own limits (analysis/sampling.h): at least 2 initial samples (a confidence
// interval needs two), a precision above 0; each at the limit and one past it, through
// checkSamplingOptions and through the sampler itself.
TEST(Sampling, TwoInitialSamplesAndAPositivePrecisionAreTheLeastAccepted) {
  const Network net = makeGft2(2, 2, 4);
  const PairPaths paths = PairPaths::build(net, test::handDmodk(net, 2, 2));
  auto message = [&](const SamplingOptions& options) {
    try {
      checkSamplingOptions(options);
    } catch (const SpecError& e) {
      EXPECT_THROW(sampleBandwidth(paths, SampledPattern::Bisect, options), SpecError);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  SamplingOptions options;
  options.initialSamples = 2;
  options.precision = 1e-300;
  options.maxSamples = 4;
  EXPECT_EQ(message(options), "accepted");
  const SampledBandwidth two = sampleBandwidth(paths, SampledPattern::Bisect, options);
  EXPECT_EQ(two.samples, 4U);  // 2, doubled once to the cap
  options.initialSamples = 1;
  EXPECT_EQ(message(options), "at least 2 initial samples are needed for a confidence interval");
  options.initialSamples = 2;
  options.precision = 0;
  EXPECT_EQ(message(options), "precision must be > 0 (a fraction of the mean, e.g. 0.01), got 0");
  options.precision = -0.5;
  EXPECT_EQ(message(options), "precision must be > 0 (a fraction of the mean, e.g. 0.01), got -0.5");
}

TEST(Sampling, StoppingRuleDoublesFromOneThousand) {
  const Network net = makeGft2(6, 4, 8);
  const PairPaths paths = PairPaths::build(net, test::handDmodk(net, 6, 4));
  SamplingOptions options;
  options.precision = 0.004;
  const SampledBandwidth tight = sampleBandwidth(paths, SampledPattern::Bisect, options);
  ASSERT_TRUE(tight.converged);
  EXPECT_LE(tight.ci99HalfWidth, options.precision * tight.mean);
  // samples = 1000 * 2^k, k >= 1, and the previous doubling step had not converged.
  std::uint64_t steps = tight.samples / 1000;
  EXPECT_EQ(tight.samples % 1000, 0u);
  EXPECT_TRUE(std::has_single_bit(steps));
  ASSERT_GT(steps, 1u);
  options.maxSamples = tight.samples / 2;
  const SampledBandwidth capped = sampleBandwidth(paths, SampledPattern::Bisect, options);
  EXPECT_FALSE(capped.converged);
  EXPECT_EQ(capped.samples, tight.samples / 2);
  EXPECT_GT(capped.ci99HalfWidth, options.precision * capped.mean);
  // Samples are a prefix of one sequence: the histogram of the first 1000 is recomputed.
  options.precision = 10;  // stop at 1000
  const SampledBandwidth first = sampleBandwidth(paths, SampledPattern::Bisect, options);
  EXPECT_EQ(first.samples, 1000u);
  std::map<std::uint32_t, std::uint64_t> recount;
  for (std::uint64_t i = 0; i < 1000; ++i) ++recount[sampleMaxLoad(paths, SampledPattern::Bisect, options.seed, i)];
  EXPECT_EQ(recount, first.maxLoadHistogram);
}

TEST(Sampling, ConstantLoadStopsAtOneThousandWithZeroWidth) {
  const Network net = makeXgft({{8}, {1}});  // a crossbar: ML = 1 for every permutation
  const RoutingResult routing = test::handRouting(
      net, 1, [](std::uint32_t) { return 0U; },
      [](const Network&, NodeId, std::uint32_t d, std::uint32_t) { return static_cast<PortNumber>(1 + d); }, "star");
  const PairPaths paths = PairPaths::build(net, routing);
  const SampledBandwidth result = sampleBandwidth(paths, SampledPattern::FullPermutation, {});
  EXPECT_EQ(result.samples, 1000u);
  EXPECT_EQ(result.mean, 1.0);
  EXPECT_EQ(result.ci99HalfWidth, 0.0);
  EXPECT_TRUE(result.converged);
}

// The fractional summary (best and even split) against its definition, recomputed here in
// long double: the mean of 1/upper, the 99% half-width z * s / sqrt(n) with s the sample
// standard deviation (two passes: the deviations from the mean, squared), the mean ML, the
// mean of 1/lower and the largest (upper - lower) / upper. Samples 1e-9 apart around 4/3 (a
// best split's loads converge to such values): a one-pass sum of squares minus n * mean^2
// loses every digit of s there.
TEST(Sampling, FractionalSamplesAreSummarisedByTheirDefinition) {
  std::vector<double> upper, lower;
  for (int i = 0; i < 400; ++i) {
    upper.push_back(4.0 / 3 + 1e-9 * ((i * 37) % 11 - 5));
    lower.push_back(upper.back() * (1 - 1e-3 * (i % 7)));
  }
  SampledBandwidth result;
  summariseSplitSamples(upper, lower, result);
  const auto n = static_cast<long double>(upper.size());
  long double sum = 0, sumLoad = 0, sumBound = 0, gap = 0;
  for (std::size_t i = 0; i < upper.size(); ++i) {
    sum += 1.0L / upper[i];
    sumLoad += upper[i];
    sumBound += 1.0L / lower[i];
    gap = std::max(gap, (static_cast<long double>(upper[i]) - lower[i]) / upper[i]);
  }
  const long double mean = sum / n;
  long double squares = 0;
  for (const double u : upper) squares += (1.0L / u - mean) * (1.0L / u - mean);
  const long double half = 2.5758293035489004L * std::sqrt(squares / (n - 1) / n);
  ASSERT_GT(half, 1e-12L);
  EXPECT_EQ(result.samples, upper.size());
  // (The tool sums in double: 1e-12 for the sums of 400 samples.)
  EXPECT_NEAR(result.mean, static_cast<double>(mean), 1e-12);
  EXPECT_NEAR(result.ci99HalfWidth, static_cast<double>(half), 1e-4 * static_cast<double>(half));
  EXPECT_NEAR(result.meanMaxLoad, static_cast<double>(sumLoad / n), 1e-12);
  EXPECT_NEAR(result.bandwidthUpperBound, static_cast<double>(sumBound / n), 1e-12);
  EXPECT_NEAR(result.maxRelativeGap, static_cast<double>(gap), 1e-12);
  EXPECT_FALSE(result.exact);
}

TEST(Sampling, IdenticalForEveryThreadCount) {
  const Network net = makeGft2(8, 6, 10);
  const PairPaths paths = PairPaths::build(net, test::handOpt(net, 8, 6));
  for (SampledPattern kind : {SampledPattern::Bisect, SampledPattern::FullPermutation, SampledPattern::Dissemination}) {
    SamplingOptions options;
    options.seed = 99;
    options.precision = 0.005;
    options.threads = 1;
    const SampledBandwidth one = sampleBandwidth(paths, kind, options);
    for (int threads : {2, 3, 5}) {
      options.threads = threads;
      const SampledBandwidth many = sampleBandwidth(paths, kind, options);
      EXPECT_EQ(many.mean, one.mean);  // bit-identical, not just close
      EXPECT_EQ(many.ci99HalfWidth, one.ci99HalfWidth);
      EXPECT_EQ(many.samples, one.samples);
      EXPECT_EQ(many.maxLoadHistogram, one.maxLoadHistogram);
    }
  }
}

TEST(Sampling, RejectsImpossibleRequests) {
  const Network odd = makeGft2(3, 2, 3);
  const PairPaths paths = PairPaths::build(odd, test::handDmodk(odd, 3, 2));
  EXPECT_THROW(sampleBandwidth(paths, SampledPattern::Bisect, {}), AnalysisError);
  EXPECT_THROW(sampleBandwidth(paths, SampledPattern::Dissemination, {}), AnalysisError);
  EXPECT_NO_THROW(sampleBandwidth(paths, SampledPattern::FullPermutation, {}));
  SamplingOptions bad;
  bad.precision = 0;
  EXPECT_THROW(sampleBandwidth(paths, SampledPattern::FullPermutation, bad), SpecError);
}

TEST(Sampling, NienaberTableTwoSmallRowWithinSamplingError) {
  // T(9+9, 18), the first published row of Table II: OPT 0.380 / 0.333 / 0.334 and D-mod-k
  // 0.362 / 0.266 / 0.264. The paper rounds to 3 digits and samples to 1% precision; we
  // accept |ours - paper| <= our 99% half-width + the paper's (<= 1% of the mean) + rounding.
  const Network net = makeGft2(9, 9, 18);
  struct Expect {
    RoutingResult routing;
    double abb, afpb, adb;
  };
  std::vector<Expect> rows = {{test::handOpt(net, 9, 9), 0.380, 0.333, 0.334},
                              {test::handDmodk(net, 9, 9), 0.362, 0.266, 0.264}};
  for (const Expect& row : rows) {
    const PairPaths paths = PairPaths::build(net, row.routing);
    SamplingOptions options;
    options.seed = 2011;
    const double published[] = {row.abb, row.afpb, row.adb};
    const SampledPattern kinds[] = {SampledPattern::Bisect, SampledPattern::FullPermutation,
                                    SampledPattern::Dissemination};
    for (std::size_t i = 0; i < 3; ++i) {
      const SampledBandwidth result = sampleBandwidth(paths, kinds[i], options);
      EXPECT_NEAR(result.mean, published[i], result.ci99HalfWidth + 0.01 * published[i] + 0.0005)
          << row.routing.engine << " " << result.pattern;
    }
  }
}

TEST(PairPathsCompact, RecordsEqualTheCorePathsInBothLayouts) {
  const Network net = makeGft2(6, 4, 8);
  RoutingResult bySwitch = test::handOpt(net, 6, 4);
  RoutingResult perPair = bySwitch;
  perPair.layerOf.assign(net.terminalCount() * perPair.addresses.count(), 0);  // forces per-pair records
  for (const RoutingResult* routing : {&bySwitch, &perPair}) {
    const PairPaths paths = PairPaths::build(net, *routing);
    ASSERT_TRUE(paths.hasCompactCore());
    EXPECT_EQ(paths.compactBySwitch(), routing == &bySwitch);
    for (std::uint32_t s = 0; s < net.terminalCount(); ++s) {
      for (std::uint32_t d = 0; d < net.terminalCount(); ++d) {
        if (s == d) continue;
        const auto core = paths.core(s, d);
        const std::uint16_t* record = paths.compactCore(s, d);
        for (std::size_t i = 0; i < paths.coreStride(); ++i) {
          EXPECT_EQ(record[i], i < core.size() ? core[i] : PairPaths::kNoCompactChannel) << s << "->" << d;
        }
      }
    }
  }
}
