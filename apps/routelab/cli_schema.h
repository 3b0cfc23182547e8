// routelab CLI — a subcommand's request flags generated from the library's rows
// (request/request.h): one CLI11 option per OptionSpec row of requestSchema(operation), so
// the CLI, the sweep files and Python accept the same keys, defaults and ranges.
//
//   * the row `fabric` is the positional SPEC; every other row is `--<key>`;
//   * a Flag row is a CLI11 flag, every other row takes one value; a Flag row without a
//     default is three-state: `--<key>` true, `--no-<key>` false, neither: absent (the
//     operation decides, e.g. compare's `simulate`);
//   * a row listed in `repeatable` (compare's `engines`) may be given several times: its
//     values are joined with the row's separator into the one value of the request;
//   * the help text is the row's help, its default (not for flags: they are off unless
//     given), range and reference;
//   * each value is checked by the library while parsing (checkRequestValue: type, choices,
//     range), so a bad value is a usage error (exit 2) with the library's message;
//   * the flags given are collected as key/value pairs for requestOptions() (the
//     operation's Request::fromValues), which validates them together.
// The generated options form the option group kRequestGroup; a subcommand's other options
// (--format, --export-*) choose how the result is written and are not part of the request.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/options.h"
#include "request/request.h"

namespace routelab::cli {

/// The option group of the generated options (`--help` lists them under this title).
inline const char* const kRequestGroup = "Request options";
/// The row that is the positional argument, and its name in `--help`.
inline const char* const kPositionalKey = "fabric";
inline const char* const kPositionalName = "spec";

/// The key/value pairs given on the command line, in order, for requestOptions().
struct RequestFlags {
  std::string operation;
  KeyValues values;
};

/// The help text of a row: its help, then "(range R)" where bounded and the row's reference.
/// CLI11 shows the default (`--load REAL=0.1`) and REQUIRED itself.
inline std::string requestFlagHelp(const OptionSpec& row) {
  std::string help = row.help;
  if (row.bounded()) help += " (range " + row.rangeText() + ")";
  if (!row.reference.empty()) help += " [" + row.reference + "]";
  return help;
}

/// The value's name in `--help`.
inline const char* requestTypeName(OptionType type) {
  switch (type) {
    case OptionType::Integer: return "INT";
    case OptionType::Real: return "REAL";
    case OptionType::IntegerList: return "LIST";
    case OptionType::String:
    case OptionType::Flag: break;
  }
  return "TEXT";
}

/// The request key of a generated option: the positional is kPositionalKey, `--key` is key.
inline std::string requestKeyOf(const CLI::Option& option) {
  if (option.get_positional()) return kPositionalKey;
  return option.get_lnames().empty() ? option.get_name() : option.get_lnames().front();
}

/// Adds one option per row of requestSchema(flags.operation) to `command` (see the file
/// comment). `aliases` gives a key further flag names ({"traffic", "--pattern"});
/// `repeatable` the keys that may be given several times, with the separator joining them.
inline void addRequestOptions(CLI::App& command, RequestFlags& flags,
                              const std::map<std::string, std::string>& aliases = {},
                              const std::map<std::string, char>& repeatable = {}) {
  const std::string operation = flags.operation;
  for (const OptionSpec& row : requestSchema(operation)) {
    const std::string key = row.key;
    std::string names = key == kPositionalKey ? std::string(kPositionalName) : "--" + key;
    if (const auto alias = aliases.find(key); alias != aliases.end()) names += "," + alias->second;
    CLI::Option* option = nullptr;
    if (row.type == OptionType::Flag) {
      if (row.defaultValue.empty()) names += ",!--no-" + key;
      option = command.add_flag_function(
          names, [&flags, key](std::int64_t count) { flags.values.emplace_back(key, count > 0 ? "true" : "false"); },
          requestFlagHelp(row));
    } else if (const auto list = repeatable.find(key); list != repeatable.end()) {
      option = command.add_option_function<std::vector<std::string>>(
          names,
          [&flags, key, separator = list->second](const std::vector<std::string>& values) {
            std::string joined;
            for (const std::string& value : values) joined += (joined.empty() ? "" : std::string(1, separator)) + value;
            flags.values.emplace_back(key, joined);
          },
          requestFlagHelp(row) + " (repeatable)");
    } else {
      option = command.add_option_function<std::string>(
          names, [&flags, key](const std::string& value) { flags.values.emplace_back(key, value); },
          requestFlagHelp(row));
      option->check(CLI::Validator(
          [operation, key](std::string& value) -> std::string {
            try {
              checkRequestValue(operation, key, value);
            } catch (const SpecError& e) {
              return e.what();
            }
            return {};
          },
          "", key));
      option->type_name(requestTypeName(row.type));
      if (!row.defaultValue.empty()) option->default_str(row.defaultValue);
    }
    option->group(kRequestGroup);
    if (row.required) option->required();
  }
}

}  // namespace routelab::cli
