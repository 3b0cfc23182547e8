#include "core/options.h"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "core/errors.h"

namespace routelab {

std::vector<std::string_view> splitFields(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = text.find(separator, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

void parseOptionList(std::string_view body, ComponentSpec& out, std::string_view whole) {
  if (body.empty()) return;
  for (std::string_view item : splitFields(body, ',')) {
    item = trim(item);
    if (item.empty()) {
      throw SpecError(fmt::format("empty option in '{}'", whole));
    }
    const std::size_t eq = item.find('=');
    std::string key(trim(item.substr(0, eq)));
    std::string value = eq == std::string_view::npos ? "true" : std::string(trim(item.substr(eq + 1)));
    if (key.empty()) throw SpecError(fmt::format("option without a key in '{}'", whole));
    out.options.emplace_back(std::move(key), std::move(value));
  }
}

const char* typeName(OptionType type) {
  switch (type) {
    case OptionType::Integer: return "an integer";
    case OptionType::Real: return "a number";
    case OptionType::String: return "a string";
    case OptionType::Flag: return "true or false";
    case OptionType::IntegerList: return "a '.'-separated list of integers";
  }
  return "a value";
}

/// Throws SpecError "<component>: <key> must lie in [a, b] (got x)" when `value` (already
/// of the row's type) is outside the row's range.
void checkRange(const std::string& component, const OptionSpec& option, const std::string& value) {
  if (!option.bounded()) return;
  const std::string context = fmt::format("{}: option '{}'", component, option.key);
  bool inside = true;
  if (option.type == OptionType::Integer) {
    const std::int64_t v = parseInteger(value, context);
    if (!option.minimum.empty() && v < parseInteger(option.minimum, context)) inside = false;
    if (!option.maximum.empty() && v > parseInteger(option.maximum, context)) inside = false;
  } else if (option.type == OptionType::Real) {
    const double v = parseReal(value, context);
    if (!option.minimum.empty()) {
      const double low = parseReal(option.minimum, context);
      if (option.minimumExclusive ? !(v > low) : !(v >= low)) inside = false;
    }
    if (!option.maximum.empty() && !(v <= parseReal(option.maximum, context))) inside = false;
  }
  if (!inside) {
    throw SpecError(fmt::format("{}: {} must lie in {} (got {})", component, option.key, option.rangeText(), value));
  }
}

}  // namespace

std::string OptionSpec::rangeText() const {
  if (!bounded()) return "";
  return fmt::format("{}{}, {}{}", minimumExclusive ? "(" : "[", minimum.empty() ? "-inf" : minimum,
                     maximum.empty() ? "inf" : maximum, maximum.empty() ? ")" : "]");
}

std::int64_t parseInteger(std::string_view text, const std::string& context) {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw SpecError(fmt::format("{}: '{}' is not an integer", context, text));
  }
  return value;
}

double parseReal(std::string_view text, const std::string& context) {
  double value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw SpecError(fmt::format("{}: '{}' is not a number", context, text));
  }
  return value;
}

std::string ComponentSpec::str() const {
  std::string out = name;
  if (!positional.empty()) out += (options.empty() && name.find(':') == std::string::npos ? ":" : "=") + positional;
  bool first = positional.empty();
  for (const auto& [key, value] : options) {
    out += first ? ":" : ",";
    first = false;
    out += key + "=" + value;
  }
  return out;
}

std::string Spec::str() const {
  std::string out = base.str();
  for (const auto& modifier : modifiers) {
    out += "+" + modifier.name;
    if (!modifier.positional.empty()) out += "=" + modifier.positional;
    // modifier := name [ '=' value ] ( ',' option )*: options always follow a ','; a
    // leading '=' would make the first option the modifier's value.
    for (const auto& [key, value] : modifier.options) out += "," + key + "=" + value;
  }
  return out;
}

ComponentSpec parseComponentOrFile(std::string_view text) {
  if (!text.starts_with("file:")) return parseComponent(text);
  ComponentSpec spec;
  spec.name = "file";
  spec.options.emplace_back("path", std::string(text.substr(5)));
  return spec;
}

