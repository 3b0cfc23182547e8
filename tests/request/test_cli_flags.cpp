// Issue 36: the front ends accept the same keys, defaults and ranges as the request rows
// (request/request.h). The CLI subcommand's App is built by the subcommand's own set-up
// function (apps/routelab/cmd_*.cpp) and walked; the sweep kinds are read from the kind
// table. Every row is checked, so a row added to a schema is checked with no further code.
#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli.h"
#include "cli_schema.h"
#include "request/compare_request.h"
#include "request/request.h"
#include "request/simulate_request.h"
#include "sweep/point_kinds.h"

using namespace routelab;

namespace {

cli::Command commandOf(const std::string& operation) {
  if (operation == "simulate") return cli::simulateCommand();
  if (operation == "analyze") return cli::analyzeCommand();
  if (operation == "verify") return cli::verifyCommand();
  if (operation == "schedule") return cli::scheduleCommand();
  if (operation == "route") return cli::routeCommand();
  if (operation == "compare") return cli::compareCommand();
  throw std::logic_error("no CLI command for " + operation);
}

/// The flags of a subcommand that are not request rows: how the result is written.
const std::map<std::string, std::set<std::string>>& outputFlags() {
  static const std::map<std::string, std::set<std::string>> flags = {
      {"simulate", {"help", "format", "export-trace", "export-utilization", "model"}},
      {"analyze", {"help", "format", "export-loads"}},
      {"verify", {"help", "format"}},
      {"schedule", {"help", "format", "export"}},
      {"route", {"help", "format", "export"}},
      {"compare", {"help", "format", "output", "quiet", "opensm", "opensm-cache"}},
  };
  return flags;
}

/// The rows of `operation` that drive the run rather than name a point: not sweep keys.
std::vector<std::string> runModeKeys(const std::string& operation) {
  if (operation == "simulate") return simulateRunModeKeys();
  if (operation == "verify") return {"examples"};  // how many failures the text lists
  if (operation == "schedule") return {};
  return {"threads"};  // analyze: EvaluationContext::threads (sweep/point_kinds.h)
}

/// Parses `<operation> <fabric> [--engine dmodk] <extra...>` with a fresh App; returns
/// the error message, "" when accepted.
std::string parseError(const std::string& operation, std::vector<std::string> extra) {
  CLI::App app;
  CLI::App* sub = app.add_subcommand(operation);
  // The action owns what the options write into: it lives as long as the parse.
  const std::function<int()> action = commandOf(operation).setup(*sub);
  std::vector<std::string> args = {operation, "kary-ntree:k=2,n=2"};
  if (operation != "schedule") args.insert(args.end(), {"--engine", "dmodk"});
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<const char*> argv = {"routelab"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CliFlags, EachSubcommandDeclaresExactlyItsRequestRows) {
  for (const std::string& operation : requestOperations()) {
    CLI::App app;
    CLI::App* sub = app.add_subcommand(operation);
    commandOf(operation).setup(*sub);
    std::vector<std::string> generated;
    std::set<std::string> others;
    for (const CLI::Option* option : sub->get_options()) {
      if (option->get_group() == cli::kRequestGroup) {
        generated.push_back(cli::requestKeyOf(*option));
      } else {
        others.insert(option->get_lnames().empty() ? option->get_name() : option->get_lnames().front());
      }
    }
    std::vector<std::string> keys;
    for (const OptionSpec& row : requestSchema(operation)) keys.push_back(row.key);
    EXPECT_EQ(generated, keys) << operation;  // same keys, schema order
    EXPECT_EQ(others, outputFlags().at(operation)) << operation;
  }
}

TEST(CliFlags, DefaultsRequiredAndHelpAreTheRows) {
  for (const std::string& operation : requestOperations()) {
    CLI::App app;
    CLI::App* sub = app.add_subcommand(operation);
    commandOf(operation).setup(*sub);
    for (const OptionSpec& row : requestSchema(operation)) {
      const std::string name = row.key == cli::kPositionalKey ? cli::kPositionalName : "--" + row.key;
      const CLI::Option* option = sub->get_option(name);
      ASSERT_NE(option, nullptr) << operation << " " << name;
      EXPECT_EQ(option->get_required(), row.required) << name;
      if (row.type == OptionType::Flag) {
        EXPECT_EQ(option->get_expected_min(), 0) << name << " is a flag";
        if (row.defaultValue.empty()) {  // three-state: --key, --no-key or neither
          EXPECT_EQ(sub->get_option("--no-" + row.key), option) << name;
        } else {
          EXPECT_EQ(row.defaultValue, "false") << name << ": a CLI flag is off unless given";
        }
      } else {
        EXPECT_EQ(option->get_default_str(), row.defaultValue) << name;
        EXPECT_EQ(option->get_expected_min(), 1) << name;
      }
      EXPECT_NE(option->get_description().find(row.help), std::string::npos) << name;
      if (row.bounded()) {
        EXPECT_NE(option->get_description().find("(range " + row.rangeText() + ")"), std::string::npos) << name;
      }
    }
  }
}

// Each value is checked while parsing by the library's row: at the limit accepted, one past
// refused with requestOptions()'s message; a value outside the choices refused.
TEST(CliFlags, RangesAndChoicesAreTheRows) {
  for (const std::string& operation : requestOperations()) {
    for (const OptionSpec& row : requestSchema(operation)) {
      if (row.key == cli::kPositionalKey || row.key == "engine") continue;
      const std::string flag = "--" + row.key;
      const std::string range = row.key + " must lie in " + row.rangeText();
      if (row.type == OptionType::Integer && row.bounded()) {
        const std::int64_t low = row.minimum.empty() ? 0 : std::stoll(row.minimum);
        EXPECT_EQ(parseError(operation, {flag, std::to_string(low)}), "") << flag;
        if (!row.minimum.empty()) {
          EXPECT_NE(parseError(operation, {flag, std::to_string(low - 1)}).find(range), std::string::npos) << flag;
        }
        if (!row.maximum.empty() && std::stoll(row.maximum) < std::numeric_limits<std::int64_t>::max()) {
          const std::int64_t high = std::stoll(row.maximum);
          EXPECT_EQ(parseError(operation, {flag, std::to_string(high)}), "") << flag;
          EXPECT_NE(parseError(operation, {flag, std::to_string(high + 1)}).find(range), std::string::npos) << flag;
        }
      }
      if (row.type == OptionType::Real && row.minimumExclusive) {
        EXPECT_NE(parseError(operation, {flag, row.minimum}).find(range), std::string::npos) << flag;
      }
      if (row.type == OptionType::Real && !row.maximum.empty()) {
        EXPECT_EQ(parseError(operation, {flag, row.maximum}), "") << flag;
        EXPECT_NE(parseError(operation, {flag, row.maximum + "1"}).find(range), std::string::npos) << flag;
      }
      if (!row.choices.empty()) {
        for (const std::string& choice : row.choices) EXPECT_EQ(parseError(operation, {flag, choice}), "") << flag;
        EXPECT_NE(parseError(operation, {flag, "no-such-choice"}).find("must be one of"), std::string::npos) << flag;
      }
      if (row.type == OptionType::Integer) {
        EXPECT_NE(parseError(operation, {flag, "x"}).find("is not an integer"), std::string::npos) << flag;
      }
    }
  }
}

// The sweep kinds (analyze, simulate, verify, schedule; route and compare are no sweep
// points) take every row but the run-mode keys, in snake spelling (tests/sweep checks their
// defaults).
TEST(CliFlags, SweepKindsTakeTheRowsButTheRunModeKeys) {
  for (const std::string& operation :
       {std::string("analyze"), std::string("simulate"), std::string("verify"), std::string("schedule")}) {
    const PointKind& kind = findPointKind(operation);
    std::set<std::string> sweepKeys;
    for (const PointKey& key : kind.keys) sweepKeys.insert(key.name);
    std::set<std::string> expected;
    const std::vector<std::string> runMode = runModeKeys(operation);
    for (const OptionSpec& row : requestSchema(operation)) {
      if (std::find(runMode.begin(), runMode.end(), row.key) == runMode.end()) expected.insert(snakeKey(row.key));
    }
    EXPECT_EQ(sweepKeys, expected) << operation;
  }
}

namespace {

/// The compare request from `compare <args...>` parsed by the generated options as
/// cmd_compare.cpp declares them (the alias and the repeatable key).
CompareRequest compareRequestOf(const std::vector<std::string>& args) {
  CLI::App app;
  CLI::App* sub = app.add_subcommand("compare");
  cli::RequestFlags flags{"compare", {}};
  cli::addRequestOptions(*sub, flags, {{"engines", "--engine"}}, {{"engines", kEngineListSeparator}});
  std::vector<const char*> argv = {"routelab", "compare"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return CompareRequest::fromValues(flags.values);
}

}  // namespace

// compare's repeatable --engine (an alias of --engines) is joined into the one `engines`
// value; its three-state `simulate` is --simulate, --no-simulate or neither.
TEST(CliFlags, CompareEnginesRepeatAndSimulateHasThreeStates) {
  EXPECT_EQ(parseError("compare", {"--engine", "updown", "--engines", "lash:layers=2"}), "");
  CompareRequest r = compareRequestOf({"--engine", "dmodk", "--engine", "mroots:layers=2", "--engines", "updown"});
  EXPECT_EQ(r.compare.engines, (std::vector<std::string>{"dmodk", "mroots:layers=2", "updown"}));
  EXPECT_TRUE(r.compare.simulate);
  EXPECT_FALSE(r.compare.simulateAlways);
  EXPECT_FALSE(r.options.has("simulate"));
  r = compareRequestOf({"--simulate"});
  EXPECT_TRUE(r.compare.simulate);
  EXPECT_TRUE(r.compare.simulateAlways);
  r = compareRequestOf({"--no-simulate"});
  EXPECT_FALSE(r.compare.simulate);
  EXPECT_FALSE(r.compare.simulateAlways);
  EXPECT_TRUE(r.compare.engines.empty());
  EXPECT_EQ(r.compare.spec, "kary-ntree:k=4,n=3");
  EXPECT_NE(parseError("compare", {"--vls", "16"}).find("compare: vls must lie in [1, 15] (got 16)"),
            std::string::npos);
}
