// Subcommands contributed by later modules; each adds one line here.
#include "cli.h"

namespace routelab::cli {

std::vector<Command> extraCommands() {
  return {
      routeCommand(), verifyCommand(), analyzeCommand(), scheduleCommand(), simulateCommand(), compareCommand(),
  };
}

}  // namespace routelab::cli
