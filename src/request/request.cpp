#include "request/request.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "request/analyze_request.h"
#include "request/compare_request.h"
#include "request/route_request.h"
#include "request/schedule_request.h"
#include "request/simulate_request.h"
#include "request/verify_request.h"

namespace routelab {

const std::vector<std::string>& requestOperations() {
  static const std::vector<std::string> operations = {"simulate", "analyze", "verify", "schedule", "route", "compare"};
  return operations;
}

const OptionSchema& requestSchema(const std::string& operation) {
  if (operation == "simulate") return simulateSchema();
  if (operation == "analyze") return analyzeSchema();
  if (operation == "verify") return verifySchema();
  if (operation == "schedule") return scheduleSchema();
  if (operation == "route") return routeSchema();
  if (operation == "compare") return compareSchema();
  std::string known;
  for (const std::string& name : requestOperations()) known += (known.empty() ? "" : ", ") + name;
  throw SpecError(fmt::format("unknown operation '{}' (known: {})", operation, known));
}

std::string snakeKey(const std::string& key) {
  std::string out = key;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

namespace {
std::string kebabKey(const std::string& key) {
  std::string out = key;
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}
}  // namespace

Options requestOptions(const std::string& operation, const KeyValues& values) {
  ComponentSpec spec;
  spec.name = operation;
  for (const auto& [key, value] : values) spec.options.emplace_back(kebabKey(key), value);
  return Options(operation, requestSchema(operation), spec);
}

void checkRequestValue(const std::string& operation, const std::string& key, const std::string& value) {
  Options options(operation, requestSchema(operation));
  options.set(kebabKey(key), value);
}

nlohmann::json optionValueJson(const OptionSpec& row, const std::string& value) {
  const std::string context = "option '" + row.key + "'";
  switch (row.type) {
    case OptionType::Integer: return parseInteger(value, context);
    case OptionType::Real: return parseReal(value, context);
    case OptionType::Flag: return value == "true" || value == "1";
    case OptionType::String:
    case OptionType::IntegerList: return value;
  }
  return value;
}

std::string optionValueText(const OptionSpec& row, const nlohmann::json& value, const std::string& context) {
  const auto wrong = [&](const char* what) {
    return SpecError(fmt::format("{}: {} must be {} (got {})", context, row.key, what, value.dump()));
  };
  switch (row.type) {
    case OptionType::Integer:
      if (!value.is_number_integer()) throw wrong("an integer");
      return value.dump();
    case OptionType::Real:
      if (!value.is_number()) throw wrong("a number");
      return value.is_number_integer() ? value.dump() : fmt::format("{}", value.get<double>());
    case OptionType::Flag:
      if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
      if (value.is_number_integer() && (value == 0 || value == 1)) return value == 1 ? "true" : "false";
      throw wrong("true or false");
    case OptionType::String:
    case OptionType::IntegerList:
      if (!value.is_string()) throw wrong("a string");
      return value.get<std::string>();
  }
  return value.dump();
}

nlohmann::json optionsToJson(const Options& options) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : options.values()) {
    for (const OptionSpec& row : options.schema()) {
      if (row.key == key) out[key] = optionValueJson(row, value);
    }
  }
  return out;
}

Options optionsFromJson(const std::string& operation, const nlohmann::json& json) {
  if (!json.is_object()) throw SpecError(fmt::format("{}: a request must be a JSON object", operation));
  const OptionSchema& schema = requestSchema(operation);
  KeyValues values;
  for (const auto& [key, value] : json.items()) {
    const std::string name = kebabKey(key);
    const auto row = std::find_if(schema.begin(), schema.end(), [&](const OptionSpec& r) { return r.key == name; });
    if (row == schema.end()) {
      values.emplace_back(name, value.dump());  // requestOptions() names the unknown key
    } else {
      values.emplace_back(name, optionValueText(*row, value, operation));
    }
  }
  return requestOptions(operation, values);
}

}  // namespace routelab
