// routelab/sim/selection/first_free.h — FF (Gómez et al. 2007 §5.1): the free candidate on the
// lowest port number.
#pragma once

#include <bit>

#include "sim/selection/selection.h"

namespace routelab::sim {

class FirstFreeSelection {
 public:
  static constexpr Selection kId = Selection::FirstFree;
  static constexpr std::string_view kName = "ff";
  static constexpr std::string_view kSummary = "the free candidate on the lowest port number (ties: the first)";
  static constexpr std::string_view kReference = "Gómez et al. 2007 §5.1 (FF)";
  explicit FirstFreeSelection(const SelectionSetup& /*setup*/ = {}) {}

  /// The free candidate of the lowest port (ties: the earlier one), on its lowest free VC.
  template <SelectionView View>
  [[gnu::always_inline]] SelectionChoice choose(const View& view) const {
    SelectionChoice pick;
    for (std::size_t i = 0; i < view.size(); ++i) {
      const std::uint64_t vcs = view.freeVcs(i);
      if (vcs != 0 && (!pick.chosen() || view.port(i) < view.port(pick.candidate))) {
        pick = {i, static_cast<std::uint32_t>(std::countr_zero(vcs))};
      }
    }
    return pick;
  }
};

}  // namespace routelab::sim
