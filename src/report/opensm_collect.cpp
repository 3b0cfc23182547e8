#include "report/opensm_collect.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/hash.h"
#include "io/fabric_files.h"
#include "io/output.h"

extern char** environ;

namespace routelab {

namespace {

namespace fs = std::filesystem;

/// The environment of this process with `overrides` ("NAME=value") replacing or adding.
std::vector<std::string> environmentWith(const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const std::string& o : overrides) replaced = replaced || o.substr(0, o.find('=')) == name;
    if (!replaced) out.push_back(entry);
  }
  out.insert(out.end(), overrides.begin(), overrides.end());
  return out;
}

/// Runs `argv` (argv[0] a path) with `environment`, stdout and stderr into the given files,
/// and waits. Returns the exit status (128 + signal when killed). Throws IoError when it
/// cannot be started.
int runProcess(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
               const std::string& stdoutFile, const std::string& stderrFile) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdoutFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (const std::string& e : environment) env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw IoError(fmt::format("cannot run '{}': {}", argv[0], std::strerror(error)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw IoError(fmt::format("waiting for '{}': {}", argv[0], std::strerror(errno)));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string readIfThere(const std::string& path) {
  std::error_code error;
  return fs::exists(path, error) ? readFileText(path) : std::string();
}

/// The last `count` non-empty lines of `text`, joined by "; ".
std::string lastLines(const std::string& text, std::size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  std::string out;
  for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) {
    out += (out.empty() ? "" : "; ") + lines[i];
  }
  return out;
}

/// Removes a directory tree on scope exit unless released.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(std::string path) : path_(std::move(path)) {}
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string opensmVersionText(const std::string& opensm, const std::vector<std::string>& environment,
                              const std::string& scratch) {
  const std::string outFile = scratch + "/opensm-version.txt";
  runProcess({opensm, "--version"}, environment, outFile, scratch + "/opensm-version.err");
  std::istringstream in(readFileText(outFile));
  for (std::string line; std::getline(in, line);) {
    if (line.find("OpenSM") != std::string::npos && line.find_first_of("0123456789") != std::string::npos) return line;
  }
  throw IoError(fmt::format("'{} --version' printed no OpenSM version", opensm));
}

}  // namespace

const std::vector<OpenSmTool>& openSmTools() {
  static const std::vector<OpenSmTool> tools = {{"ibsim", "ibsim-utils"},
                                                {"ibsim-run", "ibsim-utils"},
                                                {"opensm", "opensm"},
                                                {"ibnetdiscover", "infiniband-diags"},
                                                {"saquery", "infiniband-diags"}};
  return tools;
}

std::string findOnPath(const std::string& name, const std::string& path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const std::string directory = end > start ? path.substr(start, end - start) : ".";
    const std::string candidate = directory + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return {};
}

void requireOpenSmTools(const std::string& path) {
  for (const OpenSmTool& tool : openSmTools()) {
    if (!findOnPath(tool.name, path).empty()) continue;
    throw IoError(
        fmt::format("OpenSM's engines need '{}', which is not on PATH: install the Debian package {} "
                    "(all the tools: apt-get install opensm ibsim-utils infiniband-diags)",
                    tool.name, tool.package));
  }
}

std::string defaultOpenSmCache(const std::string& xdgCacheHome, const std::string& home) {
  if (!xdgCacheHome.empty() && xdgCacheHome.front() == '/') return xdgCacheHome + "/routelab/opensm";
  if (!home.empty()) return home + "/.cache/routelab/opensm";
  throw IoError("no cache directory for OpenSM's engines: neither XDG_CACHE_HOME nor HOME is set (--opensm-cache DIR)");
}

std::string openSmCacheKey(const std::string& netText, const std::string& opensmVersion,
                           const std::string& workerText) {
  std::uint64_t hash = kFnv1a64Offset;
  // Each part with its length first, so that no two different triples hash the same text.
  for (const std::string* part : {&netText, &opensmVersion, &workerText}) {
    hash = fnv1a64(std::to_string(part->size()) + ":", hash);
    hash = fnv1a64(*part, hash);
  }
  return fmt::format("{:016x}", hash);
}

OpenSmCollection collectOpenSmEngines(const Network& network, const OpenSmCollectOptions& options,
                                      const std::function<void(const std::string&)>& progress) {
  requireOpenSmTools(options.path);
  std::error_code error;
  if (!fs::is_regular_file(options.worker, error) || ::access(options.worker.c_str(), X_OK) != 0) {
    throw IoError(
        fmt::format("the OpenSM worker '{}' is missing or not executable (it is installed beside the "
                    "routelab binary by the build)",
                    options.worker));
  }
  fs::create_directories(options.cache, error);
  if (error || !fs::is_directory(options.cache) || ::access(options.cache.c_str(), W_OK) != 0) {
    throw IoError(fmt::format("OpenSM cache '{}': cannot create or write this directory{}", options.cache,
                              error ? " (" + error.message() + ")" : ""));
  }
  std::string stagingTemplate = options.cache + "/.staging-XXXXXX";
  if (::mkdtemp(stagingTemplate.data()) == nullptr) {
    throw IoError(
        fmt::format("OpenSM cache '{}': cannot create a staging directory: {}", options.cache, std::strerror(errno)));
  }
  const ScratchDirectory staging(stagingTemplate);
  std::vector<std::string> overrides = {"PATH=" + options.path};
  if (!options.temporary.empty()) overrides.push_back("TMPDIR=" + options.temporary);
  const std::vector<std::string> environment = environmentWith(overrides);

  std::ostringstream net;
  writeIbsimNet(network, net);
  const std::string workerText =
      readFileText(options.worker) + readIfThere((fs::path(options.worker).parent_path() / "opensm_lib.sh").string());
  OpenSmCollection out;
  out.opensmVersion = opensmVersionText(findOnPath("opensm", options.path), environment, staging.path());
  out.key = openSmCacheKey(net.str(), out.opensmVersion, workerText);
  out.directory = (fs::path(options.cache) / out.key).string();
  if (fs::exists(fs::path(out.directory) / "fabric.ibnetdiscover", error)) {
    out.reused = true;
    return out;
  }

  const std::string netFile = staging.path() + "/topology.net";
  writeFileAtomically(netFile, [&](std::ostream& file) { file << net.str(); });
  const std::string result = staging.path() + "/" + out.key;
  if (progress)
    progress(fmt::format("opensm: running {} engines under ibsim (cache key {})", out.opensmVersion, out.key));
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> argv = {options.worker, "--routelab", options.routelab};
  if (!options.label.empty()) argv.insert(argv.end(), {"--label", options.label});
  argv.insert(argv.end(), {"net:" + netFile, result});
  const int status = runProcess(argv, environment, staging.path() + "/worker.out", staging.path() + "/worker.err");
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status != 0) {
    const std::string reason = lastLines(readIfThere(staging.path() + "/worker.err"), 4);
    throw IoError(fmt::format("OpenSM's engines could not be collected on this fabric (worker exit {}): {}", status,
                              reason.empty() ? "no message" : reason));
  }
  out.summary = lastLines(readIfThere(staging.path() + "/worker.out"), 1);
  fs::rename(result, out.directory, error);
  if (error && !fs::exists(fs::path(out.directory) / "fabric.ibnetdiscover")) {
    throw IoError(fmt::format("OpenSM cache: cannot move the collection to '{}': {}", out.directory, error.message()));
  }
  return out;  // (a concurrent collection of the same key that got there first is as good)
}

}  // namespace routelab
