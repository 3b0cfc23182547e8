// Regression tests of the fuzzers' findings (docs/RELIABILITY.md, "Findings"): every input
// under fuzz/regressions/<target>/ once crashed, hung or blew up a parser. Each is fed to
// the same entry point as its fuzz target, in the normal and the sanitizer builds; the
// answer must be a typed routelab::Error or a valid result (a crash, another exception or
// a sanitizer report fails). The exact message of each finding is asserted by its parser's
// own tests (tests/io, tests/routing/test_lft_dump.cpp, tests/verify/test_verify.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "io/fabric_files.h"
#include "io/lft_dump.h"
#include "io/sl_table.h"
#include "test_support.h"
#include "topology/registry.h"
#include "traffic/pattern.h"

namespace fs = std::filesystem;
using namespace routelab;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const Network& fixture() {
  static const Network network = readFabricFile(test::fixturesDir() + "/k4n2/ibnetdiscover.txt");
  return network;
}

/// The entry point of each fuzz target (fuzz/fuzz_<target>.cpp), minus the fuzzer.
const std::map<std::string, std::function<void(const std::string&)>>& entryPoints() {
  static const std::map<std::string, std::function<void(const std::string&)>> table = {
      {"net", [](const std::string& t) { parseFabricText(t, "fuzz", FabricFormat::IbsimNet); }},
      {"ibnetdiscover", [](const std::string& t) { parseFabricText(t, "fuzz", FabricFormat::Ibnetdiscover); }},
      {"ibnetdiscover_p", [](const std::string& t) { parseFabricText(t, "fuzz", FabricFormat::IbnetdiscoverPorts); }},
      {"json", [](const std::string& t) { parseFabricText(t, "fuzz", FabricFormat::Json); }},
      {"fabric_auto", [](const std::string& t) { parseFabricText(t, "fuzz", FabricFormat::Auto); }},
      {"lft_dump", [](const std::string& t) { parseLftDump(t, "fuzz.dump", fixture()); }},
      {"sl_table",
       [](const std::string& t) {
         static const RoutingResult routing = readLftDump(test::fixturesDir() + "/k4n2/lfts.lash.dump", fixture());
         applySlTable(fixture(), routing, parseSlTable(t, "fuzz.sl"), !t.empty() && (t[0] & 1) != 0);
       }},
      {"pattern", [](const std::string& t) { parsePatternText(t, "fuzz.pattern", fixture()); }},
      {"spec",
       [](const std::string& t) {
         const Spec spec = parseSpec(t, {"file", "net", "ibnetdiscover", "json"});
         Network current = fixture();
         for (const ComponentSpec& modifierSpec : spec.modifiers) {
           const auto& row = modifierRegistry().find(modifierSpec.name);
           ModifierReport report;
           current = row.factory(current, Options(modifierSpec.name, row.options, modifierSpec), report);
         }
       }},
  };
  return table;
}

TEST(FuzzRegressions, EveryFindingGetsATypedAnswer) {
  const fs::path root = fs::path(test::sourceDir()) / "fuzz" / "regressions";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  std::size_t inputs = 0;
  for (const auto& directory : fs::directory_iterator(root)) {
    if (!directory.is_directory()) continue;
    const std::string target = directory.path().filename().string();
    const auto entry = entryPoints().find(target);
    ASSERT_NE(entry, entryPoints().end()) << "no entry point for fuzz target '" << target << "'";
    for (const auto& file : fs::directory_iterator(directory.path())) {
      SCOPED_TRACE(file.path().string());
      ++inputs;
      try {
        entry->second(slurp(file.path()));
      } catch (const Error&) {
        // the expected answer to a malformed input
      }
    }
  }
  EXPECT_GT(inputs, 0u);
}

}  // namespace
