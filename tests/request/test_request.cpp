// The request schema (request/request.h): every row's range tested at the limit and one
// past it, every option reaching the typed request, JSON round trips — all generated from
// the rows, so a new row cannot skip them (issue 39 items 3 and 4).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "request/analyze_request.h"
#include "request/compare_request.h"
#include "request/request.h"
#include "request/route_request.h"
#include "request/schedule_request.h"
#include "request/simulate_request.h"
#include "request/verify_request.h"
#include "sim/simulator.h"
#include "test_support.h"

using namespace routelab;

namespace {

/// The values a request needs besides the one under test.
KeyValues required(const std::string& operation) {
  if (operation == "schedule" || operation == "compare") return {{"fabric", "kary-ntree:k=2,n=2"}};
  return {{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}};
}

std::string errorOf(const std::string& operation, const KeyValues& values) {
  return test::thrownMessage<SpecError>([&] { requestOptions(operation, values); }, "accepted");
}

/// `text` plus or minus one unit of the row's type (integers exactly; reals by the
/// smallest step that a double can tell apart at that magnitude, written with {}).
std::string step(const OptionSpec& row, const std::string& text, int direction) {
  if (row.type == OptionType::Integer) {
    const std::int64_t v = parseInteger(text, row.key);
    return std::to_string(v + direction);
  }
  const double v = parseReal(text, row.key);
  const double next = direction > 0 ? std::nextafter(v, std::numeric_limits<double>::infinity())
                                    : std::nextafter(v, -std::numeric_limits<double>::infinity());
  return fmt::format("{}", next);
}

}  // namespace

