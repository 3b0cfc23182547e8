// routelab/engines/template_engine.h — the template engine: the smallest complete engine,
// written to be copied when adding one (template_engine.cpp says how, step by step).
//
// `shortest-lowest-port`: destination-based shortest paths, at every switch the lowest
// hardware port that brings a packet one hop closer to the destination's switch. One
// layer, deterministic, minimal. Not deadlock-free on cyclic fabrics, and it balances
// nothing (every destination's tree leaves a switch through its lowest minimal port) — use
// `minhop` (OpenSM's min-hop, balanced) for real work. It is deliberately NOT registered
// (engines/registry.cpp), so `routelab list` and every output stay as they are; the
// tests run it through its row exactly as the registry would (tests/routing/test_template_engine.cpp).
#pragma once

#include "routing/engine.h"

namespace routelab {

/// The engine itself, callable directly. Addresses: `context.addressesPerTerminal` per
/// terminal (all routed alike) and, with `context.routeSwitches`, one per switch. Throws
/// RoutingError naming the terminal that is not cabled to a switch, or the first endpoint
/// pair without a path. O(E · (S + C)) for E address owners, S switches, C channels.
/// `preferHighest` picks the highest minimal port instead of the lowest (the option shows
/// how an engine reads its options).
RoutingResult routeShortestLowestPort(const Network& network, const RoutingContext& context,
                                      bool preferHighest = false);

/// Its registry row (name, summary, reference, option schema, factory).
RegistryRow<EngineFactory> templateEngineRow();

}  // namespace routelab
