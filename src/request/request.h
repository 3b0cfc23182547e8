// routelab/request/request.h — one request per operation: its options declared once
// (core/options.h rows with defaults, ranges, help and paper reference), validated once,
// read from and written to JSON here. Every front end is generated from the same rows:
//   * the CLI: flag `--<key>` (apps/routelab/cli_schema.h), help with default and range;
//   * sweep files: key `<key>` with '-' replaced by '_' (sweep/point_kinds.cpp);
//   * Python: keyword `<key>` with '-' replaced by '_'.
// The operations' requests: request/simulate_request.h, request/analyze_request.h,
// request/verify_request.h, request/schedule_request.h, request/route_request.h,
// request/compare_request.h.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "core/options.h"

namespace routelab {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

/// The operations that have a request ("simulate", "analyze", "verify", "schedule",
/// "route", "compare").
const std::vector<std::string>& requestOperations();

/// The rows of `operation`'s request; SpecError listing the operations otherwise.
const OptionSchema& requestSchema(const std::string& operation);

/// Options of `operation` from key/value strings spelled like the CLI flags without "--"
/// ("packet-flits", "8"); the keys may also use '_' for '-' (sweep and Python spelling).
/// Validated: SpecError "<operation>: unknown option 'k' (known: ...)", "<operation>: <key>
/// must lie in [a, b] (got x)", missing required options, malformed values, repeated keys.
Options requestOptions(const std::string& operation, const KeyValues& values);

/// One value checked against its row alone, as requestOptions() checks it (type, choices,
/// range): SpecError with requestOptions()'s message. What a front end calls when each value
/// arrives on its own (the CLI checks every flag while parsing).
void checkRequestValue(const std::string& operation, const std::string& key, const std::string& value);

/// The key as a sweep file and Python spell it: '-' replaced by '_'.
std::string snakeKey(const std::string& key);

/// The options as JSON: every value that is set (defaults included), keyed by the schema's
/// key; integers and reals as numbers, flags as booleans, strings as strings.
nlohmann::json optionsToJson(const Options& options);
/// The inverse of optionsToJson (keys in either spelling; missing keys take their
/// defaults), validated as requestOptions(). SpecError for a non-object or a value of the
/// wrong JSON type.
Options optionsFromJson(const std::string& operation, const nlohmann::json& json);

/// One value as JSON under its row's type ("8" -> 8, "true" -> true).
nlohmann::json optionValueJson(const OptionSpec& row, const std::string& value);
/// A JSON scalar back to the option's text (8 -> "8", true -> "true", 0.5 -> "0.5").
std::string optionValueText(const OptionSpec& row, const nlohmann::json& value, const std::string& context);

}  // namespace routelab
