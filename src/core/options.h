// routelab/core/options.h — the one spec grammar and option schema used by every
// component family (topologies, fault modifiers, routing engines, patterns, schedulers).
//
// Grammar (documented in README.md, "Spec grammar"):
//   spec      := component ( '+' modifier )*
//   component := name [ ':' body ]
//   body      := option ( ',' option )*        | path (for components taking a path)
//   modifier  := name [ '=' value ] ( ',' option )*
//   option    := key '=' value                 (a bare key means key=true)
// Lists inside a value are separated by '.', e.g. `xgft:h=2,m=16.32,w=1.16`.
//
// Options belong to the component that uses them: each registry row carries its
// OptionSchema, and Options validates a parsed spec against it (unknown keys, missing
// required keys and malformed values throw SpecError naming the component and key).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace routelab {

enum class OptionType { Integer, Real, String, Flag, IntegerList };

/// One row of a component's (or a request's, request/request.h) option table: everything a
/// front end needs to offer the option — the CLI's flag, the sweep file's key and the Python
/// keyword are generated from these rows.
struct OptionSpec {
  std::string key;
  OptionType type = OptionType::Integer;
  std::string defaultValue;  ///< empty + required=false means "absent unless given"
  std::string help;
  bool required = false;
  /// Inclusive range of an Integer or Real option, written as the value would be ("1",
  /// "4096"); empty = unbounded on that side. Options::set() refuses a value outside with
  /// SpecError "<component>: <key> must lie in [min, max] (got x)".
  std::string minimum = {};
  std::string maximum = {};
  /// Real options: the minimum itself is excluded ("(0, 1]").
  bool minimumExclusive = false;
  /// String options: the accepted values (empty = any non-empty string).
  std::vector<std::string> choices = {};
  /// Where the option's meaning is defined (paper and section, or docs/ file).
  std::string reference = {};

  bool bounded() const { return !minimum.empty() || !maximum.empty(); }
  /// "[1, 4096]", "(0, 1]", "[0, inf)"; empty when unbounded.
  std::string rangeText() const;
};
using OptionSchema = std::vector<OptionSpec>;

/// A component as written: its name, an optional positional value (the path of
/// `file:PATH`, the N of `+fail-links=N`) and its key=value options in order.
struct ComponentSpec {
  std::string name;
  std::string positional;
  std::vector<std::pair<std::string, std::string>> options;

  /// Re-serialise in the grammar above.
  std::string str() const;
};

/// A whole spec: the base component and its '+' modifiers.
struct Spec {
  ComponentSpec base;
  std::vector<ComponentSpec> modifiers;
  std::string str() const;
};

/// Parse `text` with the grammar above. `pathComponents` lists component names whose body
/// is a path (kept verbatim as `positional`) rather than options. Throws SpecError.
Spec parseSpec(std::string_view text, const std::vector<std::string>& pathComponents = {});

/// Parse a single component (no '+' modifiers), e.g. an engine spec `lash:max-layers=4`.
ComponentSpec parseComponent(std::string_view text);
/// The same, except that `file:PATH` is the component "file" with option path=PATH kept
/// verbatim (a path may contain ',' or '='): the spec of registries whose "file" row
/// reads a file (engines, patterns).
ComponentSpec parseComponentOrFile(std::string_view text);

/// Validated, typed access to a component's options against its schema.
class Options {
 public:
  Options() = default;
  /// Throws SpecError for unknown keys, repeated keys, missing required keys and values
  /// that do not parse as the declared type.
  Options(std::string component, const OptionSchema& schema, const ComponentSpec& spec);
  /// Options from a schema's defaults only. Throws std::logic_error for a schema that
  /// declares an option both required and with a default (every constructor starts here).
  Options(std::string component, const OptionSchema& schema);

  /// Has `key` a value (given, or a default)? Throws SpecError for a key the schema lacks.
  bool has(const std::string& key) const;
  /// Was `key` named by the spec or set() (a default alone is not given)? For options that
  /// apply only in some modes: a front end refuses them where they would do nothing.
  bool given(const std::string& key) const;
  std::int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;
  const std::string& string(const std::string& key) const;
  bool flag(const std::string& key) const;
  std::vector<std::int64_t> integerList(const std::string& key) const;
  const std::string& positional() const { return positional_; }

  /// Integer option checked to lie in [low, high]; throws SpecError naming the key.
  std::int64_t integerIn(const std::string& key, std::int64_t low, std::int64_t high) const;

  /// Set or override a value (validated against the schema type).
  void set(const std::string& key, const std::string& value);

  /// The effective configuration, defaults included, as a base component:
  /// `name:k=v,...` in schema order (`name:positional` for path components such as
  /// `file:PATH`). Re-parses with parseSpec/parseComponent to the same options.
  std::string effective() const;
  /// The same as a '+' modifier: `name[=positional][,k=v...]`, e.g. `fail-links=3,seed=5` —
  /// what parseSpec reads after a '+', so `base.effective() + "+" + m.effectiveModifier()`
  /// re-parses to the same spec.
  std::string effectiveModifier() const;
  const std::string& component() const { return component_; }
  const OptionSchema& schema() const { return schema_; }
  /// Effective key/value pairs in schema order (for JSON echo).
  std::vector<std::pair<std::string, std::string>> values() const;

 private:
  const OptionSpec& specFor(const std::string& key) const;
  std::string component_;
  OptionSchema schema_;
  std::map<std::string, std::string> values_;
  std::set<std::string> given_;
  std::string positional_;
};

/// Parse helpers shared by the parsers (throw SpecError with `context` in the message).
std::int64_t parseInteger(std::string_view text, const std::string& context);
double parseReal(std::string_view text, const std::string& context);
/// The fields of `text` between `separator`s, empty ones included ("a;;b" -> a, "", b;
/// "" -> one empty field); views into `text`.
std::vector<std::string_view> splitFields(std::string_view text, char separator);

}  // namespace routelab
