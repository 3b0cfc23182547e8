// routelab/topology/python_random.h — a bit-exact re-implementation of CPython's
// random.Random (Mersenne Twister MT19937, Matsumoto & Nishimura 1998).
//
// Why this exists: the project's ibsim/OpenSM fixtures (tests/data/opensm) were
// written by gen_ibsim_net.py (tests/data/opensm/README.md), whose random irregular generator draws from
// Python's random.Random(seed). To import those fixtures and compare them with fabrics
// generated here, routelab's `random:` generator must make the same draws in the same
// order. This class is therefore deliberately NOT routelab's general-purpose RNG
// (core/random.h Rng is): it is used only where a result must agree with Python tooling.
//
// What is reproduced (CPython 3.2+ semantics, Modules/_randommodule.c and Lib/random.py):
//   * seeding from an integer: init_by_array(key) where key is |seed| split into 32-bit
//     words, least significant first (one word 0 for seed 0) — random.Random(seed);
//   * getrandbits(k) for any k >= 0 (32-bit words, least significant first; the last,
//     partial word takes the top bits of a draw);
//   * randbelow(n) = _randbelow_with_getrandbits: k = n.bit_length(), draw getrandbits(k)
//     until it is < n;
//   * randrange(stop), choice, shuffle (Fisher–Yates from the end, j = randbelow(i + 1)).
// Golden values printed by python3 are checked in tests/topology/test_python_random.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace routelab {

class PythonRandom {
 public:
  /// random.Random(seed) for an integer seed (the sign is dropped, as CPython does).
  explicit PythonRandom(std::int64_t seed);
  /// random.Random(n) for a non-negative integer n given as 32-bit words, least
  /// significant first (words beyond the highest non-zero one are ignored, as in CPython).
  explicit PythonRandom(std::span<const std::uint32_t> seedWords);

  /// Next raw 32-bit MT19937 output (genrand_uint32).
  std::uint32_t next32();

  /// random.getrandbits(bits) for bits <= 64.
  std::uint64_t getrandbits(unsigned bits);

  /// random._randbelow(n): uniform in [0, n); n >= 1. Expected < 2 draws.
  std::uint64_t randbelow(std::uint64_t n);

  /// random.randrange(stop) with stop >= 1.
  std::uint64_t randrange(std::uint64_t stop) { return randbelow(stop); }

  /// random.choice(items): the element at randbelow(size). Precondition: non-empty.
  template <class T>
  const T& choice(std::span<const T> items) {
    return items[static_cast<std::size_t>(randbelow(items.size()))];
  }

  /// random.shuffle(items), in place.
  template <class T>
  void shuffle(std::span<T> items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(randbelow(i));
      std::swap(items[i - 1], items[j]);
    }
  }

  /// random.random(): 53-bit float in [0, 1).
  double random();

 private:
  void initGenrand(std::uint32_t seed);
  void initByArray(std::span<const std::uint32_t> key);
  void twist();

  static constexpr std::size_t kStateSize = 624;
  std::array<std::uint32_t, kStateSize> state_{};
  std::size_t index_ = kStateSize + 1;
};

}  // namespace routelab
