// routelab/sim/arbitration/arbiter.h — the switch allocator's arbitration: the contract every
// arbitration component keeps (sim/model.h "Switch allocation"; docs/SIMULATION.md
// "Components", "Arbitration and fairness").
//
// A separable, input-first allocator of one iteration (Dally & Towles 2004 §19.3; BookSim2's
// separable_input_first) lets every idle input port make at most one request (its selection
// function's choice), then each output port grants one of the requests for it. An
// arbitration component says which request an output grants:
//
//   static constexpr Arbitration kId;                  // its value of SimConfig::arbitration
//   static constexpr std::string_view kName, kSummary, kReference;  // its registry row
//   static constexpr bool kSeparable;                  // false: the greedy allocator (below)
//   template <ArbiterView View, class Request>
//   bool beats(const View& view, const Request& a, const Request& b) const;
//
// beats() is a strict order among the requests for one output: the output grants the request
// that no other beats. It reads only what the view offers, so the same class serves the fast
// engine and the reference model. A component with kSeparable false is not separable: the
// inputs are served one after another, each granted at once (beats() is not called).
// Adding one: a class in its own file here, one row in sim/arbitration/registry.h, its id in
// sim/model.h's Arbitration enum.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "sim/model.h"

namespace routelab::sim {

/// What an arbiter may read of a request (of type Request) for an output port.
template <class View, class Request>
concept ArbiterView = requires(const View& view, const Request& r) {
  /// The requesting input port's position at the switch (0 .. ports - 1).
  { view.inputPort(r) } -> std::convertible_to<std::uint32_t>;
  /// The switch's input ports.
  { view.ports() } -> std::convertible_to<std::uint32_t>;
  /// The output's round-robin start: the input port after the one it granted last.
  { view.outputStart(r) } -> std::convertible_to<std::uint32_t>;
  /// The requesting packet's (generated, injected, source terminal): smaller is older.
  { view.age(r) } -> std::same_as<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>>;
};

}  // namespace routelab::sim
