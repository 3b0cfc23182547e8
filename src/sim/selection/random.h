// routelab/sim/selection/random.h — uniformly among the free (candidate, VC) choices, drawn
// from the switch's stream (Gómez et al. 2007 §5.1 compare it with SADP).
#pragma once

#include <bit>

#include "sim/selection/selection.h"

namespace routelab::sim {

namespace detail {

/// Set bits of each byte, by table.
inline constexpr std::array<std::uint8_t, 256> kBitsOfByte = [] {
  std::array<std::uint8_t, 256> bits{};
  for (std::size_t i = 1; i < bits.size(); ++i) bits[i] = static_cast<std::uint8_t>(bits[i / 2] + (i & 1));
  return bits;
}();

/// Position of the set bit of rank r (from 0, lowest first) of each byte: [byte * 8 + r].
inline constexpr std::array<std::uint8_t, 256 * 8> kRankedBitOfByte = [] {
  std::array<std::uint8_t, 256 * 8> position{};
  for (std::size_t byte = 0; byte < 256; ++byte) {
    std::size_t rank = 0;
    for (std::uint8_t bit = 0; bit < 8; ++bit) {
      if ((byte >> bit & 1) != 0) position[byte * 8 + rank++] = bit;
    }
  }
  return position;
}();

}  // namespace detail

class RandomSelection {
 public:
  static constexpr Selection kId = Selection::Random;
  static constexpr std::string_view kName = "random";
  static constexpr std::string_view kSummary = "uniformly among the free (candidate, VC) choices (seeded per switch)";
  static constexpr std::string_view kReference = "Gómez et al. 2007 §5.1";
  explicit RandomSelection(const SelectionSetup& setup = {}) : vcs_(setup.vcs) {
    for (std::uint32_t bit = 0; bit < choiceOfBit_.size(); ++bit) {
      choiceOfBit_[bit] = {static_cast<std::uint8_t>(bit / vcs_), static_cast<std::uint8_t>(bit % vcs_)};
    }
  }

  /// The free choices in candidate order, then VC order; choice k of their `total`, k drawn as
  /// view.rng().below(total) when total > 1 (no draw for one choice).
  template <SelectionView View>
  [[gnu::always_inline]] SelectionChoice choose(const View& view) const {
    const std::size_t n = view.size();
    if (n * vcs_ <= 64) {
      // The free choices as one mask, bit i * vcs + v for candidate i and VC v: the same
      // order, the same draw, and no branch on which of them are free.
      std::uint64_t free = 0;
      for (std::size_t i = 0; i < n; ++i) free |= view.freeVcs(i) << (i * vcs_);
      if (free == 0) return SelectionChoice::none();
      const auto total = static_cast<std::uint64_t>(countBits(free));
      const auto k = static_cast<std::uint32_t>(total > 1 ? view.rng().below(total) : 0);
      const std::uint32_t bit = rankedBit(free, k);
      return {choiceOfBit_[bit].candidate, choiceOfBit_[bit].vc};  // bit / vcs and bit % vcs, without a division
    }
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += static_cast<std::uint64_t>(countBits(view.freeVcs(i)));
    if (total == 0) return SelectionChoice::none();
    std::uint64_t k = total > 1 ? view.rng().below(total) : 0;
    for (std::size_t i = 0;; ++i) {
      std::uint64_t vcs = view.freeVcs(i);
      const auto count = static_cast<std::uint64_t>(countBits(vcs));
      if (k >= count) {
        k -= count;
        continue;
      }
      for (; k > 0; --k) vcs &= vcs - 1;
      return {i, static_cast<std::uint32_t>(std::countr_zero(vcs))};
    }
  }

  /// Position of the set bit of rank `rank` (from 0, lowest first) of `mask`; rank < its bits.
  /// A mask of up to 16 bits (4 candidates x 4 VCs) without a branch on the rank.
  static std::uint32_t rankedBit(std::uint64_t mask, std::uint32_t rank);

 private:
  std::uint32_t vcs_ = 1;
  /// Bit b of the mask of free choices: candidate b / vcs, VC b % vcs.
  struct BitChoice {
    std::uint8_t candidate = 0, vc = 0;
  };
  std::array<BitChoice, 64> choiceOfBit_{};
};

inline std::uint32_t RandomSelection::rankedBit(std::uint64_t mask, std::uint32_t rank) {
  if (mask <= 0xffff) {
    const auto low = static_cast<std::uint32_t>(mask & 0xff);
    const std::uint32_t lowCount = detail::kBitsOfByte[low];
    const std::uint32_t inHigh = 0U - static_cast<std::uint32_t>(rank >= lowCount);  // all ones: the second byte
    const std::uint32_t byte = (low & ~inHigh) | (static_cast<std::uint32_t>(mask >> 8) & inHigh);
    return (8U & inHigh) + detail::kRankedBitOfByte[byte * 8 + rank - (lowCount & inHigh)];
  }
  std::uint32_t base = 0;
  for (;; mask >>= 8, base += 8) {
    const auto byte = static_cast<std::uint32_t>(mask & 0xff);
    const std::uint32_t count = detail::kBitsOfByte[byte];
    if (rank < count) return base + detail::kRankedBitOfByte[byte * 8 + rank];
    rank -= count;
  }
}

}  // namespace routelab::sim
