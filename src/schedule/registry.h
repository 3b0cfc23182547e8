// routelab/schedule/registry.h — the registry of circuit schedulers.
//
// Rows (name, summary, paper reference, options, factory) like every component family;
// `routelab list` prints them. A scheduler spec follows core/options.h, e.g.
// `level-wise:policy=random,order=request,release-on-fail`.
#pragma once

#include <functional>
#include <string>

#include "core/options.h"
#include "core/registry.h"
#include "schedule/scheduler.h"

namespace routelab {

using SchedulerFactory = std::function<SchedulerConfig(const Options&)>;
const Registry<SchedulerFactory>& schedulerRegistry();

/// Parse and validate a scheduler spec; the result's `effective` echoes every option.
/// Throws SpecError naming the scheduler and the offending key or value.
SchedulerConfig makeSchedulerConfig(const std::string& spec);

}  // namespace routelab
