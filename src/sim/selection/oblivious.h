// routelab/sim/selection/oblivious.h — an oblivious choice: one candidate drawn uniformly per
// packet and hop, free or not, which the packet then waits for (BookSim2's fat-tree `nca`
// routing function draws its up port this way: Jiang et al. 2013, BookSim 2.0).
#pragma once

#include <bit>

#include "sim/selection/selection.h"

namespace routelab::sim {

class ObliviousSelection {
 public:
  static constexpr Selection kId = Selection::Oblivious;
  static constexpr std::string_view kName = "oblivious";
  static constexpr std::string_view kSummary =
      "one candidate drawn per packet and hop, free or not, and waited for (BookSim2's nca)";
  static constexpr std::string_view kReference = "BookSim2 fat-tree nca (Jiang et al. 2013)";
  explicit ObliviousSelection(const SelectionSetup& /*setup*/ = {}) {}

  /// Candidate packetDraw() mod size (the draw is a hash of the seed, the packet and its hop,
  /// so it does not depend on when it is made), on its lowest free VC; none while it is busy.
  template <SelectionView View>
  [[gnu::always_inline]] SelectionChoice choose(const View& view) const {
    const std::size_t n = view.size();
    if (n == 0) return SelectionChoice::none();
    const std::size_t i = n == 1 ? 0 : static_cast<std::size_t>(view.packetDraw() % n);
    if (const std::uint64_t vcs = view.freeVcs(i)) return {i, static_cast<std::uint32_t>(std::countr_zero(vcs))};
    return SelectionChoice::none();
  }
};

}  // namespace routelab::sim
