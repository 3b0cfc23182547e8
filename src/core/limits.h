// routelab/core/limits.h — the memory budget and the size checks made before allocating.
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

namespace routelab {

/// The memory budget every size check compares against: 24 GiB.
inline constexpr std::uint64_t kMemoryBudgetBytes = std::uint64_t{24} << 30;

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

/// "1.5 GiB", "800 MiB", "12 KiB", "17 bytes".
std::string formatBytes(std::uint64_t bytes);

}  // namespace routelab
