#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <vector>

#include "core/random.h"

using namespace routelab;

TEST(Rng, SameSeedSameStreamDifferentSeedDifferentStream) {
  Rng a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a();
    EXPECT_EQ(x, b());
    differs |= x != c();
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, GoldenValuesAreStableAcrossPlatforms) {
  // xoshiro256** seeded through splitmix64 from 1: pinned so a change of generator (which
  // would silently change every published result) fails here.
  Rng rng(1);
  EXPECT_EQ(rng(), 0xb3f2af6d0fc710c5ULL);
  EXPECT_EQ(rng(), 0x853b559647364ceaULL);
  EXPECT_EQ(Rng(2).below(1000), 102u);
  std::uint64_t s = 1;
  EXPECT_EQ(splitmix64(s), 0x910a2dec89025cc1ULL);  // reference value of splitmix64(1)
}

TEST(Rng, BelowIsUniformAndInRange) {
  Rng rng(7);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const auto v = rng.below(6);
    ASSERT_LT(v, 6u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);  // > 4 sigma
}

TEST(Rng, ShuffleIsAPermutationAndSeedDependent) {
  std::vector<int> a(50), b(50);
  std::iota(a.begin(), a.end(), 0);
  b = a;
  Rng r1(3), r2(4);
  r1.shuffle(std::span<int>(a));
  r2.shuffle(std::span<int>(b));
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(a[static_cast<std::size_t>(i)], i);
}

TEST(Rng, DerivedSeedsAreDistinct) {
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t i = 0; i < 1000; ++i) seeds.push_back(deriveSeed(5, i));
  std::sort(seeds.begin(), seeds.end());
  EXPECT_EQ(std::unique(seeds.begin(), seeds.end()), seeds.end());
  EXPECT_NE(deriveSeed(5, 0), deriveSeed(6, 0));
}

TEST(Rng, UniformInUnitInterval) {
  Rng rng(9);
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

// A bound of three quarters of the word range: x * 3/4 of x = 4m + r gives 3m + (0, 0, 1, 2)
// for r = 0..3, so without rejecting r = 0 the draw is a multiple of 3 twice as often as
// anything else, and rejecting the wrong words skews it further. The residues mod 3 must come
// out equally often (binomial, 10,000 expected each, sd 82: the band is 6 sd).
TEST(Rng, ABoundThatRejectsAQuarterOfTheWordsIsStillUniform) {
  Rng narrow(13), wide(14);
  Bounded32 draw(narrow);
  std::array<int, 3> narrowResidues{}, wideResidues{};
  for (int i = 0; i < 30000; ++i) {
    const std::uint32_t x = draw.below(3U << 30);
    ASSERT_LT(x, 3U << 30);
    ++narrowResidues[x % 3];
    const std::uint64_t y = wide.below(std::uint64_t{3} << 62);
    ASSERT_LT(y, std::uint64_t{3} << 62);
    ++wideResidues[y % 3];
  }
  for (int r = 0; r < 3; ++r) {
    EXPECT_NEAR(narrowResidues[static_cast<std::size_t>(r)], 10000, 500) << "32-bit draw, residue " << r;
    EXPECT_NEAR(wideResidues[static_cast<std::size_t>(r)], 10000, 500) << "64-bit draw, residue " << r;
  }
}

// For a bound 2^k, Lemire's product x * 2^k keeps x's top k bits above the word and nothing
// below it is ever rejected: each draw is exactly the top bits of the next 32-bit half (the
// low half of an Rng output first) or of the next 64-bit output.
TEST(Rng, APowerOfTwoBoundDrawsTheTopBitsOfTheNextWord) {
  Rng source(11), copy(11);
  Bounded32 draw(source);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t word = copy();
    EXPECT_EQ(draw.below(1U << 31), static_cast<std::uint32_t>(word) >> 1) << i;
    EXPECT_EQ(draw.below(1U << 5), static_cast<std::uint32_t>(word >> 32) >> 27) << i;
  }
  Rng wide(12), wideCopy(12);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(wide.below(std::uint64_t{1} << 63), wideCopy() >> 1) << i;
}

TEST(Rng, Bounded32StaysBelowSmallBoundsUniformly) {
  Rng rng(15);
  Bounded32 draw(rng);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const std::uint32_t v = draw.below(7);
    ASSERT_LT(v, 7u);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);  // sd 93: > 5 sd
  EXPECT_EQ(draw.below(1), 0u);
}