ComponentSpec parseComponent(std::string_view text) {
  text = trim(text);
  if (text.empty()) throw SpecError("empty specification");
  ComponentSpec spec;
  const std::size_t colon = text.find(':');
  spec.name = std::string(trim(text.substr(0, colon)));
  if (spec.name.empty()) throw SpecError(fmt::format("missing name in '{}'", text));
  if (colon != std::string_view::npos) parseOptionList(text.substr(colon + 1), spec, text);
  return spec;
}

Spec parseSpec(std::string_view text, const std::vector<std::string>& pathComponents) {
  text = trim(text);
  if (text.empty()) throw SpecError("empty specification");
  Spec spec;
  // The base runs to the first '+'. A path component keeps its body verbatim.
  const std::size_t colon = text.find(':');
  std::string name(trim(text.substr(0, std::min(colon, text.find('+')))));
  const bool isPath = std::find(pathComponents.begin(), pathComponents.end(), name) != pathComponents.end();
  std::string_view rest;
  std::string_view base;
  const std::size_t plus = text.find('+', isPath && colon != std::string_view::npos ? colon : 0);
  base = text.substr(0, plus);
  rest = plus == std::string_view::npos ? std::string_view{} : text.substr(plus + 1);
  if (isPath) {
    spec.base.name = name;
    if (colon == std::string_view::npos || colon + 1 >= base.size()) {
      throw SpecError(fmt::format("'{}' needs a path: {}:PATH", name, name));
    }
    spec.base.positional = std::string(trim(base.substr(colon + 1)));
    if (spec.base.positional.empty()) throw SpecError(fmt::format("'{}' needs a path: {}:PATH", name, name));
  } else {
    spec.base = parseComponent(base);
  }
  if (plus != std::string_view::npos) {
    for (std::string_view part : splitFields(rest, '+')) {
      part = trim(part);
      if (part.empty()) throw SpecError(fmt::format("empty modifier after '+' in '{}'", text));
      ComponentSpec modifier;
      const std::size_t comma = part.find(',');
      std::string_view head = part.substr(0, comma);
      const std::size_t eq = head.find('=');
      modifier.name = std::string(trim(head.substr(0, eq)));
      if (modifier.name.empty()) throw SpecError(fmt::format("modifier without a name in '{}'", text));
      if (eq != std::string_view::npos) modifier.positional = std::string(trim(head.substr(eq + 1)));
      if (comma != std::string_view::npos) parseOptionList(part.substr(comma + 1), modifier, text);
      spec.modifiers.push_back(std::move(modifier));
    }
  }
  return spec;
}

Options::Options(std::string component, const OptionSchema& schema)
    : component_(std::move(component)), schema_(schema) {
  for (const auto& option : schema_) {
    if (option.required && !option.defaultValue.empty()) {
      // A default would make the option never missing: the schema contradicts itself.
      throw std::logic_error(fmt::format("{}: option '{}' is declared required and with a default ('{}')", component_,
                                         option.key, option.defaultValue));
    }
    if (!option.defaultValue.empty()) values_[option.key] = option.defaultValue;
  }
}

Options::Options(std::string component, const OptionSchema& schema, const ComponentSpec& spec)
    : Options(std::move(component), schema) {
  positional_ = spec.positional;
  std::map<std::string, bool> seen;
  for (const auto& [key, value] : spec.options) {
    if (seen[key]) throw SpecError(fmt::format("{}: option '{}' given twice", component_, key));
    seen[key] = true;
    set(key, value);
  }
  for (const auto& option : schema_) {
    if (option.required && !values_.count(option.key)) {
      throw SpecError(fmt::format("{}: missing required option '{}' ({})", component_, option.key, option.help));
    }
  }
}

const OptionSpec& Options::specFor(const std::string& key) const {
  for (const auto& option : schema_) {
    if (option.key == key) return option;
  }
  std::string known;
  for (const auto& option : schema_) known += (known.empty() ? "" : ", ") + option.key;
  throw SpecError(fmt::format("{}: unknown option '{}' (known: {})", component_, key, known.empty() ? "none" : known));
}

