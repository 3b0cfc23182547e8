#include "test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace routelab::test {

std::string sourceDir() {
  if (const char* env = std::getenv("ROUTELAB_SOURCE_DIR")) return env;
  return ROUTELAB_SOURCE_DIR_DEFAULT;
}

std::string fixturesDir() { return sourceDir() + "/tests/data/opensm"; }

std::string routelabBinary() {
  if (const char* env = std::getenv("ROUTELAB_BINARY")) return env;
  return ROUTELAB_BINARY_DEFAULT;
}

namespace {
struct Scratch {
  pid_t owner = ::getpid();  // a forked child leaves its parent's folder alone
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("routelab-test-" + std::to_string(owner));
  Scratch() {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (::getpid() != owner) return;
    std::error_code ignored;  // (a test may have left a file it made unreadable: removed all the same)
    std::filesystem::remove_all(path, ignored);
  }
};
}  // namespace

const std::filesystem::path& scratchDir() {
  static const Scratch scratch;
  return scratch.path;
}

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

static CommandResult execute(const std::string& command) {
  char outName[] = "/tmp/routelab-test-out-XXXXXX";
  char errName[] = "/tmp/routelab-test-err-XXXXXX";
  const int outFd = mkstemp(outName);
  const int errFd = mkstemp(errName);
  close(outFd);
  close(errFd);
  const std::string line = command + " >" + outName + " 2>" + errName + " </dev/null";
  const int status = std::system(line.c_str());
  CommandResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(outName);
  result.err = slurp(errName);
  std::remove(outName);
  std::remove(errName);
  return result;
}

CommandResult runRoutelab(const std::string& arguments) { return execute("'" + routelabBinary() + "' " + arguments); }

CommandResult runCommand(const std::string& command) { return execute("(" + command + ")"); }

}  // namespace routelab::test
