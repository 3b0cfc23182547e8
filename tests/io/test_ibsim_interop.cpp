// Interoperability with the real tools (Debian ibsim-utils, infiniband-diags, opensm):
// net files routelab writes are loaded by ibsim, discovered back by ibnetdiscover into the
// same fabric, and brought up by OpenSM. Skipped only when the tools are not installed.
// Every process runs under `timeout`, is started with its own IBSIM_SOCKNAME and is
// stopped by its PID (SIGTERM, then SIGKILL), so a failing test cannot leave it behind.
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fabric/fabric.h"
#include "io/fabric_files.h"
#include "io/output.h"
#include "topology/compare.h"

extern char** environ;

using namespace routelab;
namespace fs = std::filesystem;

namespace {

/// Absolute path of `name` in PATH or the sbin directories (ibnetdiscover lives in
/// /usr/sbin, often not in a user's PATH); empty if absent.
std::string findProgram(const std::string& name) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  std::stringstream directories(path);
  std::string directory;
  while (std::getline(directories, directory, ':')) {
    if (directory.empty()) continue;
    const std::string candidate = directory + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Polls `done` every 50 ms for at most `seconds`.
bool waitFor(const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

/// A child process with stdin from /dev/null and stdout+stderr into `log`; stopped (by
/// PID) when destroyed.
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& arguments, const std::vector<std::string>& extraEnvironment,
               const fs::path& log) {
    std::vector<std::string> environment(extraEnvironment);
    for (char** entry = environ; *entry; ++entry) environment.emplace_back(*entry);
    std::vector<char*> argv, envp;
    for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    for (const auto& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (posix_spawnp(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() { stop(); }

  bool started() const { return pid_ > 0; }
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    return true;
  }
  void stop() {
    if (!running()) return;
    ::kill(pid_, SIGTERM);
    if (!waitFor([this] { return !running(); }, 5.0)) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_ = -1;
};

struct Tools {
  std::string ibsim, ibsimRun, ibnetdiscover, opensm;
  bool complete() const { return !ibsim.empty() && !ibsimRun.empty() && !ibnetdiscover.empty(); }
};

Tools findTools() {
  return {findProgram("ibsim"), findProgram("ibsim-run"), findProgram("ibnetdiscover"), findProgram("opensm")};
}

/// A scratch directory and a unique ibsim socket name for one test.
class Workspace {
 public:
  Workspace() {
    static int counter = 0;
    const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(counter++);
    directory_ = fs::temp_directory_path() / ("routelab-ibsim-" + tag);
    fs::create_directories(directory_);
    socket_ = "routelab_" + tag;
  }
  ~Workspace() {
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }
  const fs::path& directory() const { return directory_; }
  std::string socketVariable() const { return "IBSIM_SOCKNAME=" + socket_; }

 private:
  fs::path directory_;
  std::string socket_;
};

/// Starts ibsim on `net` and waits until it is ready ("Network simulator ready").
std::unique_ptr<ChildProcess> startIbsim(const Tools& tools, const Workspace& workspace, const fs::path& net,
                                         const fs::path& log) {
  auto ibsim =
      std::make_unique<ChildProcess>(std::vector<std::string>{"timeout", "120", tools.ibsim, "-s", "-n", net.string()},
                                     std::vector<std::string>{workspace.socketVariable()}, log);
  if (!ibsim->started()) return nullptr;
  const bool ready = waitFor(
      [&] { return slurp(log).find("Network simulator ready") != std::string::npos || !ibsim->running(); }, 20.0);
  if (!ready || !ibsim->running()) return nullptr;
  return ibsim;
}

/// The fabric file and ibsim's log in a workspace (simulateFabric).
fs::path netFileOf(const Workspace& workspace) { return workspace.directory() / "fabric.net"; }
fs::path ibsimLogOf(const Workspace& workspace) { return workspace.directory() / "ibsim.out"; }

/// Writes `network` as our net file netFileOf(workspace) and starts ibsim on it, logging to
/// ibsimLogOf(workspace); null if ibsim did not come up.
std::unique_ptr<ChildProcess> simulateFabric(const Tools& tools, const Workspace& workspace, const Network& network) {
  writeFileAtomically(netFileOf(workspace).string(), [&](std::ostream& out) { writeIbsimNet(network, out); });
  return startIbsim(tools, workspace, netFileOf(workspace), ibsimLogOf(workspace));
}

/// ibsim's warnings other than the harmless ones it prints for files without the
/// "lid N 4xSDR" tails of real ibnetdiscover output (see the fixtures README).
std::vector<std::string> unexpectedIbsimMessages(const std::string& log) {
  std::vector<std::string> out;
  std::stringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    const bool warning = line.find("ibwarn") != std::string::npos || line.find("fatal") != std::string::npos ||
                         line.find("panic") != std::string::npos;
    const bool harmless = line.find("cannot parse remote lid and connection type") != std::string::npos ||
                          line.find("encode_trap128") != std::string::npos ||
                          line.find("connect_ports") != std::string::npos;
    if (warning && !harmless) out.push_back(line);
  }
  return out;
}

std::size_t countLines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

// The tools come with scripts/setup.sh (scripts/apt-packages.txt). Where it installed them
// (and so in CI) it sets ROUTELAB_REQUIRE_INTEROP_TOOLS=1 and a missing tool fails the test;
// elsewhere (a developer's machine without OpenSM) the test is skipped and says why.
bool interopToolsRequired() {
  const char* value = std::getenv("ROUTELAB_REQUIRE_INTEROP_TOOLS");
  return value != nullptr && std::string(value) == "1";
}
#define ROUTELAB_NEED_TOOLS(condition, what)                                                       \
  do {                                                                                             \
    if (!(condition)) {                                                                            \
      if (interopToolsRequired()) FAIL() << what << " missing (ROUTELAB_REQUIRE_INTEROP_TOOLS=1)"; \
      GTEST_SKIP() << what << " not installed (scripts/setup.sh installs them)";                   \
    }                                                                                              \
  } while (false)

class IbsimInterop : public ::testing::TestWithParam<const char*> {};

TEST_P(IbsimInterop, IbsimLoadsOurNetFileAndIbnetdiscoverGivesItBack) {
  const Tools tools = findTools();
  ROUTELAB_NEED_TOOLS(tools.complete(), "ibsim-utils / infiniband-diags");
  const Network network = loadFabric(GetParam()).network;
  const Workspace workspace;
  const auto ibsim = simulateFabric(tools, workspace, network);
  ASSERT_NE(ibsim, nullptr) << "ibsim did not start:\n" << slurp(ibsimLogOf(workspace));
  const fs::path net = netFileOf(workspace);
  const std::string log = slurp(ibsimLogOf(workspace));
  // ibsim parsed the whole file ...
  EXPECT_NE(log.find(net.string() + ": parsed " + std::to_string(countLines(slurp(net))) + " lines"), std::string::npos)
      << log;
  // ... without complaint.
  EXPECT_TRUE(unexpectedIbsimMessages(log).empty()) << log;

  // ibnetdiscover through the simulator sees every node and every cable, on the same
  // ports, with the GUIDs our file asked for.
  const fs::path discovered = workspace.directory() / "ibnetdiscover.txt";
  const fs::path discoverErrors = workspace.directory() / "ibnetdiscover.err";
  const std::string command = workspace.socketVariable() + " timeout 60 '" + tools.ibsimRun + "' '" +
                              tools.ibnetdiscover + "' > '" + discovered.string() + "' 2> '" + discoverErrors.string() +
                              "' < /dev/null";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << slurp(discoverErrors);
  const Network back = readFabricFile(discovered.string(), FabricFormat::Ibnetdiscover);
  CompareOptions options;
  options.compareGuids = true;
  options.compareOrder = true;
  const auto differences = networkDifferences(back, network, options);
  std::string report;
  for (const auto& line : differences) report += line + "\n";
  EXPECT_EQ(report, "");
}

INSTANTIATE_TEST_SUITE_P(Fabrics, IbsimInterop,
                         ::testing::Values("kary-ntree:k=4,n=3", "gft2:n=3,m=2,r=5",
                                           "random:switches=8,links=12,terminals=2,radix=8,seed=5"));

TEST(OpenSmInterop, MinhopBringsOurKaryNtreeUp) {
  const Tools tools = findTools();
  ROUTELAB_NEED_TOOLS(tools.complete() && !tools.opensm.empty(), "ibsim-utils / opensm");
  const Network network = loadFabric("kary-ntree:k=4,n=2").network;
  const Workspace workspace;
  const auto ibsim = simulateFabric(tools, workspace, network);
  ASSERT_NE(ibsim, nullptr) << "ibsim did not start:\n" << slurp(ibsimLogOf(workspace));

  const fs::path osmLog = workspace.directory() / "osm.log";
  const std::string directory = workspace.directory().string();
  ChildProcess opensm(
      {"timeout", "60", tools.ibsimRun, tools.opensm, "-R", "minhop", "-s", "0", "-e", "-f", osmLog.string(), "-d2"},
      {workspace.socketVariable(), "OSM_CACHE_DIR=" + directory, "OSM_TMP_DIR=" + directory},
      workspace.directory() / "osm.stdout");
  ASSERT_TRUE(opensm.started());
  const bool up =
      waitFor([&] { return slurp(osmLog).find("SUBNET UP") != std::string::npos || !opensm.running(); }, 30.0);
  const std::string log = slurp(osmLog);
  opensm.stop();
  EXPECT_TRUE(up) << log;
  EXPECT_NE(log.find("SUBNET UP"), std::string::npos) << log;
  EXPECT_NE(log.find("minhop tables configured on all switches"), std::string::npos) << log;
}
