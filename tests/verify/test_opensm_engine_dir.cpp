// OpenSM engine directories (io/opensm_engine_dir.h, docs/FORMATS.md): the committed
// tests/data/opensm/engine_dirs/{k4n3,rnd16_s1} (links to the real OpenSM 3.3.23 fixtures of
// those fabrics, plus OpenSM's ftree refusal on rnd16_s1) read back with the tables, SLs and
// LIDs of OpenSM's runs, and verify as expected: every engine passes on the fat-tree; on
// the random fabric minhop is deadlock-prone, LASH passes only with its SLs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "io/lft_dump.h"
#include "io/opensm_engine_dir.h"
#include "test_support.h"
#include "verify/verify.h"

using namespace routelab;
namespace fs = std::filesystem;

namespace {

std::string engineDir(const std::string& name) { return test::fixturesDir() + "/engine_dirs/" + name; }

Fabric dirFabric(const std::string& dir) { return loadFabric("ibnetdiscover:" + dir + "/fabric.ibnetdiscover"); }

std::vector<std::string> namesOf(const std::vector<OpensmEngineRun>& runs) {
  std::vector<std::string> out;
  for (const auto& run : runs) out.push_back(run.engine);
  return out;
}

/// A scratch directory, removed at the end of the test.
struct Scratch {
  fs::path path;
  explicit Scratch(const std::string& name) : path(fs::path(::testing::TempDir()) / name) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() { fs::remove_all(path); }
  void write(const std::string& file, const std::string& text) const { std::ofstream(path / file) << text; }
  void copy(const std::string& from, const std::string& file) const { fs::copy_file(from, path / file); }
};

}  // namespace

TEST(OpensmEngineDir, K4n3EveryEngineReadsAndVerifies) {
  const std::string dir = engineDir("k4n3");
  const Fabric fabric = dirFabric(dir);
  const auto runs = readOpensmEngineDir(dir, fabric.network, fabric.lids);
  EXPECT_EQ(namesOf(runs), opensmEngineNames());
  for (const auto& run : runs) {
    ASSERT_FALSE(run.refused()) << run.engine;
    const RoutingResult& routing = *run.routing;
    EXPECT_EQ(routing.addresses.count(), 112u) << run.engine;  // 64 CAs + 48 switches, LMC 0
    EXPECT_EQ(run.sl.has_value(), run.engine == "lash" || run.engine == "dfsssp" || run.engine == "nue");
    const VerifyResult verdict = verifyRouting(fabric.network, routing, {});
    EXPECT_TRUE(verdict.passed()) << run.engine;
    // OpenSM's lanes (tests/data/opensm/README.md): LASH 3 layers, DFSSSP spread over 0-7.
    const std::size_t layers = run.engine == "lash" ? 3 : run.engine == "dfsssp" ? 8 : 1;
    EXPECT_EQ(verdict.layersUsed, layers) << run.engine;
  }
}

TEST(OpensmEngineDir, RandomFabricRefusalAndVerdicts) {
  const std::string dir = engineDir("rnd16_s1");
  const Fabric fabric = dirFabric(dir);
  const auto runs = readOpensmEngineDir(dir, fabric.network, fabric.lids);
  EXPECT_EQ(namesOf(runs), opensmEngineNames());
  ASSERT_TRUE(runs[0].refused());
  EXPECT_EQ(runs[0].engine, "ftree");
  EXPECT_NE(runs[0].error.find("ERR AB2B: Found more than one root on fabric with maximum rank 0"), std::string::npos);
  EXPECT_FALSE(runs[0].sl.has_value());
  std::map<std::string, bool> passes;
  for (const auto& run : runs) {
    if (!run.refused()) passes[run.engine] = verifyRouting(fabric.network, *run.routing, {}).passed();
  }
  const std::map<std::string, bool> expected = {
      {"updn", true}, {"minhop", false}, {"lash", true}, {"dfsssp", true}, {"nue", true}};
  EXPECT_EQ(passes, expected);
  // LASH's SLs are what makes it deadlock-free: its tables alone are not.
  const RoutingResult lashTables = readLftDump(dir + "/lash.lfts", fabric.network);
  EXPECT_FALSE(verifyRouting(fabric.network, lashTables, {}).deadlockFree);
}

TEST(OpensmEngineDir, OtherEnginesComeAfterTheSixByName) {
  const Scratch scratch("engine_dir_extra");
  const std::string k4n2 = test::fixturesDir() + "/k4n2/";
  scratch.copy(k4n2 + "lfts.minhop.dump", "minhop.lfts");
  scratch.copy(k4n2 + "lfts.nue8.dump", "nue8.lfts");
  scratch.copy(k4n2 + "pathsl.nue8.txt", "nue8.sl");
  scratch.copy(k4n2 + "lfts.updn.dump", "dnup.lfts");
  scratch.write("README", "not an engine file\n");
  const Fabric fabric = loadFabric("ibnetdiscover:" + k4n2 + "ibnetdiscover.txt");
  const auto runs = readOpensmEngineDir(scratch.path.string(), fabric.network, fabric.lids);
  EXPECT_EQ(namesOf(runs), (std::vector<std::string>{"minhop", "dnup", "nue8"}));
  EXPECT_TRUE(runs[2].sl.has_value());
}

