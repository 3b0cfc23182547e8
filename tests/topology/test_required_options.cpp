// Every required option of every fabric generator (topology/registry.cpp, the one option
// table the CLI's help and the spec parser read) is required: a spec that gives all the
// others but leaves it out is a SpecError naming it, while the complete spec builds. The
// valid specs are listed per generator and the test fails for a generator without one, so
// a new generator or a new required key cannot skip the check.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "topology/registry.h"

namespace routelab {
namespace {

/// A valid value for every option of each generator (small fabrics).
const std::map<std::string, std::map<std::string, std::string>> kValidOptions = {
    {"kary-ntree", {{"k", "2"}, {"n", "2"}}},
    {"gft2", {{"n", "2"}, {"m", "2"}, {"r", "2"}}},
    {"ft", {{"l", "2"}, {"m", "2"}, {"w", "2"}}},
    {"xgft", {{"h", "2"}, {"m", "2.2"}, {"w", "1.2"}}},
    {"random", {{"switches", "4"}, {"links", "4"}, {"terminals", "1"}, {"radix", "8"}, {"seed", "1"}}},
};

std::string spec(const std::string& name, const std::map<std::string, std::string>& values, const std::string& skip) {
  std::string out = name;
  char separator = ':';
  for (const auto& [key, value] : values) {
    if (key == skip) continue;
    out += separator + key + "=" + value;
    separator = ',';
  }
  return out;
}

TEST(RequiredOptions, EveryGeneratorRefusesASpecWithoutEachRequiredKey) {
  // The keys each generator needs (docs/TOPOLOGIES.md; `routelab topo --help` marks them).
  const std::set<std::string> documented = {"kary-ntree.k", "kary-ntree.n", "gft2.n", "gft2.m",
                                            "gft2.r",       "ft.l",         "ft.m",   "ft.w",
                                            "xgft.h",       "xgft.m",       "xgft.w", "random.switches"};
  std::set<std::string> checked;
  for (const auto& row : topologyRegistry().rows()) {
    const auto valid = kValidOptions.find(row.name);
    ASSERT_NE(valid, kValidOptions.end()) << "no valid spec for generator '" << row.name << "' in this test";
    EXPECT_NO_THROW(loadFabric(spec(row.name, valid->second, ""))) << spec(row.name, valid->second, "");
    for (const OptionSpec& option : row.options) {
      if (!option.required) continue;
      ASSERT_TRUE(valid->second.count(option.key)) << row.name << ": no value for '" << option.key << "'";
      const std::string partial = spec(row.name, valid->second, option.key);
      try {
        loadFabric(partial);
        ADD_FAILURE() << partial << ": accepted without the required '" << option.key << "'";
      } catch (const SpecError& e) {
        EXPECT_NE(std::string(e.what()).find("'" + option.key + "'"), std::string::npos) << partial << ": " << e.what();
      }
      checked.insert(row.name + "." + option.key);
    }
  }
  EXPECT_EQ(checked, documented);
}

}  // namespace
}  // namespace routelab
