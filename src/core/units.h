// routelab/core/units.h — simulated time in types (docs/SIMULATION.md "Components"): a cycle
// (a point in time) and cycles (a span), so that an interface says which it takes and a span
// cannot be passed where a point is meant. Both are one 64-bit integer; every operation is
// constexpr and inlines to the integer's.
#pragma once

#include <compare>
#include <cstdint>

namespace routelab {

/// A span of simulated time: a number of cycles.
struct Cycles {
  std::uint64_t count = 0;

  constexpr Cycles() = default;
  constexpr explicit Cycles(std::uint64_t n) : count(n) {}
  constexpr auto operator<=>(const Cycles&) const = default;
  constexpr Cycles operator+(Cycles other) const { return Cycles(count + other.count); }
  constexpr Cycles operator*(std::uint64_t factor) const { return Cycles(count * factor); }
};

/// A point of simulated time: the cycle number, the run starting at cycle 0. never() is
/// later than every cycle a run reaches (no such cycle).
struct Cycle {
  std::uint64_t value = 0;

  constexpr Cycle() = default;
  constexpr explicit Cycle(std::uint64_t cycle) : value(cycle) {}
  static constexpr Cycle never() { return Cycle(~std::uint64_t{0}); }
  constexpr auto operator<=>(const Cycle&) const = default;
  /// The cycle `span` later (not of never()).
  constexpr Cycle operator+(Cycles span) const { return Cycle(value + span.count); }
  /// The cycles from `earlier` to this one (earlier <= *this).
  constexpr Cycles operator-(Cycle earlier) const { return Cycles(value - earlier.value); }
};

}  // namespace routelab
