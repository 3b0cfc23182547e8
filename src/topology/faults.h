// routelab/topology/faults.h — fault modifiers: remove given or random (seeded) links or
// switches from any fabric and report what became unreachable.
//
// Spec syntax (appended to any fabric spec, see core/options.h for the grammar; the
// value after '=' is the modifier's positional argument):
//   +fail-links=N,seed=S         N distinct switch-to-switch cables chosen uniformly at
//                                random (core/random.h Rng(S), partial Fisher–Yates over
//                                the switch-to-switch cables in cable order). seed default 1.
//   +fail-switches=N,seed=S      N distinct switches chosen likewise, removed with all their
//                                cables. Terminals attached only to removed switches stay
//                                in the fabric, cable-less, and are reported unreachable.
//   +remove-links=END(.END)*     the given cables. END = name[port] names the cable at that
//                                port; name[p]:other[q] names it by both ends (checked).
//                                Example: +remove-links=rnd-sw00[2].rnd-sw03[4]:rnd-sw09[2]
//   +remove-switches=NAME(.NAME)*  the given switches with their cables.
// A NAME may also be a node GUID written 0x<hex>. Names containing '.', '[', ',' or '+'
// cannot be written in these lists (use the GUID).
//
// Every modifier returns a new Network rebuilt through NetworkBuilder keeping node names,
// GUIDs, port counts and port numbers of the surviving elements (node ids of switches after
// a removed switch shift down); XGFT labels are dropped once something was removed, since
// the fabric is no longer a complete XGFT. Its ModifierReport lists the removed elements
// ("a[p] -- b[q]" per cable, "name (switch, k cables)" per switch) and the terminals that
// are not in the largest terminal-carrying component (ties: the component containing the
// lowest node id) — those can no longer reach the bulk of the fabric.
// Errors (SpecError naming the modifier and the offending value): missing or negative N,
// N larger than the cables/switches available, unknown names, a port that is not cabled,
// a terminal given to remove-switches, a both-ends pair that is not one cable.
#pragma once

#include <string>
#include <vector>

#include "topology/registry.h"

namespace routelab {

/// Rows of the modifier registry (implemented in faults.cpp).
std::vector<RegistryRow<ModifierFactory>> faultModifierRows();

/// The network without the cables in `removedLinks` (cable indices) and the switches in
/// `removedSwitches` (node ids; their cables go too), rebuilt as described above; fills
/// report.removed (one entry per given cable and per given switch) and the unreachable
/// terminals. Returns `network` unchanged (labels kept) when nothing is removed.
/// O(nodes + channels + terminals).
Network removeElements(const Network& network, const std::vector<std::size_t>& removedLinks,
                       const std::vector<NodeId>& removedSwitches, ModifierReport& report);

/// Terminals outside the largest terminal-carrying connected component, by name in
/// terminal order. O(nodes + channels).
std::vector<std::string> unreachableTerminals(const Network& network);

}  // namespace routelab
