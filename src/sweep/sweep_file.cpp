// routelab/sweep/sweep_file.cpp — the one translation unit that compiles toml++.
#include "sweep/sweep_file.h"

#include <toml++/toml.h>

#include <fmt/format.h>
#include <cstdint>
#include <filesystem>
#include <set>

#include "core/errors.h"
#include "core/hash.h"
#include "io/output.h"
#include "sweep/point_kinds.h"

namespace routelab {

namespace {

std::size_t lineOf(const toml::node& node) { return node.source().begin.line; }

nlohmann::json scalarValue(const toml::node& node, const PointKey& key, const std::string& source) {
  if (key.type == KeyType::String && node.is_string()) return node.as_string()->get();
  if (key.type == KeyType::Integer && node.is_integer()) return node.as_integer()->get();
  if (key.type == KeyType::Float && node.is_floating_point()) return node.as_floating_point()->get();
  if (key.type == KeyType::Float && node.is_integer()) return static_cast<double>(node.as_integer()->get());
  const char* wanted = key.type == KeyType::String    ? "a string"
                       : key.type == KeyType::Integer ? "an integer"
                                                      : "a number";
  throw ParseError(source, lineOf(node), "'" + key.name + "' must be " + wanted + " (or a list of them)");
}

/// The values of one key of a grid: its axis (a list) or its one value.
std::vector<nlohmann::json> axisValues(const toml::node& node, const PointKey& key, const std::string& source) {
  std::vector<nlohmann::json> values;
  if (const toml::array* list = node.as_array()) {
    if (list->empty()) throw ParseError(source, lineOf(node), "'" + key.name + "' is an empty list");
    for (const toml::node& element : *list) values.push_back(scalarValue(element, key, source));
  } else {
    values.push_back(scalarValue(node, key, source));
  }
  return values;
}

struct Axis {
  std::string name;
  std::vector<nlohmann::json> values;
};

/// The axes of one [[grid]] table, in the kind's key order; unknown keys are errors.
std::vector<Axis> gridAxes(const toml::table& grid, const PointKind& kind, const std::string& source) {
  std::set<std::string> used = {"kind"};
  std::vector<Axis> axes;
  for (const PointKey& key : kind.keys) {
    const toml::node* singular = grid.get(key.name);
    const toml::node* plural = grid.get(key.name + "s");
    if (singular && plural) {
      throw ParseError(source, lineOf(*plural), "give '" + key.name + "' or '" + key.name + "s', not both");
    }
    const toml::node* node = singular ? singular : plural;
    used.insert(singular ? key.name : key.name + "s");
    if (node) {
      axes.push_back({key.name, axisValues(*node, key, source)});
    } else if (key.defaultValue.is_null()) {
      throw ParseError(source, lineOf(grid), "[[grid]] of kind '" + kind.name + "' needs '" + key.name + "s'");
    } else {
      axes.push_back({key.name, {key.defaultValue}});
    }
  }
  for (const auto& [name, node] : grid) {
    if (used.count(std::string(name.str())) == 0) {
      std::string known;
      for (const PointKey& key : kind.keys) known += (known.empty() ? "" : ", ") + key.name + "(s)";
      throw ParseError(source, lineOf(node),
                       "unknown key '" + std::string(name.str()) + "' in a [[grid]] of kind '" + kind.name +
                           "' (known: " + known + ")");
    }
  }
  return axes;
}

/// Appends the cartesian product of one grid's axes to `sweep` (first axis slowest).
void expandGrid(const toml::table& grid, const std::string& source, std::size_t maxPoints, Sweep& sweep,
                std::set<std::string>& seen) {
  const toml::node* kindNode = grid.get("kind");
  if (!kindNode || !kindNode->is_string()) {
    throw ParseError(source, lineOf(grid), "[[grid]] needs kind = \"NAME\" (e.g. \"analyze\")");
  }
  const PointKind* kind = nullptr;
  try {
    kind = &findPointKind(kindNode->as_string()->get());
  } catch (const SpecError& e) {
    throw ParseError(source, lineOf(*kindNode), e.what());
  }
  const std::vector<Axis> axes = gridAxes(grid, *kind, source);
  std::size_t count = 1;
  for (const Axis& axis : axes) {
    count *= axis.values.size();
    if (count + sweep.points.size() > maxPoints) {
      throw ParseError(source, lineOf(grid), fmt::format("the sweep has more than {} points", maxPoints));
    }
  }
  for (std::size_t n = 0; n < count; ++n) {
    nlohmann::json config = {{"kind", kind->name}, {"routelab_version", routelabVersion()}};
    std::size_t rest = n;
    for (std::size_t a = axes.size(); a-- > 0;) {
      config[axes[a].name] = axes[a].values[rest % axes[a].values.size()];
      rest /= axes[a].values.size();
    }
    try {
      kind->normalize(config);
    } catch (const Error& e) {
      throw ParseError(source, lineOf(grid), std::string(e.what()) + " (point " + config.dump() + ")");
    }
    std::string key = config.dump();
    if (!seen.insert(key).second) continue;
    sweep.points.push_back({sweep.points.size(), std::move(config), std::move(key)});
  }
}

}  // namespace

Sweep parseSweep(const std::string& text, const std::string& source, std::size_t maxPoints) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ParseError(source, e.source().begin.line, std::string(e.description()));
  }
  Sweep sweep;
  sweep.source = source;
  sweep.name = std::filesystem::path(source).stem().string();
  std::set<std::string> seen;
  for (const auto& [name, node] : root) {
    if (name.str() == "name" && node.is_string()) {
      sweep.name = node.as_string()->get();
    } else if (name.str() == "description" && node.is_string()) {
      continue;
    } else if (name.str() == "grid" && node.is_array_of_tables()) {
      for (const toml::node& grid : *node.as_array()) expandGrid(*grid.as_table(), source, maxPoints, sweep, seen);
    } else {
      throw ParseError(source, lineOf(node),
                       "unknown or mistyped top-level key '" + std::string(name.str()) +
                           "' (known: name = \"...\", description = \"...\", [[grid]] tables)");
    }
  }
  if (sweep.points.empty()) throw ParseError(source, 1, "the sweep has no [[grid]] table");
  nlohmann::json canonical = {{"name", sweep.name}, {"points", nlohmann::json::array()}};
  for (const SweepPoint& point : sweep.points) canonical["points"].push_back(point.key);
  sweep.identity = fmt::format("{:016x}", fnv1a64(canonical.dump()));
  return sweep;
}

Sweep readSweepFile(const std::string& path) { return parseSweep(readFileText(path), path); }

}  // namespace routelab
