// Communication patterns: Nienaber Defs. 1-4 exactly, the fixed permutations, the pattern
// registry and pattern files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "core/errors.h"
#include "core/random.h"
#include "graph/builder.h"
#include "test_support.h"
#include "topology/xgft.h"
#include "traffic/pattern.h"

using namespace routelab;

namespace {

std::string writeTemp(const std::string& text) {
  char name[] = "/tmp/routelab-pattern-XXXXXX";
  const int fd = mkstemp(name);
  close(fd);
  std::ofstream(name) << text;
  return name;
}

std::vector<SourceDestination> sorted(std::vector<SourceDestination> pairs) {
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
    return a.source != b.source ? a.source < b.source : a.destination < b.destination;
  });
  return pairs;
}

}  // namespace

TEST(PatternDefinitions, CheckersFollowNienaberDefinitions) {
  // Def. 1: distinct sources, distinct destinations, no s == d.
  EXPECT_TRUE(isPermutation(std::vector<SourceDestination>{{0, 1}, {1, 2}}, 4));
  EXPECT_FALSE(isPermutation(std::vector<SourceDestination>{{0, 1}, {0, 2}}, 4));
  EXPECT_FALSE(isPermutation(std::vector<SourceDestination>{{0, 1}, {2, 1}}, 4));
  EXPECT_FALSE(isPermutation(std::vector<SourceDestination>{{3, 3}}, 4));
  // Def. 2: N/2 pairs, every node either sender or receiver.
  EXPECT_TRUE(isBisect(std::vector<SourceDestination>{{0, 2}, {1, 3}}, 4));
  EXPECT_FALSE(isBisect(std::vector<SourceDestination>{{0, 1}, {1, 0}}, 4));  // 0 and 1 both send and receive
  EXPECT_FALSE(isBisect(std::vector<SourceDestination>{{0, 2}}, 4));          // N/2 pairs needed
  EXPECT_FALSE(isBisect(std::vector<SourceDestination>{{0, 2}, {1, 3}, {4, 5}}, 6 + 1));  // N odd
  EXPECT_FALSE(isBisect(std::vector<SourceDestination>{{0, 2}, {1, 2}}, 4));              // not a permutation
  EXPECT_FALSE(isBisect(std::vector<SourceDestination>{{0, 2}, {1, 1}}, 4));              // s = d
  // Def. 3: N pairs.
  EXPECT_TRUE(isFullPermutation(std::vector<SourceDestination>{{0, 1}, {1, 2}, {2, 0}}, 3));
  EXPECT_FALSE(isFullPermutation(std::vector<SourceDestination>{{0, 1}, {1, 0}}, 3));
  // Def. 4: N pairs, closed under reversal.
  EXPECT_TRUE(isDissemination(std::vector<SourceDestination>{{0, 1}, {1, 0}, {2, 3}, {3, 2}}, 4));
  EXPECT_FALSE(isDissemination(std::vector<SourceDestination>{{0, 1}, {1, 2}, {2, 3}, {3, 0}}, 4));
}

TEST(PatternSamplers, EverySampleSatisfiesItsDefinition) {
  for (std::size_t n : {2u, 4u, 6u, 10u, 64u, 1250u}) {
    std::vector<std::uint32_t> scratch(n);
    std::vector<SourceDestination> pairs;
    for (std::uint64_t i = 0; i < 50; ++i) {
      Rng rng(deriveSeed(7, i));
      sampleBisect(rng, scratch, pairs);
      EXPECT_TRUE(isBisect(pairs, n)) << n;
      sampleFullPermutation(rng, scratch, pairs);
      EXPECT_TRUE(isFullPermutation(pairs, n)) << n;
      sampleDissemination(rng, scratch, pairs);
      EXPECT_TRUE(isDissemination(pairs, n)) << n;
      sampleRandomPermutation(rng, scratch, pairs);
      EXPECT_TRUE(isPermutation(pairs, n)) << n;
    }
  }
}

