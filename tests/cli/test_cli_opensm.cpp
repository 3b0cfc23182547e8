// `routelab compare --opensm` without the real tools (docs/COMPARE.md "OpenSM's engines from
// one command"): a missing tool names its Debian package, a worker that cannot start ibsim
// gives its reason, and neither writes a report or a cache entry. The runs with OpenSM itself
// are the CTest label `opensm` (tests/interop/opensm_compare_test.sh).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace routelab {
namespace {

namespace fs = std::filesystem;

class CliOpenSm : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratchDir() / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tools");
  }
  /// A stand-in for each tool but `missing` that exits 0 (opensm --version prints a version).
  void standIns(const std::string& missing) {
    for (const char* tool : {"ibsim", "ibsim-run", "opensm", "ibnetdiscover", "saquery"}) {
      if (tool == missing) continue;
      const fs::path path = dir_ / "tools" / tool;
      std::ofstream(path) << "#!/bin/sh\necho 'OpenSM 0.0.0-stand-in'\nexit 0\n";
      fs::permissions(path, fs::perms::owner_all);
    }
  }
  /// `routelab compare --opensm` on a small tree, run with PATH = `path`.
  test::CommandResult compare(const std::string& path) const {
    return test::runCommand("PATH='" + path + "' '" + test::routelabBinary() +
                            "' compare kary-ntree:k=2,n=2 --engine dmodk --opensm --opensm-cache '" +
                            (dir_ / "cache").string() + "' --output '" + (dir_ / "report").string() + "'");
  }
  fs::path dir_;
};

TEST_F(CliOpenSm, MissingToolNamesItsPackageAndWritesNothing) {
  standIns("opensm");
  auto r = compare((dir_ / "tools").string());
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("'opensm', which is not on PATH: install the Debian package opensm"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "report"));
  EXPECT_FALSE(fs::exists(dir_ / "cache"));

  standIns("");
  fs::remove(dir_ / "tools" / "saquery");
  r = compare((dir_ / "tools").string());
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("Debian package infiniband-diags"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "report"));
}

TEST_F(CliOpenSm, WorkerFailureIsAnErrorWithItsReason) {
  // The stand-in ibsim exits at once: the worker (bin/routelab-opensm-engines) reports that
  // ibsim did not start.
  standIns("");
  const auto r = compare((dir_ / "tools").string() + ":/usr/bin:/bin");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("OpenSM's engines could not be collected on this fabric"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ibsim did not start"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "report"));
  ASSERT_TRUE(fs::is_directory(dir_ / "cache"));
  EXPECT_TRUE(fs::is_empty(dir_ / "cache"));  // no entry, no staging directory
}

TEST_F(CliOpenSm, OptionsAreUsageChecked) {
  auto r = test::runRoutelab("compare --opensm-cache '" + dir_.string() + "' --output '" + dir_.string() + "'");
  EXPECT_EQ(r.exitCode, 2) << r.err;  // --opensm-cache needs --opensm
  r = test::runRoutelab("compare --opensm --opensm-dir '" + dir_.string() + "' --output '" + dir_.string() + "'");
  EXPECT_EQ(r.exitCode, 2) << r.err;  // one source of OpenSM routings
}

}  // namespace
}  // namespace routelab
