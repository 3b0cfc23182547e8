// routelab/sim/selection/registry.h — the registry of selection functions (SimConfig::selection).
//
// One row per selection component (sim/selection/selection.h states their contract): the
// variant's alternatives below, in the order of sim/model.h's Selection enum. Their names,
// summaries and references form a Registry like every component family's (core/registry.h);
// `simulate --selection` and the sweep's `selection` key resolve names here. The fast engine
// and the reference model both hold a SelectionFunction and call it through std::visit: the
// dispatch is one indexed jump per request, and every choose() is inlined into its case.
#pragma once

#include <string>
#include <variant>

#include "core/registry.h"
#include "sim/selection/first_free.h"
#include "sim/selection/least_congested.h"
#include "sim/selection/least_occupied.h"
#include "sim/selection/oblivious.h"
#include "sim/selection/random.h"
#include "sim/selection/sadp.h"

namespace routelab::sim {

/// The rows.
using SelectionFunction = std::variant<FirstFreeSelection,      //
                                       SadpSelection,           //
                                       RandomSelection,         //
                                       LeastOccupiedSelection,  //
                                       ObliviousSelection,      //
                                       LeastCongestedSelection>;

/// The selection component `id`, set up for a run.
SelectionFunction makeSelection(Selection id, const SelectionSetup& setup);

/// Every row's name, summary and reference; its factory is its Selection id.
const Registry<Selection>& selectionRegistry();

/// "name | name | ...": the names in registry order (for option help).
std::string selectionNames();

}  // namespace routelab::sim
