// Helpers shared by the tests: where the fixtures are, running the CLI.
#pragma once

#include <filesystem>
#include <string>
#include <utility>

namespace routelab::test {

/// The repository root (env ROUTELAB_SOURCE_DIR, else the configure-time path).
std::string sourceDir();
/// tests/data/opensm of the repository (real OpenSM/ibsim output, tests/data/opensm/README.md).
std::string fixturesDir();
/// Path of the built routelab CLI (env ROUTELAB_BINARY).
std::string routelabBinary();
/// A folder of this test process's own in the system's temporary folder (routelab-test-<pid>),
/// created empty on first use and removed, with everything in it, when the process exits:
/// tests write their scratch files there and leave nothing behind.
const std::filesystem::path& scratchDir();

struct CommandResult {
  int exitCode = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};
/// Run `routelab <arguments>` (arguments are passed to /bin/sh, quote accordingly).
CommandResult runRoutelab(const std::string& arguments);
/// Run a /bin/sh command line (stdin from /dev/null), capturing stdout and stderr.
CommandResult runCommand(const std::string& command);

/// The message of the `Thrown` that `action()` throws, or `otherwise` when it returns normally.
/// Any other exception propagates: a different kind of failure is the test's failure, not an answer.
template <typename Thrown, typename Action>
std::string thrownMessage(Action&& action, const std::string& otherwise = "") {
  try {
    std::forward<Action>(action)();
  } catch (const Thrown& error) {
    return error.what();
  }
  return otherwise;
}

}  // namespace routelab::test
