// routelab/core/random.h — explicit, reproducible randomness.
//
// Contract: every random choice in routelab goes through Rng constructed from an explicit
// seed. The generator (splitmix64-seeded xoshiro256**) and the integer/real/shuffle
// algorithms are implemented here, not taken from <random> distributions, so results are
// bit-identical across standard libraries. Parallel work derives one independent stream
// per work item with deriveSeed(seed, item) — never per thread — so results do not depend
// on the number of threads.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

namespace routelab {

/// splitmix64 step: a high-quality 64-bit mixer (Steele, Lea, Flood 2014).
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A seed for work item `stream` of a computation seeded with `seed`.
constexpr std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t s = seed ^ (0xd1b54a32d192ed03ULL * (stream + 1));
  splitmix64(s);
  return splitmix64(s);
}

/// xoshiro256** (Blackman & Vigna). Satisfies UniformRandomBitGenerator.
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed) {
    std::uint64_t s = seed;
    for (auto& word : state_) word = splitmix64(s);
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }

  result_type operator()() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform integer in [0, bound), bound > 0 (Lemire's nearly divisionless method).
  std::uint64_t below(std::uint64_t bound) {
    __uint128_t m = static_cast<__uint128_t>((*this)()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<__uint128_t>((*this)()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  /// Uniform real in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }

  /// Fisher–Yates shuffle.
  template <class T>
  void shuffle(std::span<T> items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(below(i));
      std::swap(items[i - 1], items[j]);
    }
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4]{};
};

/// Exact uniform integers in [0, bound) for a 32-bit bound > 0, two draws per 64-bit output
/// of an Rng: the low half of each output first, then the high half (Lemire 2019, "Fast
/// random integer generation in an interval", 32-bit variant with rejection). For a bound
/// 2^k the draw is the top k bits of the half (nothing is rejected). Holds a reference to the
/// Rng, which must outlive it; a half left over is lost with the object.
class Bounded32 {
 public:
  explicit Bounded32(Rng& rng) : rng_(rng) {}
  std::uint32_t below(std::uint32_t bound) {
    std::uint64_t product = static_cast<std::uint64_t>(next()) * bound;
    auto low = static_cast<std::uint32_t>(product);
    if (low < bound) {
      const std::uint32_t threshold = (0U - bound) % bound;
      while (low < threshold) {
        product = static_cast<std::uint64_t>(next()) * bound;
        low = static_cast<std::uint32_t>(product);
      }
    }
    return static_cast<std::uint32_t>(product >> 32);
  }

 private:
  std::uint32_t next() {
    if (buffered_) {
      buffered_ = false;
      return static_cast<std::uint32_t>(buffer_ >> 32);
    }
    buffer_ = rng_();
    buffered_ = true;
    return static_cast<std::uint32_t>(buffer_);
  }
  Rng& rng_;
  std::uint64_t buffer_ = 0;
  bool buffered_ = false;
};

}  // namespace routelab
