// routelab/sim/sim_options.h — the simulator's options, declared once (core/options.h rows):
// the model, traffic and measurement settings of SimConfig with their defaults, ranges and
// the paper section that defines them. `routelab simulate`'s flags, the sweeps' `simulate`
// keys and the Python keywords are generated from these rows (request/simulate_request.h).
#pragma once

#include "core/options.h"
#include "sim/model.h"

namespace routelab {

/// The rows of SimConfig's user-settable fields, keys spelled like the CLI flags without
/// "--" (packet-flits, buffer-packets, ...). The ranges are the simulator's limits.
const OptionSchema& simConfigRows();

/// SimConfig from options validated against rows that include simConfigRows() (types and
/// ranges checked by Options; the choice names by parseSelection() and friends, SpecError).
SimConfig simConfigFromOptions(const Options& options);

/// Throws SpecError when a field of `config` lies outside its row's range (the engine's
/// check for configurations built in code rather than from Options). With a trace, the
/// load and the measured cycles are not used and not checked.
void validateSimConfig(const SimConfig& config, bool withTrace = false);

}  // namespace routelab
