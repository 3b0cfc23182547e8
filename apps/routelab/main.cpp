// routelab — command-line interface. Thin: parses arguments, calls the library, prints.
#include <exception>
#include <iostream>
#include <string_view>

#include "cli.h"
#include "cmd_sweep.h"
#include "core/errors.h"

namespace {
constexpr const char* kVersion = "routelab 0.1.0";
}

int main(int argc, char** argv) {
  using namespace routelab;
  // `routelab --version` answers before any set-up: CLI11 reports the flag by throwing, and
  // the first exception of a process sorts the unwind tables of the whole binary (about
  // 4 ms for this one), which is most of a version query's start-up (docs/PERFORMANCE.md).
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::cout << kVersion << '\n';
    return 0;
  }
  CLI::App app{"routelab — routing, verification and analysis for HPC interconnection networks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", kVersion);
  std::vector<cli::Command> commands = {cli::topoCommand(), cli::listCommand()};
  for (auto& extra : cli::extraCommands()) commands.push_back(std::move(extra));
  for (auto& sweep : cli::sweepCommands()) commands.push_back(std::move(sweep));
  std::vector<std::pair<CLI::App*, std::function<int()>>> actions;
  for (auto& command : commands) {
    CLI::App* sub = app.add_subcommand(command.name, command.summary);
    actions.emplace_back(sub, command.setup(*sub));
  }
  // An unknown first word is named (CLI11 alone would only say "A subcommand is required").
  if (argc >= 2 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const auto& command : commands) {
      found = found || command.name == argv[1];
      known += (known.empty() ? "" : ", ") + command.name;
    }
    if (!found) {
      std::cerr << "routelab: error: unknown subcommand '" << argv[1] << "' (known: " << known << ")\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help/--version exit 0; every other argument error is a usage error (2).
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    for (auto& [sub, action] : actions) {
      if (sub->parsed()) return action();
    }
    return 2;
  } catch (const Error& e) {
    std::cerr << "routelab: error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "routelab: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "routelab: internal error: " << e.what() << '\n';
    return 3;
  }
}