TEST(RequestSchema, EveryRangeHoldsAtItsLimitAndRefusesOnePast) {
  int checked = 0;
  for (const std::string& operation : requestOperations()) {
    for (const OptionSpec& row : requestSchema(operation)) {
      if (!row.bounded()) continue;
      const auto with = [&](const std::string& value) {
        KeyValues values = required(operation);
        values.emplace_back(row.key, value);
        return errorOf(operation, values);
      };
      const auto refused = [&](const std::string& value) {
        return fmt::format("{}: {} must lie in {} (got {})", operation, row.key, row.rangeText(), value);
      };
      if (!row.minimum.empty()) {
        if (row.minimumExclusive) {
          EXPECT_EQ(with(row.minimum), refused(row.minimum)) << operation << " " << row.key;
          EXPECT_EQ(with(step(row, row.minimum, +1)), "accepted") << operation << " " << row.key;
        } else {
          EXPECT_EQ(with(row.minimum), "accepted") << operation << " " << row.key;
          const std::string below = step(row, row.minimum, -1);
          EXPECT_EQ(with(below), refused(below)) << operation << " " << row.key;
        }
        ++checked;
      }
      if (!row.maximum.empty()) {
        EXPECT_EQ(with(row.maximum), "accepted") << operation << " " << row.key;
        // One past the largest int64 does not parse: that refusal is the integer's own.
        if (row.maximum != "9223372036854775807") {
          const std::string above = step(row, row.maximum, +1);
          EXPECT_EQ(with(above), refused(above)) << operation << " " << row.key;
        }
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 25);  // the simulator's and the analyzer's ranges are all there
}

TEST(RequestSchema, EachRequiredOptionIsRefusedAsMissingWhenLeftOut) {
  for (const std::string& operation : requestOperations()) {
    const KeyValues full = required(operation);
    EXPECT_EQ(errorOf(operation, full), "accepted") << operation;
    std::vector<std::string> requiredKeys;
    for (const OptionSpec& row : requestSchema(operation)) {
      if (!row.required) continue;
      requiredKeys.push_back(row.key);
      KeyValues without;
      for (const auto& [key, value] : full) {
        if (key != row.key) without.emplace_back(key, value);
      }
      EXPECT_EQ(errorOf(operation, without),
                fmt::format("{}: missing required option '{}' ({})", operation, row.key, row.help));
    }
    // The rows declared required: compare alone runs on its built-in example fabric.
    const std::vector<std::string> expected = operation == "compare"    ? std::vector<std::string>{}
                                              : operation == "schedule" ? std::vector<std::string>{"fabric"}
                                                                        : std::vector<std::string>{"fabric", "engine"};
    EXPECT_EQ(requiredKeys, expected) << operation;
  }
}

TEST(RequestSchema, ChoicesAreExactlyTheRowsChoices) {
  for (const std::string& operation : requestOperations()) {
    for (const OptionSpec& row : requestSchema(operation)) {
      for (const std::string& choice : row.choices) {
        KeyValues values = required(operation);
        values.emplace_back(row.key, choice);
        if (row.key == "metric" && choice == "pattern") values.emplace_back("pattern", "shift:s=1");
        EXPECT_NO_THROW(operation == "simulate" ? (void)SimulateRequest::fromValues(values)
                                                : (void)AnalyzeRequest::fromValues(values))
            << row.key << "=" << choice;
      }
      if (row.choices.empty()) continue;
      KeyValues values = required(operation);
      values.emplace_back(row.key, "no-such-choice");
      EXPECT_NE(errorOf(operation, values).find(row.key + " must be one of"), std::string::npos);
    }
  }
}

namespace {

/// Every typed field of a simulate request (not its Options): what the library receives.
std::string typed(const SimulateRequest& r) {
  const SimConfig& c = r.config;
  std::ostringstream out;
  out << r.fabric << '|' << r.engine << '|' << c.traffic << '|' << c.load << '|' << c.seed << '|' << c.packetFlits
      << '|' << c.vcs << '|' << c.bufferPackets << '|' << c.routingDelay << '|' << c.flyTime << '|' << int(c.selection)
      << '|' << int(c.arbitration) << '|' << int(c.pathPolicy) << '|' << int(c.injection) << '|' << c.messagePackets
      << '|' << c.inOrder << '|' << c.reorderPackets << '|' << c.measureCycles << '|' << c.warmupCycles << '|'
      << c.watchdogCycles << '|' << c.checkInvariants << '|' << c.threads << '|' << r.lmc << '|'
      << r.threads.value_or(-1) << '|' << r.loads.size() << '|' << r.saturation << '|' << r.traceFile << '|'
      << r.traceGenerate << '|' << r.compression << '|' << r.payload;
  return out.str();
}

std::string typed(const AnalyzeRequest& r) {
  std::ostringstream out;
  out << r.fabric << '|' << r.engine << '|' << int(r.metric) << '|' << r.pattern << '|' << r.seed << '|' << r.lmc << '|'
      << r.threads << '|' << int(r.loadModel) << '|' << r.sampling.seed << '|' << r.sampling.precision << '|'
      << r.sampling.maxSamples << '|' << r.sampling.threads << '|' << r.bestSplit.tolerance << '|'
      << r.bestSplit.maxIterations;
  return out.str();
}

std::string typed(const VerifyRequest& r) {
  std::ostringstream out;
  out << r.fabric << '|' << r.engine << '|' << r.slFile << '|' << r.lidMap << '|' << r.switchTraffic << '|' << r.seed
      << '|' << r.lmc << '|' << r.examples;
  return out.str();
}

std::string typed(const ScheduleRequest& r) {
  std::ostringstream out;
  out << r.fabric << '|' << r.scheduler << '|' << r.pattern << '|' << r.permutations << '|' << r.seed << '|'
      << r.releaseOnFail << '|' << r.rounds;
  return out.str();
}

std::string typed(const RouteRequest& r) {
  std::ostringstream out;
  out << r.fabric << '|' << r.engine << '|' << r.lmc << '|' << r.switchAddresses << '|' << r.seed << '|' << r.noChecks
      << '|' << r.lidMap;
  return out.str();
}

std::string typed(const CompareRequest& r) {
  const CompareOptions& c = r.compare;
  std::ostringstream out;
  out << c.spec << '|' << c.engines.size() << '|' << c.seed << '|' << c.precision << '|' << c.maxSamples << '|'
      << c.maxShifts << '|' << c.detailTerminals << '|' << c.maxAddressesPerTerminal << '|' << c.genericEngineSwitches
      << '|' << c.threads << '|' << c.opensmDirectory << '|' << c.constraints.vls << '|'
      << c.constraints.adaptiveSwitches << '|' << c.constraints.inOrder << '|' << c.simulate << '|'
      << c.simulateTerminals << '|' << c.simulateAlways << '|' << c.simulateLeaders << '|' << c.simulateCycles << '|'
      << c.simulateSteps;
  for (const std::string& e : c.engines) out << '|' << e;
  return out.str();
}

/// A valid value other than the row's default (the other end of its range, another choice,
/// the opposite flag), and the options it needs to be meaningful.
KeyValues nonDefault(const std::string& operation, const OptionSpec& row) {
  KeyValues values;
  if (row.key == "fabric" && (operation == "schedule" || operation == "compare"))
    return {{"fabric", "kary-ntree:k=2,n=3"}};
  if (row.key == "fabric") return {{"fabric", "kary-ntree:k=2,n=3"}, {"engine", "dmodk"}};
  if (row.key == "engine") return {{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "sssp"}};
  values = required(operation);
  std::string value;
  switch (row.type) {
    case OptionType::Flag: value = row.defaultValue == "true" ? "false" : "true"; break;  // absent: "true"
    case OptionType::Integer:
      value = !row.maximum.empty() && row.maximum != row.defaultValue ? row.maximum : step(row, row.defaultValue, +1);
      break;
    case OptionType::Real:
      value = !row.maximum.empty() && row.maximum != row.defaultValue
                  ? row.maximum
                  : fmt::format("{}", 2 * parseReal(row.defaultValue, row.key));
      break;
    default:
      for (const std::string& choice : row.choices) {
        if (choice != row.defaultValue && value.empty()) value = choice;
      }
      break;
  }
  if (row.key == "pattern" && operation == "analyze") {
    value = "shift:s=1";
    values.emplace_back("metric", "pattern");
  }
  if (row.key == "metric") value = "stages";
  if (row.key == "traffic") value = "shift:s=1";
  if (row.key == "loads") value = "0.1,0.2";
  if (row.key == "trace") value = "trace.csv";
  if (row.key == "trace-generate") value = "io:storage=1,clients=2";
  if (row.key == "load-model") value = "best-split";
  if (row.key == "sl") value = "pathsl.txt";
  if (row.key == "scheduler") value = "local-greedy";
  if (row.key == "pattern" && operation == "schedule") value = "shift:s=3";
  if (row.key == "lid-map") value = "guid2lid";
  if (row.key == "engines") value = "dmodk;lash:layers=2";
  if (row.key == "opensm-dir") value = "opensm-engines";
  if (row.key == "warmup" || row.key == "cycles" || row.key == "watchdog") value = "12345";
  if (operation == "simulate" && (row.key == "compression" || row.key == "payload")) {
    values.emplace_back("trace", "trace.csv");  // a trace's keys, refused without one
  }
  EXPECT_FALSE(value.empty()) << operation << " " << row.key << ": no non-default value";
  values.emplace_back(row.key, value);
  return values;
}

/// The SpecError's message of a simulate request on kary-ntree:k=2,n=2 with dmodk and
/// `extra`, or "accepted".
std::string simulateRefusal(const KeyValues& extra) {
  KeyValues values = {{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}};
  values.insert(values.end(), extra.begin(), extra.end());
  return test::thrownMessage<SpecError>([&] { SimulateRequest::fromValues(values); }, "accepted");
}
}  // namespace

TEST(RequestSchema, EveryOptionReachesTheTypedRequest) {
  const std::string simulateDefault = typed(SimulateRequest::fromValues(required("simulate")));
  for (const OptionSpec& row : simulateSchema()) {
    const KeyValues values = nonDefault("simulate", row);
    EXPECT_NE(typed(SimulateRequest::fromValues(values)), simulateDefault) << "simulate: " << row.key;
    if (row.required) continue;
    // Against the same request without the key (the options it needs, e.g. a trace, stay).
    const KeyValues without(values.begin(), values.end() - 1);
    EXPECT_NE(typed(SimulateRequest::fromValues(values)), typed(SimulateRequest::fromValues(without)))
        << "simulate: " << row.key;
  }
  const std::string analyzeDefault = typed(AnalyzeRequest::fromValues(required("analyze")));
  for (const OptionSpec& row : analyzeSchema()) {
    const KeyValues values = nonDefault("analyze", row);
    EXPECT_NE(typed(AnalyzeRequest::fromValues(values)), analyzeDefault) << "analyze: " << row.key;
  }
  const std::string verifyDefault = typed(VerifyRequest::fromValues(required("verify")));
  for (const OptionSpec& row : verifySchema()) {
    const KeyValues values = nonDefault("verify", row);
    EXPECT_NE(typed(VerifyRequest::fromValues(values)), verifyDefault) << "verify: " << row.key;
  }
  const std::string scheduleDefault = typed(ScheduleRequest::fromValues(required("schedule")));
  for (const OptionSpec& row : scheduleSchema()) {
    const KeyValues values = nonDefault("schedule", row);
    EXPECT_NE(typed(ScheduleRequest::fromValues(values)), scheduleDefault) << "schedule: " << row.key;
  }
  const std::string compareDefault = typed(CompareRequest::fromValues(required("compare")));
  for (const OptionSpec& row : compareSchema()) {
    const KeyValues values = nonDefault("compare", row);
    EXPECT_NE(typed(CompareRequest::fromValues(values)), compareDefault) << "compare: " << row.key;
  }
  const std::string routeDefault = typed(RouteRequest::fromValues(required("route")));
  for (const OptionSpec& row : routeSchema()) {
    const KeyValues values = nonDefault("route", row);
    EXPECT_NE(typed(RouteRequest::fromValues(values)), routeDefault) << "route: " << row.key;
  }
}

TEST(RequestSchema, JsonRoundTripsEveryNonDefaultValue) {
  for (const std::string& operation : requestOperations()) {
    for (const OptionSpec& row : requestSchema(operation)) {
      const Options written = requestOptions(operation, nonDefault(operation, row));
      const nlohmann::json json = optionsToJson(written);
      const Options read = optionsFromJson(operation, nlohmann::json::parse(json.dump()));
      EXPECT_EQ(read.values(), written.values()) << operation << " " << row.key;
    }
  }
  // Sweep and Python spelling: '_' for '-'.
  EXPECT_EQ(
      requestOptions("simulate", {{"fabric", "f"}, {"engine", "e"}, {"packet_flits", "16"}}).integer("packet-flits"),
      16);
  EXPECT_THROW(optionsFromJson("simulate", {{"fabric", "f"}, {"engine", "e"}, {"packet_flits", "16"}}), SpecError);
  EXPECT_EQ(errorOf("simulate", {{"fabric", "f"}, {"engine", "e"}, {"packet-flits", "5000"}}),
            "simulate: packet-flits must lie in [1, 4096] (got 5000)");
  EXPECT_THROW(requestSchema("teleport"), SpecError);
}

TEST(RequestRun, AnalyzeAndSimulateRunFromTheRequest) {
  const AnalyzeRequest analyze = AnalyzeRequest::fromValues({{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}});
  const AnalyzeOutcome worst = runAnalyze(analyze);
  ASSERT_TRUE(worst.worst.has_value());
  EXPECT_EQ(worst.value, worst.worst->value);
  EXPECT_EQ(analyzeResultJson(analyze, worst)["value"], worst.worst->value);
  SimulateRequest simulate = SimulateRequest::fromValues(
      {{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}, {"cycles", "500"}, {"packet-flits", "4"}});
  const SimulateOutcome run = runSimulate(simulate);
  ASSERT_EQ(run.results.size(), 1u);
  const nlohmann::json json = simulateResultJson(simulate, run);
  EXPECT_EQ(json["packet_flits"], 4);
  EXPECT_EQ(json["watchdog"], 20000);
  EXPECT_GT(json["packets_delivered"].get<std::uint64_t>(), 0u);

  // `saturation`: the search of docs/SIMULATION.md (0.01 to 1, 7 halvings) on the request's
  // configuration, its 9 simulations reported as progress (k of 9, in order).
  SimulateRequest search = SimulateRequest::fromValues({{"fabric", "kary-ntree:k=2,n=2"},
                                                        {"engine", "dmodk"},
                                                        {"warmup", "500"},
                                                        {"cycles", "4000"},
                                                        {"packet-flits", "4"},
                                                        {"saturation", "true"}});
  std::vector<std::pair<std::size_t, std::size_t>> progress;
  const SimulateOutcome searched =
      runSimulate(search, [&](std::size_t done, std::size_t all) { progress.emplace_back(done, all); });
  ASSERT_EQ(searched.results.size(), 1u);
  const SaturationPoint knee = findSaturation(searched.fabric.network, searched.routing, search.config, 0.01, 1.0, 7);
  const SimResult& expected = knee.result;
  EXPECT_EQ(searched.saturationLoad, knee.load);
  EXPECT_FALSE(searched.results[0].saturated);
  EXPECT_EQ(searched.results[0].accepted, expected.accepted);
  EXPECT_EQ(searched.results[0].packetsGenerated, expected.packetsGenerated);
  ASSERT_EQ(progress.size(), 9u);
  for (std::size_t k = 0; k < progress.size(); ++k) EXPECT_EQ(progress[k], std::make_pair(k + 1, std::size_t{9}));
  // The JSON names the load found and the accepted traffic there, and no single-run load.
  const nlohmann::json searchJson = simulateResultJson(search, searched);
  EXPECT_EQ(searchJson.at("saturation_load").get<double>(), knee.load);
  EXPECT_EQ(searchJson.at("saturation_throughput").get<double>(), expected.accepted);
  EXPECT_FALSE(searchJson.contains("load"));

  // `loads`: one simulation per load, run in parallel, each finished one reported as progress
  // (k of n, every k from 1 to n once, whatever order they finish in).
  SimulateRequest points = SimulateRequest::fromValues({{"fabric", "kary-ntree:k=2,n=2"},
                                                        {"engine", "dmodk"},
                                                        {"cycles", "500"},
                                                        {"packet-flits", "4"},
                                                        {"loads", "0.1:0.4:0.1"},
                                                        {"threads", "2"}});
  ASSERT_EQ(points.loads.size(), 4u);
  progress.clear();
  const SimulateOutcome loads =
      runSimulate(points, [&](std::size_t done, std::size_t all) { progress.emplace_back(done, all); });
  ASSERT_EQ(loads.results.size(), 4u);
  std::vector<std::size_t> reported;
  for (const auto& [done, all] : progress) {
    EXPECT_EQ(all, 4u);
    reported.push_back(done);
  }
  std::sort(reported.begin(), reported.end());
  EXPECT_EQ(reported, (std::vector<std::size_t>{1, 2, 3, 4}));
}

// A trace run echoes which trace it ran and how it read it (docs/SIMULATION.md "Traces"): the
// generator's spec with every key's effective value, or the file's path; the compression and
// the payload given (both non-default here, so an option that does not reach the trace fails).
TEST(RequestRun, ATraceRunEchoesItsTraceCompressionAndPayload) {
  SimulateRequest generated = SimulateRequest::fromValues({{"fabric", "kary-ntree:k=2,n=2"},
                                                           {"engine", "dmodk"},
                                                           {"trace-generate", "io:storage=1,clients=3,requests=2"},
                                                           {"compression", "2.5"},
                                                           {"payload", "512"}});
  const SimulateOutcome run = runSimulate(generated);
  ASSERT_TRUE(run.trace.has_value());
  EXPECT_EQ(run.trace->compression, 2.5);
  EXPECT_EQ(run.trace->payloadBytes, 512U);
  const nlohmann::json json = simulateResultJson(generated, run);
  EXPECT_EQ(json.at("traffic"), "trace");
  EXPECT_EQ(json.at("trace"), "io:storage=1,clients=3,requests=2,burst=8,gap=20000,service=200,writes=0.3");
  EXPECT_EQ(json.at("compression").get<double>(), 2.5);
  EXPECT_EQ(json.at("payload").get<std::uint32_t>(), 512U);
  for (const char* generatedOnly : {"load", "injection", "message_packets", "warmup"}) {
    EXPECT_FALSE(json.contains(generatedOnly)) << generatedOnly;
  }

  const std::string path = (test::scratchDir() / "echo-trace.csv").string();
  std::ofstream(path) << "time,source,destination,bytes\n0,0,3,2048\n10,3,0,64\n";
  SimulateRequest file =
      SimulateRequest::fromValues({{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}, {"trace", path}});
  const nlohmann::json fileJson = simulateResultJson(file, runSimulate(file));
  EXPECT_EQ(fileJson.at("trace"), path);
  EXPECT_EQ(fileJson.at("compression").get<double>(), 1.0);
  EXPECT_EQ(fileJson.at("payload").get<std::uint32_t>(), 1024U);
  EXPECT_EQ(fileJson.at("packets_delivered").get<std::uint64_t>(), 3U);  // 2 packets of 1 KiB, 1 of 64 bytes

  // A generated-traffic run names no trace.
  SimulateRequest bernoulli = SimulateRequest::fromValues(
      {{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}, {"cycles", "200"}, {"warmup", "100"}});
  const nlohmann::json bernoulliJson = simulateResultJson(bernoulli, runSimulate(bernoulli));
  EXPECT_FALSE(bernoulliJson.contains("trace"));
  EXPECT_FALSE(bernoulliJson.contains("compression"));
  EXPECT_FALSE(bernoulliJson.contains("payload"));
  EXPECT_EQ(bernoulliJson.at("injection"), "bernoulli");
  EXPECT_EQ(bernoulliJson.at("warmup").get<std::uint64_t>(), 100U);
  EXPECT_EQ(bernoulliJson.at("message_packets").get<std::uint32_t>(), 1U);
}

// The compare request: its typed options are CompareOptions' defaults when nothing is given,
// a non-default value reaches them, `simulate` is three-state, the engine list splits at
// ';' (an empty spec refused), and the request's JSON reads back to the same request.
TEST(RequestCompare, OptionsReachCompareOptionsAndRoundTrip) {
  const CompareRequest defaults = CompareRequest::fromValues({});
  const CompareOptions library;
  EXPECT_EQ(defaults.compare.spec, library.spec);
  EXPECT_EQ(defaults.compare.maxSamples, library.maxSamples);
  EXPECT_EQ(defaults.compare.precision, library.precision);
  EXPECT_EQ(defaults.compare.constraints.vls, library.constraints.vls);
  EXPECT_EQ(defaults.compare.simulate, library.simulate);
  EXPECT_EQ(defaults.compare.simulateAlways, library.simulateAlways);
  EXPECT_EQ(defaults.compare.simulateSteps, library.simulateSteps);
  const CompareRequest r = CompareRequest::fromJson({{"fabric", "kary-ntree:k=2,n=3"},
                                                     {"engines", "dmodk;mroots:layers=2"},
                                                     {"vls", 2},
                                                     {"in_order", true},
                                                     {"simulate", false},
                                                     {"max-shifts", 16},
                                                     {"precision", 0.05}});
  EXPECT_EQ(r.compare.engines, (std::vector<std::string>{"dmodk", "mroots:layers=2"}));
  EXPECT_EQ(r.compare.constraints.vls, 2u);
  EXPECT_TRUE(r.compare.constraints.inOrder);
  EXPECT_FALSE(r.compare.simulate);
  EXPECT_EQ(r.compare.maxShifts, 16u);
  EXPECT_EQ(r.compare.precision, 0.05);
  const nlohmann::json json = r.toJson();
  EXPECT_EQ(json["simulate"], false);
  EXPECT_EQ(json["vls"], 2);
  EXPECT_EQ(CompareRequest::fromJson(nlohmann::json::parse(json.dump())).toJson(), json);
  EXPECT_FALSE(defaults.toJson().contains("simulate"));
  EXPECT_EQ(errorOf("compare", {{"vls", "0"}}), "compare: vls must lie in [1, 15] (got 0)");
  EXPECT_THROW(CompareRequest::fromValues({{"engines", "dmodk;"}}), SpecError);
}

// runCompare runs the request's options: a 16-terminal fabric, two engines, no simulation.
TEST(RequestRun, CompareRunsFromTheRequest) {
  const CompareRequest request = CompareRequest::fromValues(
      {{"fabric", "kary-ntree:k=2,n=3"}, {"engines", "dmodk;updown"}, {"simulate", "false"}, {"vls", "1"}});
  std::vector<std::string> progress;
  const Comparison comparison = runCompare(request, {}, [&](const std::string& m) { progress.push_back(m); });
  ASSERT_EQ(comparison.engines.size(), 2u);
  EXPECT_FALSE(progress.empty());
  EXPECT_EQ(comparison.options.constraints.vls, 1u);
  const nlohmann::json json = nlohmann::json::parse(compareResultJson(comparison));
  EXPECT_EQ(json["configuration"]["vls"], 1);
  EXPECT_EQ(json["engines"].size(), 2u);
}

// The simulate request's run modes exclude each other, each pair refused with its message; a
// trace file and a generated trace are refused together by name.
TEST(RequestRun, SimulateRunModesExcludeEachOther) {
  const std::string modes = "--loads, --saturation and --trace/--trace-generate exclude each other";
  EXPECT_EQ(simulateRefusal({{"loads", "0.1:0.2:0.1"}, {"saturation", "true"}}), modes);
  EXPECT_EQ(simulateRefusal({{"loads", "0.1:0.2:0.1"}, {"trace", "t.csv"}}), modes);
  EXPECT_EQ(simulateRefusal({{"saturation", "true"}, {"trace-generate", "io:storage=1,clients=2"}}), modes);
  EXPECT_EQ(simulateRefusal({{"trace", "t.csv"}, {"trace-generate", "io:storage=1,clients=2"}}),
            "--trace and --trace-generate exclude each other");
  EXPECT_EQ(simulateRefusal({{"saturation", "true"}}), "accepted");
  EXPECT_EQ(simulateRefusal({{"trace", "t.csv"}}), "accepted");  // read when the request runs
}

// A trace is the traffic, measured whole (docs/SIMULATION.md "Traces"): each key that shapes
// generated traffic is refused beside a trace, by name, even at its default value, and accepted
// without one; the trace's own keys are refused without a trace.
TEST(RequestRun, KeysThatWouldDoNothingInTheRunModeAreRefused) {
  const KeyValues generatedOnly = {{"traffic", "uniform"},   {"load", "0.1"},   {"injection", "poisson"},
                                   {"message-packets", "2"}, {"cycles", "500"}, {"warmup", "100"}};
  for (const auto& [key, value] : generatedOnly) {
    SCOPED_TRACE(key);
    const std::string message =
        "--" + key + " does not apply to a trace run (the trace is the traffic, measured whole)";
    EXPECT_EQ(simulateRefusal({{"trace", "t.csv"}, {key, value}}), message);
    EXPECT_EQ(simulateRefusal({{"trace-generate", "io:storage=1,clients=2"}, {key, value}}), message);
    EXPECT_EQ(simulateRefusal({{key, value}}), "accepted");
  }
  for (const auto& [key, value] : KeyValues{{"compression", "2"}, {"payload", "1024"}}) {
    SCOPED_TRACE(key);
    EXPECT_EQ(simulateRefusal({{key, value}}),
              "--" + key + " applies only to a trace run (--trace or --trace-generate)");
    EXPECT_EQ(simulateRefusal({{key, value}, {"saturation", "true"}}),
              "--" + key + " applies only to a trace run (--trace or --trace-generate)");
    EXPECT_EQ(simulateRefusal({{key, value}, {"trace", "t.csv"}}), "accepted");
  }
}

// `loads` (docs/SIMULATION.md): a list of loads, each in (0, 1], or FROM:TO:STEP with
// 0 < FROM <= TO <= 1, STEP > 0 and at most 1,000 points — each bound at its limit (accepted)
// and one past (refused with the message).
TEST(RequestRun, SimulateLoadsHoldEachBoundAtItsLimit) {
  const auto loadsOf = [](const std::string& text) {
    return SimulateRequest::fromValues({{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}, {"loads", text}}).loads;
  };
  const auto refusal = [&](const std::string& text) {
    return test::thrownMessage<SpecError>([&] { loadsOf(text); }, "accepted");
  };
  EXPECT_EQ(loadsOf("0.25,1,0.5"), (std::vector<double>{0.25, 1.0, 0.5}));
  EXPECT_EQ(loadsOf("1e-9"), (std::vector<double>{1e-9}));
  EXPECT_EQ(refusal("0.5,1.0000001"), "simulate: load must lie in (0, 1] (got 1.0000001)");
  EXPECT_EQ(refusal("0,0.5"), "simulate: load must lie in (0, 1] (got 0)");
  EXPECT_EQ(refusal("0.5,-0.5"), "simulate: load must lie in (0, 1] (got -0.5)");
  EXPECT_EQ(refusal("0.5,x"), "simulate: loads: 'x' is not a number");

  EXPECT_EQ(loadsOf("0.1:0.3:0.1"), (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(loadsOf("1:1:0.5"), (std::vector<double>{1.0}));
  EXPECT_EQ(loadsOf("0.001:1:0.001").size(), 1000U);  // exactly 1,000 points
  EXPECT_EQ(refusal("0.000999:1:0.000999"), "--loads '0.000999:1:0.000999': 1001 points (at most 1000)");
  const std::string bounds = "needs 0 < FROM <= TO <= 1 and STEP > 0";
  for (const std::string text : {"0:0.5:0.1", "0.1:1.01:0.1", "0.5:0.4:0.1", "0.1:0.5:0"}) {
    EXPECT_EQ(refusal(text), "--loads '" + text + "': " + bounds) << text;
  }
}

// --threads of one simulation: the documented default is 1 (the schema row's help; the row
// has no default value because --loads reads its absence as "every core"); a given count,
// 0 ("every core") included, reaches the simulator's configuration as given.
TEST(RequestSchema, SimulateThreadsDefaultToOneAndAGivenCountPassesThrough) {
  const SimulateRequest plain = SimulateRequest::fromValues(required("simulate"));
  EXPECT_FALSE(plain.threads.has_value());
  EXPECT_EQ(plain.config.threads, 1U);
  for (const int threads : {0, 1, 3, 4096}) {
    KeyValues values = required("simulate");
    values.emplace_back("threads", std::to_string(threads));
    const SimulateRequest given = SimulateRequest::fromValues(values);
    EXPECT_EQ(given.threads, threads);
    EXPECT_EQ(given.config.threads, static_cast<std::uint32_t>(threads));
  }
}