TEST(PatternSamplers, UniformOverAllPatternsOfFourNodes) {
  // N = 4: 12 bisect patterns (C(4,2) sender sets x 2! bijections), 9 derangements, 3 perfect
  // matchings, 24 permutations (random-permutation: Fisher-Yates). Every one must appear with frequency close to
  // uniform (24,000 draws: a deviation beyond 6 standard deviations means a biased sampler).
  const std::size_t n = 4, draws = 24000;
  std::vector<std::uint32_t> scratch(n);
  std::vector<SourceDestination> pairs;
  struct Case {
    void (*sampler)(Rng&, std::span<std::uint32_t>, std::vector<SourceDestination>&);
    std::size_t patterns;
  };
  for (const Case& c : {Case{sampleBisect, 12}, Case{sampleFullPermutation, 9}, Case{sampleDissemination, 3},
                        Case{sampleRandomPermutation, 24}}) {
    std::map<std::vector<std::pair<std::uint32_t, std::uint32_t>>, std::size_t> counts;
    for (std::uint64_t i = 0; i < draws; ++i) {
      Rng rng(deriveSeed(11, i));
      c.sampler(rng, scratch, pairs);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> key;
      for (const auto& p : sorted(pairs)) key.emplace_back(p.source, p.destination);
      ++counts[key];
    }
    ASSERT_EQ(counts.size(), c.patterns);
    const double expected = static_cast<double>(draws) / static_cast<double>(c.patterns);
    const double sigma = std::sqrt(expected * (1 - 1.0 / static_cast<double>(c.patterns)));
    for (const auto& [key, count] : counts) EXPECT_NEAR(static_cast<double>(count), expected, 6 * sigma);
  }
}

TEST(PatternRegistry, FixedPermutationsOnSixteenNodes) {
  const Network net = makeKaryNtree(2, 4);  // 16 terminals
  // bit-reversal: 0b0001 -> 0b1000; palindromes (0, 6 = 0110, 9, 15) are dropped.
  const TrafficPattern reversal = makePattern("bit-reversal", net, 1);
  EXPECT_TRUE(isPermutation(reversal.pairs, 16));
  EXPECT_EQ(reversal.pairs.size(), 12u);
  EXPECT_EQ(reversal.pairs[0], (SourceDestination{1, 8}));
  // bit-complement: i -> 15 - i, a full permutation.
  const TrafficPattern complement = makePattern("bit-complement", net, 1);
  EXPECT_TRUE(isFullPermutation(complement.pairs, 16));
  for (const auto& p : complement.pairs) EXPECT_EQ(p.destination, 15 - p.source);
  // perfect shuffle: rotate left; 0 and 15 are fixed points.
  const TrafficPattern shuffle = makePattern("perfect-shuffle", net, 1);
  EXPECT_EQ(shuffle.pairs.size(), 14u);
  EXPECT_TRUE(isPermutation(shuffle.pairs, 16));
  EXPECT_EQ(shuffle.pairs[0], (SourceDestination{1, 2}));
  EXPECT_EQ(shuffle.pairs[7], (SourceDestination{8, 1}));
  // butterfly: swap bit 3 and bit 0.
  const TrafficPattern butterfly = makePattern("butterfly", net, 1);
  EXPECT_TRUE(isPermutation(butterfly.pairs, 16));
  EXPECT_EQ(butterfly.pairs[0], (SourceDestination{1, 8}));
  EXPECT_EQ(butterfly.pairs.size(), 8u);  // i with bit 0 == bit 3 are fixed
  // transpose: 16 = 4 x 4, (row, column) -> (column, row): 0b0110 -> 0b1001; the diagonal
  // (0, 5, 10, 15) is fixed.
  const TrafficPattern transpose = makePattern("transpose", net, 1);
  EXPECT_TRUE(isPermutation(transpose.pairs, 16));
  EXPECT_EQ(transpose.pairs.size(), 12u);
  for (const auto& p : transpose.pairs) {
    EXPECT_EQ(p.destination, (p.source % 4) * 4 + p.source / 4);
    EXPECT_NE(p.source % 5, 0u);
  }
  // shift by 3 and by -1.
  const TrafficPattern shift = makePattern("shift:s=3", net, 1);
  EXPECT_TRUE(isFullPermutation(shift.pairs, 16));
  EXPECT_EQ(shift.pairs[15], (SourceDestination{15, 2}));
  EXPECT_EQ(makePattern("shift:s=-1", net, 1).pairs[0], (SourceDestination{0, 15}));
  EXPECT_EQ(shift.spec, "shift:s=3");
  // all-to-all: the N-1 shifts = every ordered pair once.
  const TrafficPattern all = makePattern("all-to-all", net, 1);
  EXPECT_EQ(all.pairs.size(), 16u * 15u);
  std::set<std::pair<std::uint32_t, std::uint32_t>> distinct;
  for (const auto& p : all.pairs) distinct.emplace(p.source, p.destination);
  EXPECT_EQ(distinct.size(), 240u);
}

TEST(PatternRegistry, RandomPatternsAreSeeded) {
  const Network net = makeGft2(4, 4, 5);  // 20 terminals
  for (const char* name : {"bisect", "full-permutation", "dissemination", "random-permutation"}) {
    const TrafficPattern a = makePattern(name, net, 42), b = makePattern(name, net, 42), c = makePattern(name, net, 43);
    EXPECT_EQ(a.pairs, b.pairs) << name;
    EXPECT_NE(a.pairs, c.pairs) << name;
    EXPECT_TRUE(a.random);
    EXPECT_EQ(a.seed, 42u);
  }
  EXPECT_TRUE(isBisect(makePattern("bisect", net, 1).pairs, 20));
  EXPECT_TRUE(isDissemination(makePattern("dissemination", net, 1).pairs, 20));
}

