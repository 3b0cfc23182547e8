// MT19937 as in CPython's Modules/_randommodule.c (itself the reference code of
// Matsumoto & Nishimura, mt19937ar.c, 2002 version with init_by_array).
#include "topology/python_random.h"

#include <algorithm>
#include <bit>

namespace routelab {

namespace {
constexpr std::size_t kShift = 397;
constexpr std::uint32_t kMatrixA = 0x9908b0dfU;
constexpr std::uint32_t kUpperMask = 0x80000000U;
constexpr std::uint32_t kLowerMask = 0x7fffffffU;
}  // namespace

PythonRandom::PythonRandom(std::int64_t seed) {
  // |seed| as an unsigned 64-bit number (well defined for INT64_MIN too).
  const std::uint64_t magnitude =
      seed < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(seed) : static_cast<std::uint64_t>(seed);
  const std::array<std::uint32_t, 2> words{static_cast<std::uint32_t>(magnitude),
                                           static_cast<std::uint32_t>(magnitude >> 32)};
  // CPython: key length = max(1, ceil(bit_length / 32)).
  initByArray(std::span<const std::uint32_t>(words.data(), words[1] != 0 ? 2 : 1));
}

PythonRandom::PythonRandom(std::span<const std::uint32_t> seedWords) {
  std::size_t used = seedWords.size();
  while (used > 1 && seedWords[used - 1] == 0) --used;
  if (used == 0) {
    const std::array<std::uint32_t, 1> zero{0};
    initByArray(zero);
  } else {
    initByArray(seedWords.first(used));
  }
}

void PythonRandom::initGenrand(std::uint32_t seed) {
  state_[0] = seed;
  for (std::size_t i = 1; i < kStateSize; ++i) {
    state_[i] = 1812433253U * (state_[i - 1] ^ (state_[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
  }
  index_ = kStateSize;
}

void PythonRandom::initByArray(std::span<const std::uint32_t> key) {
  initGenrand(19650218U);
  std::size_t i = 1;
  std::size_t j = 0;
  for (std::size_t k = std::max(kStateSize, key.size()); k > 0; --k) {
    state_[i] =
        (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1664525U)) + key[j] + static_cast<std::uint32_t>(j);
    ++i;
    ++j;
    if (i >= kStateSize) {
      state_[0] = state_[kStateSize - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (std::size_t k = kStateSize - 1; k > 0; --k) {
    state_[i] = (state_[i] ^ ((state_[i - 1] ^ (state_[i - 1] >> 30)) * 1566083941U)) - static_cast<std::uint32_t>(i);
    ++i;
    if (i >= kStateSize) {
      state_[0] = state_[kStateSize - 1];
      i = 1;
    }
  }
  state_[0] = 0x80000000U;  // MSB is 1, assuring a non-zero initial array
  index_ = kStateSize;
}

void PythonRandom::twist() {
  for (std::size_t k = 0; k < kStateSize; ++k) {
    const std::uint32_t y = (state_[k] & kUpperMask) | (state_[(k + 1) % kStateSize] & kLowerMask);
    state_[k] = state_[(k + kShift) % kStateSize] ^ (y >> 1) ^ ((y & 1U) != 0 ? kMatrixA : 0U);
  }
  index_ = 0;
}

std::uint32_t PythonRandom::next32() {
  if (index_ >= kStateSize) twist();
  std::uint32_t y = state_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

std::uint64_t PythonRandom::getrandbits(unsigned bits) {
  if (bits == 0) return 0;
  if (bits <= 32) return next32() >> (32 - bits);
  // Words least significant first; the last word keeps only its top (bits - 32) bits.
  const std::uint64_t low = next32();
  const std::uint64_t high = next32() >> (64 - std::min(bits, 64U));
  return low | (high << 32);
}

std::uint64_t PythonRandom::randbelow(std::uint64_t n) {
  const auto bits = static_cast<unsigned>(std::bit_width(n));  // n.bit_length()
  std::uint64_t r = getrandbits(bits);
  while (r >= n) r = getrandbits(bits);
  return r;
}

double PythonRandom::random() {
  const std::uint32_t a = next32() >> 5;
  const std::uint32_t b = next32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

}  // namespace routelab
