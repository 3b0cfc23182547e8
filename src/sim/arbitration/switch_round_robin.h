// routelab/sim/arbitration/switch_round_robin.h — the greedy allocator: the input ports one
// after another from the port after the last one granted in the previous pass (one pointer
// per switch), each granted at once its selection among what is still free. Not separable,
// and unfair: the ports after a busy one keep priority for every output, and a source can
// starve (docs/SIMULATION.md "Arbitration and fairness").
#pragma once

#include "sim/arbitration/arbiter.h"

namespace routelab::sim {

class SwitchRoundRobinArbitration {
 public:
  static constexpr Arbitration kId = Arbitration::SwitchRoundRobin;
  static constexpr std::string_view kName = "switch-round-robin";
  static constexpr std::string_view kSummary =
      "greedy, inputs in turn from one round-robin pointer per switch (unfair)";
  static constexpr std::string_view kReference = "the rule of routelab before issue 38 (docs/SIMULATION.md)";
  static constexpr bool kSeparable = false;

  /// Not called (kSeparable is false): the allocator grants each input at once.
  template <class View, class Request>
  requires ArbiterView<View, Request>
  bool beats(const View& /*view*/, const Request& /*a*/, const Request& /*b*/) const { return false; }
};

}  // namespace routelab::sim
