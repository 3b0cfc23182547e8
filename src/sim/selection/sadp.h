// routelab/sim/selection/sadp.h — SADP (Gómez et al. 2007 §4.2): the routing's preferred
// candidate when it is free, else the next free one in the routing's order.
#pragma once

#include <bit>

#include "sim/selection/selection.h"

namespace routelab::sim {

class SadpSelection {
 public:
  static constexpr Selection kId = Selection::Sadp;
  static constexpr std::string_view kName = "sadp";
  static constexpr std::string_view kSummary =
      "the routing's preferred free candidate (its order), on its lowest free VC";
  static constexpr std::string_view kReference = "Gómez et al. 2007 §4.2 (SADP)";
  explicit SadpSelection(const SelectionSetup& /*setup*/ = {}) {}

  /// The first candidate with a free VC, and its lowest free VC.
  template <SelectionView View>
  [[gnu::always_inline]] SelectionChoice choose(const View& view) const {
    for (std::size_t i = 0; i < view.size(); ++i) {
      if (const std::uint64_t vcs = view.freeVcs(i)) return {i, static_cast<std::uint32_t>(std::countr_zero(vcs))};
    }
    return SelectionChoice::none();
  }
};

}  // namespace routelab::sim
