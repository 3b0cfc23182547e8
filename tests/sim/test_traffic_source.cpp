// Where and when sources generate (sim/traffic_source.h, docs/SIMULATION.md "Traffic"), drawn
// many times and compared with the documented distributions: Bernoulli gaps geometric from 1
// with P(G = g) = (1 - rate)^(g-1) rate, Poisson gaps exponential of mean 1 / rate, uniform
// destinations among the other terminals, the hot spot's share F + (1 - F) / (N - 1), and a
// pattern's destinations only (uniformly among a source's several). Each frequency is held
// within five standard deviations of its probability (fixed seeds: the test is deterministic).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/random.h"
#include "fabric/fabric.h"
#include "sim/traffic_source.h"

namespace routelab {
namespace {

// |count / draws - p| within five deviations of a binomial proportion.
void expectShare(std::uint64_t count, std::uint64_t draws, double p, const std::string& what) {
  const double deviation = std::sqrt(p * (1 - p) / double(draws));
  EXPECT_NEAR(double(count) / double(draws), p, 5 * deviation + 1e-12) << what;
}

TEST(TrafficSource, BernoulliGapsAreGeometricFromOne) {
  for (const double rate : {0.05, 0.3, 0.5, 0.9}) {
    SCOPED_TRACE("rate " + std::to_string(rate));
    const sim::BernoulliGaps gaps(rate);
    Rng rng(11), again(11);
    constexpr std::uint64_t kDraws = 200000;
    std::map<std::uint64_t, std::uint64_t> histogram;
    double sum = 0;
    std::uint64_t now = 1000;
    for (std::uint64_t i = 0; i < kDraws; ++i) {
      const std::uint64_t next = gaps.next(now, rng);
      ASSERT_EQ(next, sim::nextBernoulli(now, rate, again)) << "BernoulliGaps and nextBernoulli differ at draw " << i;
      ASSERT_GT(next, now);
      ++histogram[next - now];
      sum += double(next - now);
      now = next;
    }
    for (std::uint64_t g = 1; g <= 3; ++g) {
      expectShare(histogram[g], kDraws, std::pow(1 - rate, double(g - 1)) * rate, "P(G = " + std::to_string(g) + ")");
    }
    // Mean 1 / rate, variance (1 - rate) / rate^2.
    EXPECT_NEAR(sum / kDraws, 1 / rate, 5 * std::sqrt((1 - rate) / (rate * rate) / kDraws));
  }
  // Rate 1: a message every cycle.
  Rng rng(3);
  EXPECT_EQ(sim::BernoulliGaps(1.0).next(41, rng), 42U);
  EXPECT_EQ(sim::nextBernoulli(41, 1.0, rng), 42U);
}

TEST(TrafficSource, PoissonGapsAreExponential) {
  for (const double rate : {0.01, 0.25, 2.0}) {
    SCOPED_TRACE("rate " + std::to_string(rate));
    Rng rng(5);
    constexpr std::uint64_t kDraws = 200000;
    double clock = 7.5, sumSquares = 0;
    std::uint64_t belowMean = 0;
    for (std::uint64_t i = 0; i < kDraws; ++i) {
      const double next = sim::nextPoisson(clock, rate, rng);
      ASSERT_GE(next, clock);
      const double gap = next - clock;
      sumSquares += gap * gap;
      belowMean += gap < 1 / rate;
      clock = next;
    }
    const double mean = (clock - 7.5) / kDraws;
    EXPECT_NEAR(mean, 1 / rate, 5 / rate / std::sqrt(double(kDraws)));
    EXPECT_NEAR(sumSquares / kDraws, 2 / (rate * rate), 5 * std::sqrt(20.0) / (rate * rate) / std::sqrt(double(kDraws)))
        << "E[G^2] = 2 / rate^2 (variance 20 / rate^4)";
    expectShare(belowMean, kDraws, 1 - std::exp(-1.0), "P(G < mean) = 1 - 1/e");
  }
}

TEST(TrafficSource, UniformDestinationsAreEveryOtherTerminalAlike) {
  const Network net = loadFabric("kary-ntree:k=2,n=3").network;  // 8 terminals
  const sim::DestinationSource uniform("uniform", net, 1);
  EXPECT_EQ(uniform.effectiveSpec(), "uniform");
  constexpr std::uint64_t kDraws = 70000;
  for (const std::uint32_t source : {0U, 3U, 7U}) {
    EXPECT_TRUE(uniform.sends(source));
    Rng rng(source + 1);
    std::vector<std::uint64_t> count(8, 0);
    for (std::uint64_t i = 0; i < kDraws; ++i) ++count.at(uniform.draw(source, rng));
    EXPECT_EQ(count[source], 0U) << "a source never sends to itself";
    for (std::uint32_t d = 0; d < 8; ++d) {
      if (d != source) expectShare(count[d], kDraws, 1.0 / 7, std::to_string(source) + " -> " + std::to_string(d));
    }
  }
}

TEST(TrafficSource, HotSpotTakesItsFractionAndTheRestIsUniform) {
  const Network net = loadFabric("kary-ntree:k=2,n=3").network;
  const sim::DestinationSource hot("uniform-hot-spot:fraction=0.2,target=5", net, 1);
  EXPECT_EQ(hot.effectiveSpec(), "uniform-hot-spot:fraction=0.2,target=5");
  constexpr std::uint64_t kDraws = 70000;
  for (const std::uint32_t source : {0U, 5U}) {
    Rng rng(17 + source);
    std::vector<std::uint64_t> count(8, 0);
    for (std::uint64_t i = 0; i < kDraws; ++i) ++count.at(hot.draw(source, rng));
    EXPECT_EQ(count[source], 0U);
    for (std::uint32_t d = 0; d < 8; ++d) {
      if (d == source) continue;
      // The hot spot itself sends uniformly; every other source adds the fraction to it.
      const double p = source == 5 ? 1.0 / 7 : (d == 5 ? 0.2 + 0.8 / 7 : 0.8 / 7);
      expectShare(count[d], kDraws, p, std::to_string(source) + " -> " + std::to_string(d));
    }
  }
  // Without a target, one drawn from the seed: the same for the same seed.
  const sim::DestinationSource a("uniform-hot-spot:fraction=0.05", net, 9), b("uniform-hot-spot:fraction=0.05", net, 9);
  EXPECT_EQ(a.effectiveSpec(), b.effectiveSpec());
  EXPECT_NE(a.effectiveSpec().find("target="), std::string::npos);
  // A fraction outside [0, 1] or a target outside the terminals is refused.
  EXPECT_THROW(sim::DestinationSource("uniform-hot-spot:fraction=1.5", net, 1), SpecError);
  EXPECT_THROW(sim::DestinationSource("uniform-hot-spot:fraction=0.5,target=8", net, 1), SpecError);
  EXPECT_NO_THROW(sim::DestinationSource("uniform-hot-spot:fraction=1,target=7", net, 1));
  // Each end of each range: fraction 0 and 1, target 0 and N - 1 are accepted as given; one
  // step past is refused. At fraction 1 every other source sends only to the target.
  EXPECT_EQ(sim::DestinationSource("uniform-hot-spot:fraction=0,target=0", net, 1).effectiveSpec(),
            "uniform-hot-spot:fraction=0,target=0");
  EXPECT_THROW(sim::DestinationSource("uniform-hot-spot:fraction=-0.01", net, 1), SpecError);
  EXPECT_THROW(sim::DestinationSource("uniform-hot-spot:fraction=1.01", net, 1), SpecError);
  EXPECT_THROW(sim::DestinationSource("uniform-hot-spot:fraction=0.5,target=-1", net, 1), SpecError);
  const sim::DestinationSource all("uniform-hot-spot:fraction=1,target=0", net, 1);
  EXPECT_EQ(all.effectiveSpec(), "uniform-hot-spot:fraction=1,target=0");
  Rng rng(3);
  for (std::uint32_t source = 1; source < 8; ++source) {
    for (int i = 0; i < 100; ++i) EXPECT_EQ(all.draw(source, rng), 0U) << source;
  }
}

TEST(TrafficSource, PatternsSendOnlyToTheirDestinations) {
  const Network net = loadFabric("kary-ntree:k=2,n=3").network;
  // Bit reversal on 8 terminals: 0, 2, 5 and 7 are their own reversal, so they stay silent.
  const sim::DestinationSource reversal("bit-reversal", net, 1);
  Rng rng(2);
  for (std::uint32_t s = 0; s < 8; ++s) {
    const std::uint32_t r = (s & 1U) << 2 | (s & 2U) | (s >> 2 & 1U);
    EXPECT_EQ(reversal.sends(s), r != s) << s;
    for (int i = 0; i < 5; ++i) EXPECT_EQ(reversal.draw(s, rng), r != s ? r : sim::kNoDestination) << s;
  }
  // All-to-all: every other terminal, uniformly.
  const sim::DestinationSource all("all-to-all", net, 1);
  constexpr std::uint64_t kDraws = 70000;
  std::vector<std::uint64_t> count(8, 0);
  for (std::uint64_t i = 0; i < kDraws; ++i) ++count.at(all.draw(6, rng));
  EXPECT_EQ(count[6], 0U);
  for (std::uint32_t d = 0; d < 8; ++d) {
    if (d != 6) expectShare(count[d], kDraws, 1.0 / 7, "6 -> " + std::to_string(d));
  }
}

}  // namespace
}  // namespace routelab
