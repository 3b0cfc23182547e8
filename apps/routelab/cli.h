// routelab CLI — shared pieces of the subcommands. Only the CLI prints and chooses exit
// codes: 0 success, 1 a failure of the input or of the requested computation (typed
// routelab::Error), 2 a usage error, 3 an internal error (a bug: please report).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "io/output.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace routelab::cli {

enum class OutputFormat { Text, Json };

/// Adds `--format text|json` to a subcommand.
inline void addFormatOption(CLI::App& command, OutputFormat& format) {
  command.add_option("--format", format, "output format")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, OutputFormat>{{"text", OutputFormat::Text}, {"json", OutputFormat::Json}},
          CLI::ignore_case))
      ->option_text("text|json (default: text)");
}

/// Unsigned decimal integers in [low, high] only. CLI11 2.1 converts an out-of-range value
/// of an unsigned option to its maximum and a negative one (`--seed -1`) to a huge number
/// without a word; this check runs on the text first, so both are usage errors (exit 2).
inline CLI::Validator unsignedDecimal(std::uint64_t low = 0,
                                      std::uint64_t high = std::numeric_limits<std::uint64_t>::max()) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || text[0] == '-' || text[0] == '+' || error == std::errc::invalid_argument || ptr != end) {
          return "'" + text + "' is not an unsigned decimal integer";
        }
        if (error == std::errc::result_out_of_range || value < low || value > high) {
          return "'" + text + "' is out of range " + std::to_string(low) + ".." + std::to_string(high);
        }
        return {};
      },
      "UINT");
}

/// `--export KIND FILE` options take pairs; a KIND without its FILE is a usage error.
inline void requireExportPairs(CLI::App& command, const std::vector<std::string>& exports) {
  command.parse_complete_callback([&exports] {
    if (exports.size() % 2 != 0) {
      throw CLI::ValidationError("--export", "needs KIND FILE pairs; '" + exports.back() + "' has no FILE");
    }
  });
}

/// The KIND FILE pairs of an `--export` option as the library's export requests.
inline std::vector<ExportFile> exportFiles(const std::vector<std::string>& pairs) {
  std::vector<ExportFile> out;
  for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) out.push_back({pairs[i], pairs[i + 1]});
  return out;
}

/// Throws SpecError "--export: unknown <noun> 'KIND' (a, b, ...)" for the first KIND of the
/// KIND FILE pairs in `exports` that is not one of `kinds`; call it before writing anything.
inline void requireExportKinds(const std::vector<std::string>& exports, const std::vector<std::string>& kinds,
                               const std::string& noun) {
  for (std::size_t i = 0; i + 1 < exports.size(); i += 2) {
    if (std::find(kinds.begin(), kinds.end(), exports[i]) != kinds.end()) continue;
    std::string known;
    for (const std::string& kind : kinds) known += (known.empty() ? "" : ", ") + kind;
    throw SpecError("--export: unknown " + noun + " '" + exports[i] + "' (" + known + ")");
  }
}

/// Prints JSON with a trailing newline.
inline void printJson(const nlohmann::json& value) { std::cout << value.dump(2) << '\n'; }

/// A subcommand: `setup` declares its options on the CLI11 subcommand and returns the
/// action to run when it was selected.
struct Command {
  std::string name;
  std::string summary;
  std::function<std::function<int()>(CLI::App&)> setup;
};

// One function per subcommand file.
Command topoCommand();
Command listCommand();
Command verifyCommand();               // cmd_verify.cpp
Command analyzeCommand();              // cmd_analyze.cpp
Command routeCommand();                // cmd_route.cpp
Command scheduleCommand();             // cmd_schedule.cpp
Command simulateCommand();             // cmd_simulate.cpp
Command compareCommand();              // cmd_compare.cpp
std::vector<Command> extraCommands();  // commands contributed by later modules

}  // namespace routelab::cli
