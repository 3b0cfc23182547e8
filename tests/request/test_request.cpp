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
#include "engines/registry.h"
#include "fabric/fabric.h"
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
  for (const char* generatedOnly : {"load", "injection", "message_packets", "warmup", "cycles"}) {
    EXPECT_FALSE(json.contains(generatedOnly)) << generatedOnly;
  }
  EXPECT_EQ(json.at("simulated_cycles"), run.results.front().cycles);
  EXPECT_GE(run.results.front().cycles, run.results.front().lastDelivery);

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

// Each key of schedule's JSON reads its own member (docs/SCHEDULING.md "JSON"): a real run on
// a small fat-tree with --rounds, its figures then set to values of their own.
TEST(ScheduleResultJson, EveryKeyReadsItsOwnMember) {
  const ScheduleRequest request = ScheduleRequest::fromValues(
      {{"fabric", "ft:l=2,m=2,w=2"}, {"permutations", "2"}, {"seed", "13"}, {"rounds", "true"}});
  ScheduleOutcome outcome = runSchedule(request);
  SchedulabilityStats& stats = outcome.experiment.stats;
  stats.samples = 4;
  stats.requests = 10;
  stats.granted = 7;
  stats.ratioMean = 0.625;
  stats.ratioMin = 0.5;
  stats.ratioMax = 0.75;
  stats.ratioStddev = 0.125;
  stats.noCommonPort = 21;
  stats.noUpPort = 22;
  stats.downConflict = 23;
  stats.ratios = {0.5, 0.75, 0.5, 0.75};
  outcome.experiment.firstCheck.circuits = 31;
  outcome.experiment.firstCheck.channelsUsed = 32;
  outcome.experiment.firstCheck.ok = true;
  RoundsResult rounds;
  rounds.rounds = 41;
  rounds.bound.terminalLinks = 42;
  rounds.bound.switchCuts = 43;
  rounds.grantedPerRound = {44, 45};
  outcome.experiment.rounds = {rounds};
  outcome.experiment.roundsSummary = {46.5, 47, 48, 49};
  const nlohmann::json j = scheduleResultJson(request, outcome);
  const nlohmann::json expected = {
      {"spec", "ft:l=2,m=2,w=2"},
      {"xgft", outcome.fabric->network.xgft()->params.str()},
      {"terminals", 4},
      {"scheduler", outcome.config.effective},
      {"reference", j.at("reference")},
      {"pattern", "permutation"},
      {"seed", 13},
      {"permutations", 4},
      {"requests", 2.5},
      {"requests_total", 10},
      {"granted_total", 7},
      {"ratio_mean", 0.625},
      {"ratio_min", 0.5},
      {"ratio_max", 0.75},
      {"ratio_stddev", 0.125},
      {"failures", {{"no_common_port", 21}, {"no_up_port", 22}, {"down_conflict", 23}}},
      {"ratios", {0.5, 0.75, 0.5, 0.75}},
      {"checked", {{"sample", 0}, {"circuits", 31}, {"channels", 32}, {"conflict_free", true}}},
      {"rounds",
       {{"mean", 46.5},
        {"min", 47},
        {"max", 48},
        {"lower_bound_max", 49},
        {"samples",
         {{{"rounds", 41},
           {"lower_bound", 43},
           {"terminal_link_bound", 42},
           {"switch_cut_bound", 43},
           {"granted_per_round", {44, 45}}}}}}}};
  EXPECT_EQ(j, expected) << j.dump(1);
  EXPECT_FALSE(j.at("reference").get<std::string>().empty());
  // The larger bound is the lower bound, either way round; no `rounds` without --rounds.
  outcome.experiment.rounds[0].bound.terminalLinks = 50;
  EXPECT_EQ(scheduleResultJson(request, outcome)["rounds"]["samples"][0]["lower_bound"], 50);
  EXPECT_FALSE(
      scheduleResultJson(ScheduleRequest::fromValues({{"fabric", "ft:l=2,m=2,w=2"}}), outcome).contains("rounds"));
}