TEST(PatternRegistry, HotSpot) {
  const Network net = makeGft2(4, 4, 5);
  const TrafficPattern all = makePattern("hot-spot:target=7", net, 1);
  EXPECT_EQ(all.pairs.size(), 19u);
  for (const auto& p : all.pairs) EXPECT_EQ(p.destination, 7u);
  const TrafficPattern some = makePattern("hot-spot:target=3,senders=5", net, 9);
  EXPECT_EQ(some.pairs.size(), 5u);
  std::set<std::uint32_t> senders;
  for (const auto& p : some.pairs) {
    EXPECT_EQ(p.destination, 3u);
    EXPECT_NE(p.source, 3u);
    senders.insert(p.source);
  }
  EXPECT_EQ(senders.size(), 5u);
  // A strict subset of the others is drawn with the seed, up to N - 2 senders (one left out):
  // the pattern is random; N - 1 senders are every other terminal: it is not.
  EXPECT_TRUE(some.random);
  const TrafficPattern allButOne = makePattern("hot-spot:target=3,senders=18", net, 9);
  EXPECT_TRUE(allButOne.random);
  EXPECT_EQ(allButOne.pairs.size(), 18u);
  EXPECT_FALSE(makePattern("hot-spot:target=3,senders=19", net, 9).random);
  // The target's range is [0, N - 1] (-1: drawn): both ends are the named terminal, for
  // every seed, and the pattern is not random.
  for (const std::uint32_t target : {0u, 19u}) {
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      const TrafficPattern end = makePattern("hot-spot:target=" + std::to_string(target), net, seed);
      EXPECT_FALSE(end.random) << target;
      ASSERT_EQ(end.pairs.size(), 19u) << target;
      for (const auto& p : end.pairs) EXPECT_EQ(p.destination, target) << "seed " << seed;
    }
  }
}

TEST(PatternRegistry, ImpossiblePatternsAreRejected) {
  const Network odd = makeGft2(3, 2, 3);  // 9 terminals
  EXPECT_THROW(makePattern("bisect", odd, 1), SpecError);
  EXPECT_THROW(makePattern("dissemination", odd, 1), SpecError);
  EXPECT_THROW(makePattern("bit-reversal", odd, 1), SpecError);
  EXPECT_THROW(makePattern("transpose", makeKaryNtree(2, 3), 1), SpecError);  // 8 = 2^3, an odd power
  EXPECT_THROW(makePattern("shift:s=9", odd, 1), SpecError);
  EXPECT_THROW(makePattern("shift", odd, 1), SpecError);  // s is required
  EXPECT_THROW(makePattern("no-such-pattern", odd, 1), SpecError);
  EXPECT_THROW(makePattern("hot-spot:target=9", odd, 1), SpecError);
  EXPECT_THROW(makePattern("bisect:bogus=1", odd, 1), SpecError);
}

// All-to-all at its limit (two terminals: both ordered pairs) and one below it (refused with
// the message naming the pattern and both counts).
TEST(PatternRegistry, AllToAllAtTwoTerminalsAndRefusedBelow) {
  auto fabric = [](int terminals) {
    NetworkBuilder builder;
    const NodeId sw = builder.addSwitch("sw", 4);
    for (int t = 0; t < terminals; ++t) {
      builder.connect(builder.addTerminal("h" + std::to_string(t)), 1, sw, static_cast<PortNumber>(t + 1));
    }
    return builder.build();
  };
  const TrafficPattern two = makePattern("all-to-all", fabric(2), 1);
  EXPECT_EQ(two.pairs, (std::vector<SourceDestination>{{0, 1}, {1, 0}}));
  EXPECT_EQ(makePattern("all-to-all", fabric(3), 1).pairs.size(), 6U);
  EXPECT_EQ(test::thrownMessage<SpecError>([&] { makePattern("all-to-all", fabric(1), 1); }),
            "pattern 'all-to-all' needs at least 2 terminals, the fabric has 1");
}

