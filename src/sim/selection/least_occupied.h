// routelab/sim/selection/least_occupied.h — the free choice whose output queue holds the fewest
// packets (queue occupancy as the local congestion estimate of an adaptive choice: Dally &
// Towles 2004 ch. 9).
#pragma once

#include "sim/selection/selection.h"

namespace routelab::sim {

class LeastOccupiedSelection {
 public:
  static constexpr Selection kId = Selection::LeastOccupied;
  static constexpr std::string_view kName = "least-occupied";
  static constexpr std::string_view kSummary =
      "the free (candidate, VC) whose output queue holds the fewest packets (ties: the routing's order)";
  static constexpr std::string_view kReference = "Dally & Towles 2004 ch. 9 (queue occupancy)";
  explicit LeastOccupiedSelection(const SelectionSetup& /*setup*/ = {}) {}

  /// Over the free choices in candidate order, then VC order: the first of the fewest queued.
  template <SelectionView View>
  [[gnu::always_inline]] SelectionChoice choose(const View& view) const {
    SelectionChoice pick;
    std::uint32_t best = 0;
    for (std::size_t i = 0; i < view.size(); ++i) {
      for (std::uint64_t vcs = view.freeVcs(i); vcs != 0; vcs &= vcs - 1) {
        const auto v = static_cast<std::uint32_t>(std::countr_zero(vcs));
        const std::uint32_t occupied = view.queued(i, v);
        if (!pick.chosen() || occupied < best) {
          pick = {i, v};
          best = occupied;
        }
      }
    }
    return pick;
  }
};

}  // namespace routelab::sim
