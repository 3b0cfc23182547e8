// routelab/sim/memory_policy.h — how the fast engine (sim/engine.h) meets memory: a
// compile-time policy, Engine<Policy>. Neither policy changes a result — only the order in
// which state is read and work is grouped (docs/SIMULATION.md "How the engine computes it");
// the tests run the reference-model and thread-count equalities under both.
#pragma once

namespace routelab::sim {

/// State that fits in a core's caches: a cycle's events run kind by kind (no dispatch on
/// the kind), a returning credit is an event, and only the next work items are requested
/// ahead.
struct CacheResident {
  static constexpr bool kGrouped = false;   ///< events grouped by the switch they change
  static constexpr bool kPrefetch = false;  ///< two-stage requests ahead of every phase's items
};

/// State larger than the caches (channel records over 2 MiB): a cycle's events grouped by
/// their owner switch, each switch allocating right after its own events while its state is
/// still cached; credits counted lazily within a block (sim/credit_flow.h); what each event,
/// link and allocation will read requested in two stages ahead of it.
struct Streaming {
  static constexpr bool kGrouped = true;
  static constexpr bool kPrefetch = true;
};

}  // namespace routelab::sim