// docs/FORMATS.md: engine names are [A-Za-z0-9_-]+ and other files are ignored — each character
// class at its edges, and names just outside it.
TEST(OpensmEngineDir, OnlyLetterDigitUnderscoreAndDashNamesAreEngines) {
  const Scratch scratch("engine_dir_names");
  const std::string dump = test::fixturesDir() + "/k4n2/lfts.minhop.dump";
  for (const std::string name :
       {"minhop", "az09_-", "AZ", "min.hop", "min hop", "min+hop", "minh@p", "{z}", "[Z]", "@"}) {
    scratch.copy(dump, name + ".lfts");
  }
  const Fabric fabric = loadFabric("ibnetdiscover:" + test::fixturesDir() + "/k4n2/ibnetdiscover.txt");
  const auto runs = readOpensmEngineDir(scratch.path.string(), fabric.network, fabric.lids);
  EXPECT_EQ(namesOf(runs), (std::vector<std::string>{"minhop", "AZ", "az09_-"}));
}

TEST(OpensmEngineDir, LayoutErrors) {
  const Network net = loadFabric("ibnetdiscover:" + engineDir("rnd16_s1") + "/fabric.ibnetdiscover").network;
  const std::string rnd = test::fixturesDir() + "/rnd16_s1/";
  auto message = [&](const Scratch& s) {
    try {
      readOpensmEngineDir(s.path.string(), net);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  {
    const Scratch s("engine_dir_empty");
    EXPECT_EQ(message(s), s.path.string() + " holds no <engine>.lfts or <engine>.error file");
    s.write("lash.options", "-R lash\n");  // options alone are no engine
    EXPECT_EQ(message(s), s.path.string() + " holds no <engine>.lfts or <engine>.error file");
    s.copy(rnd + "lfts.minhop.dump", "minhop.lfts");
    EXPECT_NE(message(s).find("engine 'lash' has an options file but no lash.lfts or lash.error"), std::string::npos)
        << message(s);
  }
  {
    const Scratch s("engine_dir_both");
    s.copy(rnd + "lfts.minhop.dump", "minhop.lfts");
    s.write("minhop.error", "refused\n");
    EXPECT_NE(message(s).find("engine 'minhop' has an .error file and tables"), std::string::npos);
  }
  {
    const Scratch s("engine_dir_sl_only");
    s.copy(rnd + "pathsl.lash.txt", "lash.sl");
    s.copy(rnd + "lfts.minhop.dump", "minhop.lfts");
    EXPECT_NE(message(s).find("engine 'lash' has an SL file but no lash.lfts"), std::string::npos);
  }
  {
    const Scratch s("engine_dir_plain_and_gz");
    s.copy(rnd + "lfts.minhop.dump", "minhop.lfts");
    s.copy(test::fixturesDir() + "/k4n3/lfts.minhop.dump.gz", "minhop.lfts.gz");
    EXPECT_NE(message(s).find("both minhop.lfts"), std::string::npos) << message(s);
  }
  {
    const Scratch s("engine_dir_bad_sl");  // an SL line that is no SL: file and line named
    s.copy(rnd + "lfts.lash.dump", "lash.lfts");
    s.write("lash.sl", "# slid dlid sl\n1 2 0\n1 3 x\n");
    EXPECT_NE(message(s).find("lash.sl:3:"), std::string::npos) << message(s);
  }
  EXPECT_THROW(readOpensmEngineDir(engineDir("missing"), net), IoError);
}

/// `lids` with every base LID moved by `delta` and, where `lmc` is given, that LMC.
LidMap movedLids(LidMap lids, int delta, std::optional<std::uint8_t> lmc = std::nullopt) {
  auto move = [&](LidMap::Entry& entry) {
    entry.lid = static_cast<std::uint32_t>(static_cast<int>(entry.lid) + delta);
    if (lmc) entry.lmc = *lmc;
  };
  for (auto& [guid, entry] : lids.byPortGuid) move(entry);
  for (auto& [guid, ports] : lids.byNodePort) {
    for (auto& [port, entry] : ports) move(entry);
  }
  return lids;
}

/// The RoutingError readOpensmEngineDir throws for `dir` against `lids` ("" when none).
std::string lidRefusal(const std::string& dir, const Fabric& fabric, const LidMap& lids) {
  try {
    readOpensmEngineDir(dir, fabric.network, lids);
  } catch (const RoutingError& e) {
    return e.what();
  }
  return "";
}

TEST(OpensmEngineDir, DumpOnOtherLidsIsRefused) {
  // k4n2's dump on the k4n2 fabric, checked against LIDs shifted by 100: refused by name.
  const std::string k4n2 = test::fixturesDir() + "/k4n2/";
  const Fabric fabric = loadFabric("ibnetdiscover:" + k4n2 + "ibnetdiscover.txt");
  const Scratch s("engine_dir_other_lids");
  s.copy(k4n2 + "lfts.minhop.dump", "minhop.lfts");
  EXPECT_NO_THROW(readOpensmEngineDir(s.path.string(), fabric.network, fabric.lids));
  const std::string byName = "minhop.lfts: LID 1 is 'kt-h00', whose LID in";
  const std::string shifted = lidRefusal(s.path.string(), fabric, movedLids(fabric.lids, 100));
  EXPECT_NE(shifted.find(byName), std::string::npos) << shifted;
  // The range of an owner's LIDs is [LID, LID + 2^LMC): every base LID one lower puts each
  // dumped LID at the top of its range with LMC 1 (accepted) and one past it with LMC 0.
  EXPECT_NO_THROW(readOpensmEngineDir(s.path.string(), fabric.network, movedLids(fabric.lids, -1, 1)));
  const std::string past = lidRefusal(s.path.string(), fabric, movedLids(fabric.lids, -1, 0));
  EXPECT_NE(past.find(byName), std::string::npos) << "every LID one past its range: " << past;
  EXPECT_NE(past.find("is 0 (LMC 0)"), std::string::npos) << past;
}

/// A directory laid out as `compare --opensm-dir` expects, from the committed k4n3 fixtures:
/// gzipped dump content under plain names, an SL file, a refusal, options.
struct K4n3Dir : Scratch {
  explicit K4n3Dir(const std::string& name) : Scratch(name) {
    const fs::path k4n3 = fs::path(test::fixturesDir()) / "k4n3";
    copy((k4n3 / "lfts.ftree.dump.gz").string(), "ftree.lfts");
    copy((k4n3 / "lfts.lash.dump.gz").string(), "lash.lfts");
    copy((k4n3 / "pathsl.lash.txt").string(), "lash.sl");
    write("torus-2QoS.error", "\n torus-2QoS: no torus found in this fabric\n");
  }
};

TEST(OpensmEngineDir, ImportsGzippedDumpsSlsAndRefusals) {
  const K4n3Dir dir("engine_dir_k4n3_compare");
  const Fabric fabric = loadFabric("file:" + test::fixturesDir() + "/k4n3/ibnetdiscover.txt");
  const auto runs = readOpensmEngineDir(dir.path.string(), fabric.network, fabric.lids);
  ASSERT_EQ(namesOf(runs), (std::vector<std::string>{"ftree", "lash", "torus-2QoS"}));
  EXPECT_FALSE(runs[0].refused());
  EXPECT_EQ(runs[0].routing->engine, "opensm:ftree");
  EXPECT_EQ(runs[1].routing->layerCount(), 3u);  // the SL file's layers
  EXPECT_TRUE(runs[2].refused());
  EXPECT_EQ(runs[2].error, "torus-2QoS: no torus found in this fabric");
  dir.write("empty.error", " \n");
  dir.write("long.error", std::string(2500, 'x'));
  const auto more = readOpensmEngineDir(dir.path.string(), fabric.network);
  ASSERT_EQ(namesOf(more), (std::vector<std::string>{"ftree", "lash", "empty", "long", "torus-2QoS"}));
  EXPECT_EQ(more[2].error, "OpenSM refused the engine (empty .error file)");
  EXPECT_EQ(more[3].error, std::string(2000, 'x'));
}

TEST(OpensmEngineDir, ReadsTheFirstLineOfEachOptionsFile) {
  const K4n3Dir dir("engine_dir_options");
  dir.write("lash.options", "  -R lash,no_fallback -Q \t\nsecond line\n");
  dir.write("dnup.error", "refused\n");
  dir.write("dnup.options", "-R dnup,no_fallback\n");
  dir.write("updn.roots", "0x0000000000200000\n");  // not an engine file
  const Fabric fabric = loadFabric("file:" + test::fixturesDir() + "/k4n3/ibnetdiscover.txt");
  const auto runs = readOpensmEngineDir(dir.path.string(), fabric.network);
  ASSERT_EQ(namesOf(runs), (std::vector<std::string>{"ftree", "lash", "dnup", "torus-2QoS"}));
  EXPECT_EQ(runs[0].opensmOptions, "");
  EXPECT_EQ(runs[1].opensmOptions, "-R lash,no_fallback -Q");
  EXPECT_TRUE(runs[2].refused());
  EXPECT_EQ(runs[2].opensmOptions, "-R dnup,no_fallback");
}

TEST(OpensmEngineDir, MessagesNameTheDirectoryAsTheCallerShowsIt) {
  const Scratch empty("engine_dir_shown_as");
  const Network net = loadFabric("file:" + test::fixturesDir() + "/k4n3/ibnetdiscover.txt").network;
  auto message = [&](const std::string& dir) {
    try {
      readOpensmEngineDir(dir, net, {}, "--opensm-dir '" + dir + "'");
    } catch (const IoError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = (empty.path / "missing").string();
  EXPECT_EQ(message(missing), "--opensm-dir '" + missing + "': not a readable directory");
  EXPECT_EQ(message(empty.path.string()),
            "--opensm-dir '" + empty.path.string() + "' holds no <engine>.lfts or <engine>.error file");
}
