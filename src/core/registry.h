// routelab/core/registry.h — one registry per component family.
//
// A registry is a table of rows {name, one-line summary, paper reference, option schema,
// factory}. Adding a component = its file, one row in the family's table, its test.
// `routelab list` prints every family's table.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/options.h"

namespace routelab {

template <class Factory>
struct RegistryRow {
  std::string name;
  std::string summary;
  std::string reference;  ///< paper and section the algorithm comes from
  OptionSchema options;
  Factory factory;
};

template <class Factory>
class Registry {
 public:
  using Row = RegistryRow<Factory>;
  Registry(std::string family, std::vector<Row> rows) : family_(std::move(family)), rows_(std::move(rows)) {}

  const std::string& family() const { return family_; }
  const std::vector<Row>& rows() const { return rows_; }

  /// The row called `name`; throws SpecError listing the known names.
  const Row& find(const std::string& name) const {
    for (const auto& row : rows_) {
      if (row.name == name) return row;
    }
    std::string known;
    for (const auto& row : rows_) known += (known.empty() ? "" : ", ") + row.name;
    throw SpecError(fmt::format("unknown {} '{}' (known: {})", family_, name, known));
  }
  bool contains(const std::string& name) const {
    for (const auto& row : rows_) {
      if (row.name == name) return true;
    }
    return false;
  }

 private:
  std::string family_;
  std::vector<Row> rows_;
};

}  // namespace routelab
