// routelab CLI — shared pieces of the subcommands. Only the CLI prints and chooses exit
// codes: 0 success, 1 a failure of the input or of the requested computation (typed
// routelab::Error), 2 a usage error, 3 an internal error (a bug: please report).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace routelab::cli {

enum class OutputFormat { Text, Json };

/// Adds `--format text|json` to a subcommand.
inline void addFormatOption(CLI::App& command, OutputFormat& format) {
  command.add_option("--format", format, "output format")
      ->transform(CLI::CheckedTransformer(std::map<std::string, OutputFormat>{{"text", OutputFormat::Text},
                                                                             {"json", OutputFormat::Json}},
                                          CLI::ignore_case))
      ->option_text("text|json (default: text)");
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
Command verifyCommand();  // cmd_verify.cpp
Command analyzeCommand();  // cmd_analyze.cpp
Command routeCommand();  // cmd_route.cpp
Command scheduleCommand();  // cmd_schedule.cpp
std::vector<Command> extraCommands();  // commands contributed by later modules

}  // namespace routelab::cli
