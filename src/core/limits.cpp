// Size checks before allocation. Contract: core/limits.h.
#include "core/limits.h"

#include <fmt/format.h>

#include <iterator>
#include <limits>

namespace routelab {

std::uint64_t saturatingBytes(std::uint64_t count, std::uint64_t bytesEach) {
  if (bytesEach != 0 && count > std::numeric_limits<std::uint64_t>::max() / bytesEach) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return count * bytesEach;
}

std::string formatBytes(std::uint64_t bytes) {
  if (bytes == std::numeric_limits<std::uint64_t>::max()) return "more than 16 EiB";
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double value = static_cast<double>(bytes) / 1024.0;
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

void checkMemory(const std::string& what, std::uint64_t count, const std::string& unit, std::uint64_t bytesEach) {
  checkMemory(what, count, unit, bytesEach, kMemoryBudgetBytes);
}

void checkMemory(const std::string& what, std::uint64_t count, const std::string& unit, std::uint64_t bytesEach,
                 std::uint64_t budgetBytes) {
  const std::uint64_t bytes = saturatingBytes(count, bytesEach);
  if (bytes <= budgetBytes) return;
  throw LimitError(fmt::format("{}: {} {} x {} bytes = {} exceeds the {} memory budget (docs/RELIABILITY.md, Limits)",
                               what, count, unit, bytesEach, formatBytes(bytes), formatBytes(budgetBytes)));
}

}  // namespace routelab