// --release-on-fail joins the scheduler's own options (docs/SCHEDULING.md): with or without
// options given in --scheduler, each scheduler runs with release and echoes it with the rest.
TEST(ScheduleRequestSpec, ReleaseOnFailJoinsTheSchedulersOwnOptions) {
  for (const auto& [scheduler, effective] : std::vector<std::pair<std::string, std::string>>{
           {"level-wise", "level-wise:policy=first,order=level,release-on-fail=true"},
           {"level-wise:policy=random", "level-wise:policy=random,order=level,release-on-fail=true"},
           {"local-greedy:order=request", "local-greedy:order=request,release-on-fail=true"},
           {"local-random", "local-random:order=level,release-on-fail=true"}}) {
    const ScheduleRequest request = ScheduleRequest::fromValues(
        {{"fabric", "ft:l=2,m=2,w=2"}, {"scheduler", scheduler}, {"release-on-fail", "true"}, {"permutations", "2"}});
    const ScheduleOutcome outcome = runSchedule(request);
    EXPECT_EQ(outcome.config.effective, effective) << scheduler;
    EXPECT_TRUE(outcome.config.releaseOnFail) << scheduler;
    const ScheduleRequest without =
        ScheduleRequest::fromValues({{"fabric", "ft:l=2,m=2,w=2"}, {"scheduler", scheduler}});
    EXPECT_EQ(without.schedulerSpec(), scheduler);
  }
}

// The configuration simulate's JSON echoes is the request's, key by key: every model option
// given a value other than its default, and each read back under its own key
// (docs/SIMULATION.md "Output").
TEST(SimulateResultJson, TheConfigurationEchoReadsEachOptionGiven) {
  const SimulateRequest request = SimulateRequest::fromValues({{"fabric", "kary-ntree:k=2,n=2"},
                                                               {"engine", "dmodk"},
                                                               {"traffic", "bit-reversal"},
                                                               {"load", "0.3"},
                                                               {"seed", "21"},
                                                               {"packet-flits", "6"},
                                                               {"vcs", "3"},
                                                               {"buffer-packets", "5"},
                                                               {"routing-delay", "2"},
                                                               {"fly-time", "4"},
                                                               {"selection", "least-occupied"},
                                                               {"arbitration", "age"},
                                                               {"paths", "round-robin"},
                                                               {"injection", "poisson"},
                                                               {"message-packets", "7"},
                                                               {"in-order", "true"},
                                                               {"reorder-buffer", "9"},
                                                               {"cycles", "300"},
                                                               {"warmup", "50"},
                                                               {"watchdog", "9000"}});
  const SimulateOutcome outcome = runSimulate(request);
  const nlohmann::json j = simulateResultJson(request, outcome);
  const nlohmann::json expected = {{"fabric", "kary-ntree:k=2,n=2"},
                                   {"terminals", 4},
                                   {"engine", "dmodk"},
                                   {"traffic", "bit-reversal"},
                                   {"load", 0.3},
                                   {"seed", 21},
                                   {"packet_flits", 6},
                                   {"vcs", 3},
                                   {"buffer_packets", 5},
                                   {"routing_delay", 2},
                                   {"fly_time", 4},
                                   {"selection", "least-occupied"},
                                   {"arbitration", "age"},
                                   {"paths", "round-robin"},
                                   {"injection", "poisson"},
                                   {"message_packets", 7},
                                   {"in_order", true},
                                   {"reorder_buffer", 9},
                                   {"cycles", 300},
                                   {"warmup", 50},
                                   {"watchdog", 9000}};
  for (const auto& [key, value] : expected.items()) EXPECT_EQ(j.at(key), value) << key;
  // The result's own keys follow (SimResultJson.EveryKeyReadsItsOwnMember): one value read
  // against the run, and the automatic warm-up named as such.
  EXPECT_EQ(j.at("packets_delivered"), outcome.results.front().packetsDelivered);
  SimulateRequest automatic = SimulateRequest::fromValues(
      {{"fabric", "kary-ntree:k=2,n=2"}, {"engine", "dmodk"}, {"cycles", "300"}, {"packet-flits", "3"}});
  EXPECT_EQ(simulateResultJson(automatic, runSimulate(automatic)).at("warmup"), "auto");
}

