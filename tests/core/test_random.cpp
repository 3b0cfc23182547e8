#include <gtest/gtest.h>

#include <algorithm>
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
