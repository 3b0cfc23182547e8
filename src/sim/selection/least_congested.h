// routelab/sim/selection/least_congested.h — a congestion-aware choice that looks one hop
// further than least-occupied: the free (candidate, VC) with the fewest packets queued for
// it, counting both its output queue here and the input queue at the next switch (the
// packet slots its credits say are taken). Queue length, read from credits, as the
// congestion estimate of an adaptive choice: Dally & Towles 2004 ch. 9 (adaptive routing),
// and the local queue estimate of UGAL (Singh 2005).
#pragma once

#include "sim/selection/selection.h"

namespace routelab::sim {

class LeastCongestedSelection {
 public:
  static constexpr Selection kId = Selection::LeastCongested;
  static constexpr std::string_view kName = "least-congested";
  static constexpr std::string_view kSummary =
      "the free (candidate, VC) with the fewest packets in its output queue plus the next input queue (credits)";
  static constexpr std::string_view kReference = "Dally & Towles 2004 ch. 9; Singh 2005 (UGAL)";
  explicit LeastCongestedSelection(const SelectionSetup& setup = {}) : slots_(setup.bufferPackets) {}

  /// Over the free choices in candidate order, then VC order: the first of the least
  /// queued(i, v) + (bufferPackets - credits(i, v)).
  template <SelectionView View>
  [[gnu::always_inline]] SelectionChoice choose(const View& view) const {
    SelectionChoice pick;
    std::uint32_t best = 0;
    for (std::size_t i = 0; i < view.size(); ++i) {
      for (std::uint64_t vcs = view.freeVcs(i); vcs != 0; vcs &= vcs - 1) {
        const auto v = static_cast<std::uint32_t>(std::countr_zero(vcs));
        const std::uint32_t load = view.queued(i, v) + (slots_ - view.credits(i, v));
        if (!pick.chosen() || load < best) {
          pick = {i, v};
          best = load;
        }
      }
    }
    return pick;
  }

 private:
  std::uint32_t slots_ = 0;
};

}  // namespace routelab::sim
