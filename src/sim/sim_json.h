// routelab/sim/sim_json.h — the names of the simulator's choices and the JSON of a result,
// shared by `routelab simulate` and the sweeps' `simulate` points so that both spell them
// the same way (docs/SIMULATION.md "Output").
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "sim/model.h"

namespace routelab {

/// "ff" | "sadp" | "random" | "least-occupied" | "oblivious"; SpecError naming `what` and the
/// known names.
Selection parseSelection(const std::string& name, const std::string& what = "selection");
/// "round-robin" | "age" | "switch-round-robin".
Arbitration parseArbitration(const std::string& name, const std::string& what = "arbitration");
/// "random" | "round-robin" | "adaptive".
PathPolicy parsePathPolicy(const std::string& name, const std::string& what = "paths");
/// "bernoulli" | "poisson".
Injection parseInjection(const std::string& name, const std::string& what = "injection");

/// The result's fields under the names of docs/SIMULATION.md ("offered", "accepted",
/// "latency_avg", "latency_p99", "packets_injected", "packets_delivered", "out_of_order",
/// "simulated_cycles", "deadlock", ...); the deadlock report's fields when it deadlocked. The per-
/// channel utilization and packet records are left out (they have their own exports).
nlohmann::json simResultJson(const SimResult& result);

}  // namespace routelab