void Options::set(const std::string& key, const std::string& value) {
  const OptionSpec& option = specFor(key);
  const std::string context = fmt::format("{}: option '{}'", component_, key);
  switch (option.type) {
    case OptionType::Integer: parseInteger(value, context); break;
    case OptionType::Real: parseReal(value, context); break;
    case OptionType::Flag:
      if (value != "true" && value != "false" && value != "1" && value != "0") {
        throw SpecError(fmt::format("{} must be {}, got '{}'", context, typeName(option.type), value));
      }
      break;
    case OptionType::IntegerList:
      for (auto part : splitFields(value, '.')) parseInteger(part, context);
      break;
    case OptionType::String:
      if (value.empty()) throw SpecError(fmt::format("{} is empty", context));
      if (!option.choices.empty() &&
          std::find(option.choices.begin(), option.choices.end(), value) == option.choices.end()) {
        std::string known;
        for (const std::string& choice : option.choices) known += (known.empty() ? "" : ", ") + choice;
        throw SpecError(fmt::format("{}: {} must be one of {} (got '{}')", component_, key, known, value));
      }
      break;
  }
  checkRange(component_, option, value);
  values_[key] = value;
  given_.insert(key);
}

bool Options::has(const std::string& key) const {
  specFor(key);
  return values_.count(key) != 0;
}

bool Options::given(const std::string& key) const {
  specFor(key);
  return given_.count(key) != 0;
}

namespace {
[[noreturn]] void missing(const std::string& component, const std::string& key) {
  throw SpecError(fmt::format("{}: option '{}' has no value", component, key));
}
}  // namespace

std::int64_t Options::integer(const std::string& key) const {
  specFor(key);
  auto it = values_.find(key);
  if (it == values_.end()) missing(component_, key);
  return parseInteger(it->second, component_ + ": option '" + key + "'");
}

std::int64_t Options::integerIn(const std::string& key, std::int64_t low, std::int64_t high) const {
  const std::int64_t value = integer(key);
  if (value < low || value > high) {
    throw SpecError(fmt::format("{}: option '{}' must be in [{}, {}], got {}", component_, key, low, high, value));
  }
  return value;
}

double Options::real(const std::string& key) const {
  specFor(key);
  auto it = values_.find(key);
  if (it == values_.end()) missing(component_, key);
  return parseReal(it->second, component_ + ": option '" + key + "'");
}

const std::string& Options::string(const std::string& key) const {
  specFor(key);
  auto it = values_.find(key);
  if (it == values_.end()) missing(component_, key);
  return it->second;
}

bool Options::flag(const std::string& key) const {
  specFor(key);
  auto it = values_.find(key);
  if (it == values_.end()) return false;
  return it->second == "true" || it->second == "1";
}

std::vector<std::int64_t> Options::integerList(const std::string& key) const {
  specFor(key);
  auto it = values_.find(key);
  if (it == values_.end()) missing(component_, key);
  std::vector<std::int64_t> out;
  for (auto part : splitFields(it->second, '.')) {
    out.push_back(parseInteger(part, component_ + ": option '" + key + "'"));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Options::values() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& option : schema_) {
    auto it = values_.find(option.key);
    if (it != values_.end()) out.emplace_back(option.key, it->second);
  }
  return out;
}

std::string Options::effective() const {
  std::string out = component_;
  if (!positional_.empty()) out += ":" + positional_;
  bool first = positional_.empty();
  for (const auto& [key, value] : values()) {
    out += first ? ":" : ",";
    out += key + "=" + value;
    first = false;
  }
  return out;
}

std::string Options::effectiveModifier() const {
  // A modifier's options follow a ',' (`name,k=v` or `name=positional,k=v`): `name=k=v`
  // would read back as the positional value "k=v".
  std::string out = component_;
  if (!positional_.empty()) out += "=" + positional_;
  for (const auto& [key, value] : values()) out += "," + key + "=" + value;
  return out;
}

}  // namespace routelab
