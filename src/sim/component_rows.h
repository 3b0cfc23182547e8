// routelab/sim/component_rows.h — the registry of a family of simulator components held as
// the alternatives of a std::variant (sim/selection/registry.h, sim/arbitration/registry.h).
//
// Each alternative C declares `static constexpr Id kId` (its position in the variant: checked
// at compile time by idsAreIndices) and `kName`, `kSummary`, `kReference`: its row.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/errors.h"
#include "core/registry.h"

namespace routelab::sim {

/// Whether every alternative's kId equals its position in Variant.
template <class Variant>
constexpr bool idsAreIndices() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return ((static_cast<std::size_t>(std::variant_alternative_t<I, Variant>::kId) == I) && ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
}

/// The alternative of position `id`, constructed from `args`. Throws SpecError for an id
/// beyond the rows.
template <class Variant, class Id, class... Args>
Variant makeComponent(Id id, const Args&... args) {
  const auto index = static_cast<std::size_t>(id);
  Variant made;
  const bool found = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ((index == I && (made.template emplace<I>(args...), true)) || ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
  if (!found) throw SpecError("unknown simulator component id " + std::to_string(index));
  return made;
}

/// One registry row per alternative, in variant order; a row's factory is its kId.
template <class Variant, class Id>
std::vector<RegistryRow<Id>> componentRows() {
  std::vector<RegistryRow<Id>> rows;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (rows.push_back({std::string(std::variant_alternative_t<I, Variant>::kName),
                     std::string(std::variant_alternative_t<I, Variant>::kSummary),
                     std::string(std::variant_alternative_t<I, Variant>::kReference),
                     {},
                     std::variant_alternative_t<I, Variant>::kId}),
     ...);
  }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
  return rows;
}

/// "name | name | ...": a registry's names in row order (for option help).
template <class Id>
std::string rowNames(const Registry<Id>& registry) {
  std::string names;
  for (const auto& row : registry.rows()) names += (names.empty() ? "" : " | ") + row.name;
  return names;
}

/// The names in registry order, as a list (an option row's accepted values).
template <class Id>
std::vector<std::string> rowNameList(const Registry<Id>& registry) {
  std::vector<std::string> names;
  for (const auto& row : registry.rows()) names.push_back(row.name);
  return names;
}

}  // namespace routelab::sim
