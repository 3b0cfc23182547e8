// routelab/sim/arbitration/age.h — each output port to its oldest packet (age-based
// arbitration: Dally & Towles 2004 §18.5; BookSim2's age-based priority).
#pragma once

#include "sim/arbitration/arbiter.h"

namespace routelab::sim {

class AgeArbitration {
 public:
  static constexpr Arbitration kId = Arbitration::Age;
  static constexpr std::string_view kName = "age";
  static constexpr std::string_view kSummary =
      "separable input-first; each output port to its oldest packet (earliest generated, then injected, then source)";
  static constexpr std::string_view kReference = "Dally & Towles 2004 §18.5 (age-based priority)";
  static constexpr bool kSeparable = true;

  /// a's packet is older: (generated, injected, source) lexicographically smaller.
  template <class View, class Request>
  requires ArbiterView<View, Request>
  [[gnu::always_inline]] bool beats(const View& view, const Request& a, const Request& b) const {
    return view.age(a) < view.age(b);
  }
};

}  // namespace routelab::sim
