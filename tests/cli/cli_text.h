// Helpers of the CLI tests that rebuild a command's text report from its JSON: the lines of a
// text, and a JSON number printed the way the report's format strings print it.
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace routelab::test {

/// The lines of `text`, without their '\n'.
inline std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// A JSON unsigned integer as "{}" prints it.
inline std::string unsignedText(const nlohmann::json& value) { return std::to_string(value.get<std::uint64_t>()); }

/// `value` with `digits` decimals, as "{:.Nf}" prints it.
inline std::string fixedDecimals(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

/// A JSON number as "{}" prints a double: the shortest form that reads back, without the
/// ".0" of a whole number.
inline std::string shortestNumber(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

}  // namespace routelab::test
