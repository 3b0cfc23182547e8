// PythonRandom must reproduce CPython's random.Random bit for bit. The golden values were
// printed by python3 3.11.7 with:
//   r = random.Random(seed)
//   [r.getrandbits(32) for _ in range(3)], [r.getrandbits(k) for k in (1, 7, 33, 40, 64)],
//   [r._randbelow(n) for n in (1, 2, 3, 10, 1000, 2**31+1, 2**40+3)],
//   d = list(range(10)); r.shuffle(d), [r.randrange(16) for _ in range(5)],
//   r.choice([10, 20, 30, 40, 50, 60, 70]), r.random()
// (one stream per seed, in this order).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "topology/python_random.h"

using namespace routelab;

namespace {

struct Golden {
  std::int64_t seed;
  std::array<std::uint64_t, 3> words32;
  std::array<std::uint64_t, 5> bits;   // k = 1, 7, 33, 40, 64
  std::array<std::uint64_t, 7> below;  // n = 1, 2, 3, 10, 1000, 2^31+1, 2^40+3
  std::array<int, 10> shuffled;
  std::array<std::uint64_t, 5> randrange16;
  int choice;
  double random;
};

const std::vector<Golden>& goldens() {
  static const std::vector<Golden> values{
      {0,
       {3626764237, 1654615998, 3255389356},
       {1, 53, 173879092, 562492388602, 7469716379221213669ULL},
       {0, 1, 1, 9, 913, 938204377, 307110291574},
       {5, 0, 3, 7, 6, 8, 9, 1, 2, 4},
       {2, 10, 15, 3, 11},
       40,
       0.31619669952159346},
      {1,
       {577090037, 2444712010, 3639700191},
       {1, 97, 271041745, 541672336265, 8291646586825371460ULL},
       {0, 1, 0, 1, 499, 121751464, 950861988493},
       {6, 3, 4, 8, 1, 5, 2, 7, 0, 9},
       {0, 0, 0, 12, 6},
       40,
       0.7258526014465152},
      {42,
       {2746317213, 478163327, 107420369},
       {1, 35, 1051802512, 808053162473, 12482902213779070887ULL},
       {0, 1, 0, 0, 95, 939042955, 58420225604},
       {7, 5, 0, 2, 4, 9, 1, 6, 3, 8},
       {13, 10, 8, 4, 6},
       70,
       0.33659454511262676},
      // 2^32 + 5: a two-word key.
      {4294967301LL,
       {675479763, 2085189291, 1213270837},
       {1, 77, 3587694693, 688719765053, 14344255866664620831ULL},
       {0, 1, 0, 5, 750, 846664313, 885448408269},
       {3, 1, 9, 8, 5, 0, 4, 6, 2, 7},
       {9, 13, 7, 13, 0},
       50,
       0.23115097629378},
      // Python ignores the sign of an integer seed.
      {-7,
       {1390851128, 4071050724, 647892279},
       {0, 83, 207388624, 591937865764, 6745769884264228881ULL},
       {0, 0, 0, 1, 444, 1796035739, 528581004175},
       {3, 5, 2, 9, 7, 4, 0, 6, 8, 1},
       {12, 1, 7, 1, 4},
       30,
       0.41913904357146525},
      {12345678901234LL,
       {107551873, 2403399316, 624174316},
       {1, 54, 2275631362, 790125229793, 17904362909768133599ULL},
       {0, 0, 0, 5, 239, 1567801162, 1092413044168},
       {0, 5, 7, 9, 3, 8, 6, 2, 1, 4},
       {3, 4, 12, 7, 12},
       60,
       0.04340821272537665},
      {9223372036854775807LL,
       {1359979423, 2819855560, 2711238091},
       {0, 102, 2108559838, 524455203004, 13188677789932409206ULL},
       {0, 0, 2, 5, 632, 404363245, 103551534723},
       {0, 7, 8, 4, 5, 9, 1, 6, 2, 3},
       {10, 2, 6, 11, 4},
       30,
       0.22519493576388327},
  };
  return values;
}

}  // namespace

TEST(PythonRandom, ReproducesCPythonStreamsForSeveralSeeds) {
  for (const Golden& g : goldens()) {
    SCOPED_TRACE(g.seed);
    PythonRandom rng(g.seed);
    for (std::uint64_t expected : g.words32) EXPECT_EQ(rng.getrandbits(32), expected);
    const unsigned widths[] = {1, 7, 33, 40, 64};
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(rng.getrandbits(widths[i]), g.bits[i]) << widths[i] << " bits";
    const std::uint64_t bounds[] = {1, 2, 3, 10, 1000, (1ULL << 31) + 1, (1ULL << 40) + 3};
    for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(rng.randbelow(bounds[i]), g.below[i]) << "below " << bounds[i];
    std::vector<int> items{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    rng.shuffle(std::span<int>(items));
    EXPECT_EQ(items, std::vector<int>(g.shuffled.begin(), g.shuffled.end()));
    for (std::uint64_t expected : g.randrange16) EXPECT_EQ(rng.randrange(16), expected);
    const std::vector<int> choices{10, 20, 30, 40, 50, 60, 70};
    EXPECT_EQ(rng.choice(std::span<const int>(choices)), g.choice);
    EXPECT_DOUBLE_EQ(rng.random(), g.random);
  }
}

TEST(PythonRandom, WordSeedEqualsIntegerSeed) {
  // random.Random(2**32 + 5) is keyed by the words {5, 1}; high zero words are ignored.
  const std::uint32_t words[] = {5, 1, 0, 0};
  PythonRandom fromWords{std::span<const std::uint32_t>(words)};
  PythonRandom fromInteger(4294967301LL);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(fromWords.next32(), fromInteger.next32()) << i;
}

TEST(PythonRandom, StreamCrossesTheStateBoundary) {
  // Draw 624 words (one full twist), then check the 625th..627th against python3:
  //   r = random.Random(1); [r.getrandbits(32) for _ in range(627)][-3:]
  PythonRandom rng(1);
  for (int i = 0; i < 624; ++i) rng.next32();
  EXPECT_EQ(rng.next32(), 1360367077U);
  EXPECT_EQ(rng.next32(), 3404757168U);
  EXPECT_EQ(rng.next32(), 3638416111U);
}
