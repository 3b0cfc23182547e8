// routelab/sim/arbitration/registry.h — the registry of arbitrations (SimConfig::arbitration).
//
// One row per arbitration component (sim/arbitration/arbiter.h states their contract): the
// variant's alternatives below, in the order of sim/model.h's Arbitration enum. `simulate
// --arbitration` and the sweep resolve names here; the engine and the reference model hold
// an ArbitrationFunction and call it through std::visit (one indexed jump, beats() inlined).
#pragma once

#include <string>
#include <variant>

#include "core/registry.h"
#include "sim/arbitration/age.h"
#include "sim/arbitration/round_robin.h"
#include "sim/arbitration/switch_round_robin.h"

namespace routelab::sim {

/// The rows.
using ArbitrationFunction = std::variant<RoundRobinArbitration,  //
                                         AgeArbitration,         //
                                         SwitchRoundRobinArbitration>;

/// The arbitration component `id`.
ArbitrationFunction makeArbitration(Arbitration id);

/// Whether `arbitration` is a separable allocator's output arbiter (kSeparable).
inline bool separable(const ArbitrationFunction& arbitration) {
  return std::visit([](const auto& a) { return a.kSeparable; }, arbitration);
}

/// Every row's name, summary and reference; its factory is its Arbitration id.
const Registry<Arbitration>& arbitrationRegistry();

/// "name | name | ...": the names in registry order (for option help).
std::string arbitrationNames();

}  // namespace routelab::sim