// shiftPairs' contract (traffic/pattern.h) at its edges: no terminals and one terminal give no
// pairs (nobody to send to), as does a shift that is a multiple of N, negative ones included;
// a negative shift wraps.
TEST(PatternDefinitions, ShiftPairsAtNoTerminalsOneTerminalAndMultiplesOfN) {
  EXPECT_TRUE(shiftPairs(0, 3).empty());
  EXPECT_TRUE(shiftPairs(0, 0).empty());
  EXPECT_TRUE(shiftPairs(1, 1).empty());
  EXPECT_TRUE(shiftPairs(1, -7).empty());
  EXPECT_TRUE(shiftPairs(5, -10).empty());
  EXPECT_TRUE(shiftPairs(5, 15).empty());
  EXPECT_EQ(shiftPairs(2, 1), (std::vector<SourceDestination>{{0, 1}, {1, 0}}));
  EXPECT_EQ(shiftPairs(5, -6), (std::vector<SourceDestination>{{0, 4}, {1, 0}, {2, 1}, {3, 2}, {4, 3}}));
}

TEST(PatternFile, NamesIndicesAndComments) {
  const Network net = makeGft2(2, 2, 3);  // terminals gft-h<i>-<p>
  const std::string path = writeTemp("# a comment\n\n0 5   # index to index\ngft-h1-0 gft-h0-1\n3 gft-h2-0\n0 5\n");
  const TrafficPattern pattern = makePattern("file:" + path, net, 1);
  EXPECT_EQ(pattern.spec, "file:" + path);
  ASSERT_EQ(pattern.pairs.size(), 4u);
  EXPECT_EQ(pattern.pairs[0], (SourceDestination{0, 5}));
  EXPECT_EQ(pattern.pairs[1], (SourceDestination{2, 1}));
  EXPECT_EQ(pattern.pairs[2], (SourceDestination{3, 4}));
  EXPECT_EQ(pattern.pairs[3], (SourceDestination{0, 5}));  // repeated pairs are kept
  std::remove(path.c_str());
}

TEST(PatternFile, ErrorsNameFileAndLine) {
  const Network net = makeGft2(2, 2, 3);
  const auto expectError = [&](const std::string& text, const std::string& what) {
    const std::string path = writeTemp(text);
    try {
      readPatternFile(path, net);
      ADD_FAILURE() << "no error for: " << text;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":2:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
  };
  expectError("0 1\n0 1 2\n", "expected 'SRC DST'");
  expectError("0 1\n0 6\n", "out of range");
  expectError("0 1\nnobody 1\n", "neither a terminal name");
  expectError("0 1\ngft-leaf0 1\n", "is a switch");
  expectError("0 1\n4 4\n", "sends to itself");
  EXPECT_THROW(readPatternFile("/nonexistent/pattern.txt", net), IoError);
}

namespace {

/// The bisect sampler as it was before the receivers came from a bitset (issue 13): the same
/// partial Fisher–Yates over Lemire's 32-bit draws (two per Rng output), receivers found by a
/// flag test per terminal. The reference the fast sampler must equal, draw for draw.
void previousSampleBisect(Rng& rng, std::size_t n, std::vector<SourceDestination>& out) {
  std::vector<std::uint32_t> scratch(n);
  for (std::size_t i = 0; i < n; ++i) scratch[i] = static_cast<std::uint32_t>(i);
  Bounded32 draw(rng);  // the bounded draw, tested alone in tests/core/test_random.cpp
  const std::size_t half = n / 2;
  for (std::size_t i = 0; i < half; ++i)
    std::swap(scratch[i], scratch[i + draw.below(static_cast<std::uint32_t>(n - i))]);
  out.resize(half);
  for (std::size_t i = 0; i < half; ++i) out[i].source = scratch[i];
  std::vector<bool> sender(n, false);
  for (std::size_t i = 0; i < half; ++i) sender[out[i].source] = true;
  std::size_t filled = 0;
  for (std::size_t v = 0; v < n && filled < half; ++v) {
    if (!sender[v]) out[filled++].destination = static_cast<std::uint32_t>(v);
  }
}

}  // namespace

TEST(PatternSamplers, BisectEqualsThePreviousSamplerAndLeavesTheSameStream) {
  std::vector<SourceDestination> fast, previous;
  for (const std::size_t n :
       {2UL, 3UL, 5UL, 8UL, 21UL, 22UL, 23UL, 31UL, 32UL, 33UL, 63UL, 64UL, 65UL, 100UL, 127UL, 128UL, 1250UL}) {
    std::vector<std::uint32_t> scratch(n);
    for (std::uint64_t i = 0; i < 300; ++i) {
      Rng a(deriveSeed(42, i)), b(deriveSeed(42, i));
      sampleBisect(a, scratch, fast);
      previousSampleBisect(b, n, previous);
      ASSERT_EQ(fast, previous) << "n " << n << " sample " << i;
      ASSERT_EQ(a(), b()) << "the random stream diverged, n " << n << " sample " << i;
    }
  }
}
