// routelab/traffic/demand.h — the one vocabulary of traffic: a demand is one communication
// from a source terminal to a destination terminal.
//
// Every consumer of traffic takes demands in this type: the static analysis (a pattern's
// link loads, traffic/pattern.h and analysis/), the circuit schedulers (a demand is a
// circuit request, schedule/scheduler.h); a traffic-driven simulator takes them too. Terminals are
// numbered by Network::terminalIndex (the papers' processing-node numbering for the
// generated fat-trees). A demand never has source == destination (Nienaber et al. 2011,
// §II: a node that does not take part "can be considered as communicating with itself,
// which is not represented in P"); generators drop such pairs, pattern files reject them
// and the schedulers refuse them.
#pragma once

#include <cstdint>

namespace routelab {

/// One communication (demand): terminal indices, source != destination.
struct SourceDestination {
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
  friend bool operator==(const SourceDestination&, const SourceDestination&) = default;
};

}  // namespace routelab
