// routelab/core/limits.h — the memory budget, the layer limit and the size checks made
// before allocating.
//
// routelab promises to refuse, with a message, any request whose main data structure
// would not fit in the memory budget (24 GiB, docs/RELIABILITY.md "Limits"), *before*
// allocating it — never an out-of-memory kill half-way. Each large structure computes its
// size from the input first (overflow-safe) and calls checkMemory(); the CLI reports the
// LimitError like every routelab::Error (exit 1).
#pragma once

#include <cstdint>
#include <string>

#include "core/errors.h"
#include "core/ids.h"

namespace routelab {

/// The memory budget every size check compares against: 24 GiB.
inline constexpr std::uint64_t kMemoryBudgetBytes = std::uint64_t{24} << 30;

/// The one limit on layers, for engines, the channel dependency graph, the verifier and
/// the simulator's virtual channels: InfiniBand's 16 service levels (the 4-bit SL field of
/// the packet header) and at most 16 virtual lanes per port (VL0–VL14 data, VL15
/// management); an allowed-layer set is a 16-bit mask (RoutingResult::allowedLayers).
/// Whatever would need more layers is refused, before allocating, with an error that names
/// the component, the layers needed and this limit (docs/ARCHITECTURE.md, "Layers").
inline constexpr std::size_t kMaxLayers = 16;
static_assert(kMaxLayers - 1 < LayerId::kInvalid, "every layer must have a valid LayerId");

/// A request whose data would exceed the memory budget (a routelab::Error: CLI exit 1).
class LimitError : public Error {
 public:
  using Error::Error;
};

/// count * bytesEach, saturating at UINT64_MAX instead of wrapping.
std::uint64_t saturatingBytes(std::uint64_t count, std::uint64_t bytesEach);

/// Throws LimitError "<what>: <count> <unit> x <bytesEach> bytes = <size> exceeds the
/// 24 GiB memory budget (docs/RELIABILITY.md)" when count * bytesEach > the budget.
void checkMemory(const std::string& what, std::uint64_t count, const std::string& unit, std::uint64_t bytesEach);
/// The same against another budget (a structure's share of it, or a lowered one in tests).
void checkMemory(const std::string& what, std::uint64_t count, const std::string& unit, std::uint64_t bytesEach,
                 std::uint64_t budgetBytes);

/// "1.5 GiB", "800 MiB", "12 KiB", "17 bytes".
std::string formatBytes(std::uint64_t bytes);

}  // namespace routelab
