// routelab/sim/arbitration/round_robin.h — each output port round-robin over its input ports
// (the arbiters of BookSim2's separable allocators: Dally & Towles 2004 §18.3, §19.3).
#pragma once

#include "sim/arbitration/arbiter.h"

namespace routelab::sim {

class RoundRobinArbitration {
 public:
  static constexpr Arbitration kId = Arbitration::RoundRobin;
  static constexpr std::string_view kName = "round-robin";
  static constexpr std::string_view kSummary = "separable input-first; each output port round-robin over its inputs";
  static constexpr std::string_view kReference = "Dally & Towles 2004 §19.3; BookSim2 separable_input_first";
  static constexpr bool kSeparable = true;

  /// a's input port comes first in the output's cyclic order from its start.
  template <class View, class Request>
  requires ArbiterView<View, Request>
  [[gnu::always_inline]] bool beats(const View& view, const Request& a, const Request& b) const {
    const std::uint32_t ports = view.ports();
    const std::uint32_t start = view.outputStart(a);
    return (view.inputPort(a) + ports - start) % ports < (view.inputPort(b) + ports - start) % ports;
  }
};

}  // namespace routelab::sim
