// OpenSM's engines collected and cached per fabric (report/opensm_collect.h), with stand-in
// tools and worker (the real ones run in the CTest label `opensm`).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "io/fabric_files.h"
#include "io/output.h"
#include "report/opensm_collect.h"
#include "test_support.h"

namespace routelab {
namespace {

namespace fs = std::filesystem;

fs::path freshDirectory(const std::string& what) {
  const fs::path dir = fs::temp_directory_path() /
                       ("routelab-" + what + "-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeExecutable(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

/// FNV-1a 64 written out from its definition (Fowler, Noll, Vo), for the key's golden value.
std::string fnvReference(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  std::ostringstream out;
  out << std::hex;
  out.width(16);
  out.fill('0');
  out << h;
  return out.str();
}

TEST(OpenSmCollect, CacheKeyIsFnvOfTheLengthPrefixedParts) {
  EXPECT_EQ(openSmCacheKey("net", "OpenSM 3.3.23", "worker"), fnvReference("3:net13:OpenSM 3.3.23"
                                                                           "6:worker"));
  // Every part counts, and where one ends matters.
  const std::set<std::string> keys = {openSmCacheKey("ab", "c", "w"), openSmCacheKey("a", "bc", "w"),
                                      openSmCacheKey("ab", "c", "x"), openSmCacheKey("ab", "d", "w"),
                                      openSmCacheKey("ac", "c", "w")};
  EXPECT_EQ(keys.size(), 5u);
  EXPECT_EQ(openSmCacheKey("ab", "c", "w"), openSmCacheKey("ab", "c", "w"));
}

TEST(OpenSmCollect, DefaultCacheFollowsXdg) {
  EXPECT_EQ(defaultOpenSmCache("/x/cache", "/home/u"), "/x/cache/routelab/opensm");
  EXPECT_EQ(defaultOpenSmCache("", "/home/u"), "/home/u/.cache/routelab/opensm");
  EXPECT_EQ(defaultOpenSmCache("relative/cache", "/home/u"), "/home/u/.cache/routelab/opensm");
  EXPECT_THROW(defaultOpenSmCache("", ""), IoError);
}

TEST(OpenSmCollect, FindsExecutablesOnPathOnly) {
  const fs::path dir = freshDirectory("opensm-path");
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  std::ofstream(dir / "a" / "tool") << "not executable\n";
  writeExecutable(dir / "b" / "tool", "#!/bin/sh\n");
  fs::create_directories(dir / "a" / "dir-tool");
  const std::string path = (dir / "a").string() + ":" + (dir / "b").string();
  EXPECT_EQ(findOnPath("tool", path), (dir / "b" / "tool").string());
  EXPECT_EQ(findOnPath("dir-tool", path), "");
  EXPECT_EQ(findOnPath("missing", path), "");
  fs::remove_all(dir);
}

TEST(OpenSmCollect, MissingToolNamesItsDebianPackage) {
  const fs::path dir = freshDirectory("opensm-tools");
  for (const OpenSmTool& tool : openSmTools()) {
    if (tool.name != "opensm") writeExecutable(dir / tool.name, "#!/bin/sh\n");
  }
  try {
    requireOpenSmTools(dir.string());
    FAIL() << "no error without opensm";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("'opensm'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Debian package opensm "), std::string::npos) << e.what();
  }
  writeExecutable(dir / "opensm", "#!/bin/sh\n");
  EXPECT_NO_THROW(requireOpenSmTools(dir.string()));
  fs::remove(dir / "saquery");
  try {
    requireOpenSmTools(dir.string());
    FAIL() << "no error without saquery";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("Debian package infiniband-diags"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

/// Stand-in tools and worker: the worker counts its runs, writes a directory as the real one
/// does (or fails with a message when $dir/fail exists).
class OpenSmCollectWorker : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDirectory("opensm-collect");
    fs::create_directories(dir_ / "bin");
    for (const OpenSmTool& tool : openSmTools()) writeExecutable(dir_ / "bin" / tool.name, "#!/bin/sh\nexit 0\n");
    writeExecutable(dir_ / "bin" / "opensm",
                    "#!/bin/sh\necho '-------------------------------------------------'\n"
                    "echo 'OpenSM 9.8.7'\n");
    const std::string d = dir_.string();
    writeExecutable(dir_ / "worker",
                    "#!/bin/bash\nset -e\necho \"$*\" >> " + d + "/runs\n" +  //
                        "[ ! -e " + d +
                        "/fail ] || { printf 'worker: step %s\\n' 0 1 2 3 >&2; echo 'worker: OpenSM did not bring the "
                        "subnet up' >&2; "
                        "exit 1; }\n" +
                        "out=${@: -1}; net=${@: -2:1}; mkdir -p \"$out\"\n" +
                        "cp \"${net#net:}\" \"$out/fabric.ibnetdiscover\"\necho '-R minhop,no_fallback' > "
                        "\"$out/minhop.options\"\necho 'worker: routed minhop'\necho\necho 'worker: done'\n");
    options_.worker = (dir_ / "worker").string();
    options_.routelab = "/bin/true";
    options_.cache = (dir_ / "cache").string();
    options_.path = (dir_ / "bin").string() + ":/usr/bin:/bin";
    options_.label = "kary-ntree:k=2,n=2";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::size_t runs() const {
    std::ifstream in(dir_ / "runs");
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  }
  std::set<std::string> cacheEntries() const {
    std::set<std::string> out;
    for (const auto& entry : fs::directory_iterator(options_.cache)) out.insert(entry.path().filename().string());
    return out;
  }
  fs::path dir_;
  OpenSmCollectOptions options_;
};

// The version is the first line of `opensm --version` that names OpenSM and holds a digit:
// neither a line with digits alone nor one naming OpenSM without a number is taken; a tool
// that prints no such line is refused by name.
TEST_F(OpenSmCollectWorker, TheVersionIsTheFirstLineNamingOpenSmWithANumber) {
  writeExecutable(dir_ / "bin" / "opensm",
                  "#!/bin/sh\necho 'built 2024-01-02'\necho 'OpenSM, the subnet manager'\necho 'OpenSM 9.8.7'\n"
                  "echo 'OpenSM 1.0'\n");
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  EXPECT_EQ(collectOpenSmEngines(fabric.network, options_).opensmVersion, "OpenSM 9.8.7");
  writeExecutable(dir_ / "bin" / "opensm", "#!/bin/sh\necho 'built 2024-01-02'\necho 'OpenSM'\n");
  EXPECT_NE(test::thrownMessage<IoError>([&] {
              collectOpenSmEngines(fabric.network, options_);
            }).find("--version' printed no OpenSM version"),
            std::string::npos);
}

TEST_F(OpenSmCollectWorker, RunsOnceThenReuses) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  std::vector<std::string> progress;
  const OpenSmCollection first =
      collectOpenSmEngines(fabric.network, options_, [&](const std::string& line) { progress.push_back(line); });
  EXPECT_FALSE(first.reused);
  EXPECT_EQ(first.opensmVersion, "OpenSM 9.8.7");
  EXPECT_EQ(first.summary, "worker: done") << "the worker's last line that is not blank, alone";
  EXPECT_EQ(first.directory, (fs::path(options_.cache) / first.key).string());
  EXPECT_EQ(runs(), 1u);
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_NE(progress[0].find(first.key), std::string::npos);
  // The worker got the fabric as an ibsim net file, labelled with the spec.
  std::ostringstream net;
  writeIbsimNet(fabric.network, net);
  EXPECT_EQ(readFileText(first.directory + "/fabric.ibnetdiscover"), net.str());
  EXPECT_NE(readFileText((dir_ / "runs").string()).find("--label kary-ntree:k=2,n=2 net:"), std::string::npos);
  EXPECT_EQ(cacheEntries(), std::set<std::string>{first.key});  // no staging directory left

  const OpenSmCollection second = collectOpenSmEngines(fabric.network, options_);
  EXPECT_TRUE(second.reused);
  EXPECT_EQ(second.directory, first.directory);
  EXPECT_EQ(runs(), 1u);

  // Another fabric, another key; another worker text, another key.
  const OpenSmCollection other = collectOpenSmEngines(loadFabric("kary-ntree:k=2,n=3").network, options_);
  EXPECT_FALSE(other.reused);
  EXPECT_NE(other.key, first.key);
  std::ofstream(options_.worker, std::ios::app) << "# changed\n";
  const OpenSmCollection changed = collectOpenSmEngines(fabric.network, options_);
  EXPECT_FALSE(changed.reused);
  EXPECT_NE(changed.key, first.key);
  EXPECT_EQ(runs(), 3u);
}

TEST_F(OpenSmCollectWorker, FailingWorkerLeavesNothing) {
  std::ofstream(dir_ / "fail") << "\n";
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  try {
    collectOpenSmEngines(fabric.network, options_);
    FAIL() << "no error from a failing worker";
  } catch (const IoError& e) {
    // The reason is the worker's last 4 lines of errors, oldest first.
    EXPECT_NE(std::string(e.what()).find(
                  ": worker: step 1; worker: step 2; worker: step 3; worker: OpenSM did not bring the subnet up"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(cacheEntries().empty());
}

// An executable whose interpreter is missing passes the PATH and worker checks but cannot be
// started: the error names the program that could not run, and the cache is left empty.
TEST_F(OpenSmCollectWorker, AProgramThatCannotStartIsNamed) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const auto message = [&] {
    try {
      collectOpenSmEngines(fabric.network, options_);
    } catch (const IoError& e) {
      return std::string(e.what());
    }
    return std::string("collected");
  };
  const std::string opensm = (dir_ / "bin" / "opensm").string();
  writeExecutable(opensm, "#!/nonexistent/interpreter\n");
  EXPECT_EQ(message(), "cannot run '" + opensm + "': No such file or directory");
  writeExecutable(opensm, "#!/bin/sh\necho 'OpenSM 9.8.7'\n");
  writeExecutable(options_.worker, "#!/nonexistent/interpreter\n");
  EXPECT_EQ(message(), "cannot run '" + options_.worker + "': No such file or directory");
  EXPECT_EQ(runs(), 0u);
  EXPECT_TRUE(!fs::exists(options_.cache) || cacheEntries().empty());
}

// The files that catch a program's output are made as a shell's `>` makes them: rw-r--r--
// less the umask, so that a user who is not root reads them back (root reads any file).
TEST_F(OpenSmCollectWorker, TheOutputFilesOfAProgramAreMadeReadWriteForTheOwnerReadableByAll) {
  writeExecutable(options_.worker,
                  "#!/bin/bash\nout=${@: -1}; mkdir -p \"$out\"; : > \"$out/fabric.ibnetdiscover\"\n"
                  "echo \"$(stat -L -c %a /proc/$$/fd/1) $(stat -L -c %a /proc/$$/fd/2)\"\n");
  const mode_t mask = ::umask(022);
  ::umask(mask);
  const std::string mode = fmt::format("{:o}", 0644 & ~mask);
  const OpenSmCollection collection = collectOpenSmEngines(loadFabric("kary-ntree:k=2,n=2").network, options_);
  EXPECT_EQ(collection.summary, mode + " " + mode) << "stdout and stderr, umask " << fmt::format("{:o}", mask);
}

TEST_F(OpenSmCollectWorker, MissingToolOrWorkerIsAnError) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  fs::remove(dir_ / "bin" / "ibsim");
  options_.path = (dir_ / "bin").string();
  EXPECT_THROW(collectOpenSmEngines(fabric.network, options_), IoError);
  writeExecutable(dir_ / "bin" / "ibsim", "#!/bin/sh\n");
  options_.worker = (dir_ / "no-worker").string();
  EXPECT_THROW(collectOpenSmEngines(fabric.network, options_), IoError);
  EXPECT_EQ(runs(), 0u);
  EXPECT_FALSE(fs::exists(options_.cache));  // checked before the cache is made
}

}  // namespace
}  // namespace routelab