// Each key of analyze's JSON reads its own member, for each metric's part (docs/ANALYSIS.md
// "Output"): the request's echo, WORST's witness, a sampled metric's statistics and
// histograms, a pattern's loads and ascending usage, and the stages' path counts — every
// value set apart on a real fabric and routing.
TEST(AnalyzeResultJson, EachPartsKeysReadTheirOwnMembers) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const Network& net = fabric.network;
  const RoutingResult routing = runEngine("dmodk", net);
  auto outcomeWith = [&](auto&& fill) {
    AnalyzeOutcome o;
    o.fabric = fabric;
    o.routing = routing;
    fill(o);
    return o;
  };
  const ChannelId c3 = ChannelId::fromIndex(3);
  const nlohmann::json channel3 = {{"id", 3},
                                   {"from", net.describePort(net.source(c3), net.sourcePort(c3))},
                                   {"to", net.describePort(net.target(c3), net.targetPort(c3))},
                                   {"description", net.describeChannel(c3)}};
  const std::string h0 = net.name(net.terminalNode(0)), h1 = net.name(net.terminalNode(1));
  const std::string h2 = net.name(net.terminalNode(2)), h3 = net.name(net.terminalNode(3));
  auto expectKeys = [](const nlohmann::json& j, const nlohmann::json& expected, const std::string& what) {
    for (const auto& [key, value] : expected.items()) {
      ASSERT_TRUE(j.contains(key)) << what << ": " << key;
      EXPECT_EQ(j.at(key), value) << what << ": " << key;
    }
  };

  // The request's echo, and WORST (even split: exact unless the bounds differ).
  const AnalyzeRequest worstRequest = AnalyzeRequest::fromValues({{"fabric", fabric.spec},
                                                                  {"engine", "dmodk"},
                                                                  {"metric", "worst"},
                                                                  {"seed", "5"},
                                                                  {"threads", "2"},
                                                                  {"lmc", "1"},
                                                                  {"load-model", "best-split"}});
  const AnalyzeOutcome worst = outcomeWith([&](AnalyzeOutcome& o) {
    o.singlePath = false;
    SplitWorstCase w;
    w.value = 2.5;
    w.lower = 2.25;
    w.channel = c3;
    w.witness = {{0, 1}, {2, 3}};
    w.channelsSolved = 7;
    o.worst = w;
  });
  expectKeys(analyzeResultJson(worstRequest, worst),
             {{"metric", "worst"},
              {"spec", fabric.spec},
              {"engine", routing.engine},
              {"seed", 5},
              {"threads", 2},
              {"terminals", 4},
              {"deterministic_routing", routing.deterministic},
              {"lmc", 1},
              {"single_path", false},
              {"load_model", "best-split"},
              {"value", 2.5},
              {"lower_bound", 2.25},
              {"ci99_halfwidth", 0.0},
              {"samples", 0},
              {"exact", false},
              {"channel", channel3},
              {"witness",
               {{{"source", h0}, {"destination", h1}, {"source_index", 0}, {"destination_index", 1}},
                {{"source", h2}, {"destination", h3}, {"source_index", 2}, {"destination_index", 3}}}},
              {"channels_solved", 7}},
             "worst");

  // A sampled metric (ABB under best split on a multipath routing: the solver's keys too).
  const AnalyzeRequest sampledRequest = AnalyzeRequest::fromValues({{"fabric", fabric.spec},
                                                                    {"engine", "dmodk"},
                                                                    {"metric", "abb"},
                                                                    {"precision", "0.02"},
                                                                    {"max-samples", "5000"},
                                                                    {"load-model", "best-split"},
                                                                    {"split-tolerance", "0.001"}});
  const AnalyzeOutcome sampled = outcomeWith([&](AnalyzeOutcome& o) {
    o.singlePath = false;
    SampledBandwidth s;
    s.pattern = "bisect";
    s.mean = 0.75;
    s.ci99HalfWidth = 0.0125;
    s.samples = 2000;
    s.converged = true;
    s.meanMaxLoad = 1.5;
    s.exact = false;
    s.bandwidthUpperBound = 0.875;
    s.maxRelativeGap = 0.0625;
    s.maxIterations = 33;
    s.maxLoadHistogram = {{2, 10}, {3, 5}};
    s.splitHistogram = {{2.5, 4}};
    o.sampled = s;
  });
  const nlohmann::json sampledJson = analyzeResultJson(sampledRequest, sampled);
  expectKeys(sampledJson,
             {{"metric", "abb"},
              {"pattern", "bisect"},
              {"value", 0.75},
              {"mean", 0.75},
              {"ci99_halfwidth", 0.0125},
              {"samples", 2000},
              {"converged", true},
              {"precision", 0.02},
              {"initial_samples", SamplingOptions{}.initialSamples},
              {"max_samples", 5000},
              {"mean_max_load", 1.5},
              {"exact", false},
              {"bandwidth_upper_bound", 0.875},
              {"max_relative_gap", 0.0625},
              {"split_tolerance", 0.001},
              {"split_iterations_max", 33},
              {"max_load_histogram", {{"2", 10}, {"3", 5}, {"2.5", 4}}}},
             "sampled");
  // Single-path (or not best split): no solver keys.
  const nlohmann::json singlePath =
      analyzeResultJson(sampledRequest, outcomeWith([&](AnalyzeOutcome& o) { o.sampled = sampled.sampled; }));
  EXPECT_FALSE(singlePath.contains("split_tolerance"));
  EXPECT_FALSE(singlePath.contains("split_iterations_max"));

  // A pattern's loads.
  const AnalyzeRequest patternRequest = AnalyzeRequest::fromValues(
      {{"fabric", fabric.spec}, {"engine", "dmodk"}, {"metric", "pattern"}, {"pattern", "shift:s=1"}});
  const AnalyzeOutcome pattern = outcomeWith([&](AnalyzeOutcome& o) {
    TrafficPattern p;
    p.spec = "random-permutation";
    p.random = true;
    p.seed = 77;
    p.terminals = 4;
    p.pairs = {{0, 1}, {1, 0}, {2, 3}};
    o.pattern = p;
    LinkLoads l;
    l.maxLoad = 4;
    l.lowerBound = 3.5;
    l.maxChannel = c3;
    l.channelsAtMax = 6;
    l.pairs = 9;
    l.ascending = {{2, 5, 1, 3, 4}};
    o.loads = l;
  });
  expectKeys(analyzeResultJson(patternRequest, pattern),
             {{"metric", "pattern"},
              {"pattern", "random-permutation"},
              {"pattern_seed", 77},
              {"pairs", 9},
              {"permutation", true},
              {"value", 4.0},
              {"max_load", 4.0},
              {"lower_bound", 3.5},
              {"exact", false},
              {"bandwidth", 0.25},
              {"ci99_halfwidth", 0.0},
              {"samples", 1},
              {"channel", channel3},
              {"channels_at_max", 6},
              {"ascending_usage",
               {{{"level", 2},
                 {"switches_sending_up", 5},
                 {"min_channels_per_switch", 1},
                 {"max_channels_per_switch", 3},
                 {"available_per_switch", 4}}}}},
             "pattern");
  // A fixed pattern has no seed; no load has no bandwidth and no channel.
  const nlohmann::json empty = analyzeResultJson(patternRequest, outcomeWith([&](AnalyzeOutcome& o) {
                                                   TrafficPattern p;
                                                   p.spec = "shift:s=1";
                                                   p.terminals = 4;
                                                   o.pattern = p;
                                                   o.loads = LinkLoads{};
                                                 }));
  EXPECT_TRUE(empty.at("pattern_seed").is_null());
  EXPECT_TRUE(empty.at("bandwidth").is_null());
  EXPECT_TRUE(empty.at("channel").is_null());

  // The stages: the largest path count is the value, balanced only if every stage is.
  const AnalyzeRequest stagesRequest =
      AnalyzeRequest::fromValues({{"fabric", fabric.spec}, {"engine", "dmodk"}, {"metric", "stages"}});
  const AnalyzeOutcome stages = outcomeWith([&](AnalyzeOutcome& o) {
    StagePathCounts s;
    s.stages = {{0, true, 4, 2, 2, 2.0}, {1, false, 8, 1, 3, 2.5}};
    o.stages = s;
  });
  expectKeys(analyzeResultJson(stagesRequest, stages),
             {{"metric", "stages"},
              {"load_model", "first-path"},
              {"value", 3},
              {"ci99_halfwidth", 0.0},
              {"samples", 0},
              {"balanced", false},
              {"stages",
               {{{"lower_level", 0},
                 {"direction", "up"},
                 {"channels", 4},
                 {"min_paths", 2},
                 {"max_paths", 2},
                 {"mean_paths", 2.0},
                 {"balanced", true}},
                {{"lower_level", 1},
                 {"direction", "down"},
                 {"channels", 8},
                 {"min_paths", 1},
                 {"max_paths", 3},
                 {"mean_paths", 2.5},
                 {"balanced", false}}}}},
             "stages");
}
