// Soak test (docs/RELIABILITY.md): the whole CLI over a few hundred random fabrics with
// random faults and every routing engine of `routelab list`. Each fabric is summarised
// (topo), routed and verified by every engine (verify), and one engine per fabric is also
// run through route and analyze. Every output is checked against the verifier's
// invariants; nothing may crash (exit 3 or a signal), hang (CTest timeout) or print an
// inconsistent answer.
//
// Label `soak`; ROUTELAB_SOAK_FABRICS sets the number of fabrics (default 200), the
// fabrics and engines are seeded from the fabric number, so a failure names its command
// and reproduces.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

using routelab::test::runRoutelab;
using Json = nlohmann::json;

namespace {

constexpr int kOk = 0;
constexpr int kBadInput = 1;
constexpr int kDeadlockProne = 4;
constexpr int kDisconnected = 5;

/// Engines that do not promise deadlock freedom (docs/LAYERED.md, docs/ROUTING.md).
const std::set<std::string> kMayDeadlock = {"minhop"};

std::size_t fabricCount() {
  if (const char* value = std::getenv("ROUTELAB_SOAK_FABRICS")) return std::strtoul(value, nullptr, 10);
  return 200;
}

/// A random small fabric with random faults, from `index` (reproducible).
std::string randomFabric(std::uint32_t index) {
  std::mt19937 rng(index * 2654435761U + 17);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
  std::string spec;
  switch (pick(0, 5)) {
    case 0:
    case 1:
    case 2: {
      const int switches = pick(4, 20);
      spec = "random:switches=" + std::to_string(switches) + ",terminals=" + std::to_string(pick(1, 3)) +
             ",seed=" + std::to_string(index);
      if (pick(0, 1)) spec += ",links=" + std::to_string(switches - 1 + pick(0, switches));
      break;
    }
    case 3: spec = "kary-ntree:k=" + std::to_string(pick(2, 4)) + ",n=" + std::to_string(pick(2, 3)); break;
    case 4:
      spec = "gft2:n=" + std::to_string(pick(1, 6)) + ",m=" + std::to_string(pick(1, 6)) +
             ",r=" + std::to_string(pick(2, 8));
      break;
    default:
      spec = "ft:l=" + std::to_string(pick(1, 3)) + ",m=" + std::to_string(pick(2, 4)) +
             ",w=" + std::to_string(pick(1, 3));
      break;
  }
  switch (pick(0, 3)) {
    case 0: break;  // no fault
    case 1:
    case 2: spec += "+fail-links=" + std::to_string(pick(1, 4)) + ",seed=" + std::to_string(index); break;
    default: spec += "+fail-switches=1,seed=" + std::to_string(index); break;
  }
  return spec;
}

std::vector<std::string> engineNames() {
  const auto r = runRoutelab("list --format json");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  std::vector<std::string> names;
  const Json list = Json::parse(r.out, nullptr, false);
  if (!list.is_object()) return names;
  for (const auto& [family, rows] : list.items()) {
    if (family.find("engine") == std::string::npos || !rows.is_array()) continue;
    for (const auto& row : rows) {
      if (row.contains("name") && row["name"].is_string() && row["name"] != "file") names.push_back(row["name"]);
    }
  }
  return names;
}

/// A bad-input answer is one line naming the error; never an internal error.
void expectCleanError(const routelab::test::CommandResult& r, const std::string& command) {
  EXPECT_EQ(r.err.rfind("routelab: error: ", 0), 0u) << command << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << "\n" << r.err;
}

/// Runs the commands on every core (the CLI processes are independent); results in order.
std::vector<routelab::test::CommandResult> runAll(const std::vector<std::string>& commands) {
  std::vector<routelab::test::CommandResult> results(commands.size());
  std::atomic<std::size_t> next(0);
  std::vector<std::thread> workers;
  const unsigned count = std::max(2U, std::thread::hardware_concurrency());
  for (unsigned w = 0; w < count; ++w) {
    workers.emplace_back([&] {
      for (std::size_t i = next++; i < commands.size(); i = next++) results[i] = runRoutelab(commands[i]);
    });
  }
  for (auto& worker : workers) worker.join();
  return results;
}

Json parsed(const routelab::test::CommandResult& r, const std::string& command) {
  Json j = Json::parse(r.out, nullptr, false);
  EXPECT_TRUE(j.is_object()) << command << ": output is not JSON:\n" << r.out.substr(0, 500);
  return j;
}

TEST(Soak, EveryEngineOnRandomFaultyFabrics) {
  const std::vector<std::string> engines = engineNames();
  ASSERT_GE(engines.size(), 10u) << "routelab list gave too few engines";
  std::size_t verified = 0, refused = 0, deadlockProne = 0;
  std::map<std::string, std::size_t> verifiedBy;
  const std::size_t fabrics = fabricCount();
  for (std::uint32_t index = 0; index < fabrics; ++index) {
    const std::string spec = randomFabric(index);
    const auto topo = runRoutelab("topo '" + spec + "' --format json");
    if (topo.exitCode == kBadInput) {  // a fault request the fabric cannot take (e.g. too few switches)
      expectCleanError(topo, spec);
      continue;
    }
    ASSERT_EQ(topo.exitCode, kOk) << spec << "\n" << topo.err;
    const Json summary = parsed(topo, spec);
    ASSERT_TRUE(summary.is_object());
    std::mt19937 rng(index);
    const std::string extraEngine = engines[rng() % engines.size()];
    std::vector<std::string> commands;
    for (const std::string& engine : engines) {
      commands.push_back("verify '" + spec + "' --engine " + engine + " --seed " + std::to_string(index) +
                         " --format json");
    }
    const auto results = runAll(commands);
    for (std::size_t e = 0; e < engines.size(); ++e) {
      const std::string& engine = engines[e];
      const std::string& command = commands[e];
      const auto& r = results[e];
      SCOPED_TRACE(command);
      ASSERT_TRUE(r.exitCode == kOk || r.exitCode == kBadInput || r.exitCode == kDeadlockProne ||
                  r.exitCode == kDisconnected)
          << "exit " << r.exitCode << "\n"
          << r.err;
      if (r.exitCode == kBadInput) {  // engine does not fit the fabric, or the fabric is disconnected
        expectCleanError(r, command);
        ++refused;
        continue;
      }
      const Json v = parsed(r, command);
      ASSERT_TRUE(v.is_object());
      ++verified;
      ++verifiedBy[engine];
      // The verdict and the exit code agree (docs/VERIFY.md).
      const bool connected = v["connected"], loopFree = v["loop_free"], deadlockFree = v["deadlock_free"];
      EXPECT_EQ(v["exit_code"], r.exitCode);
      EXPECT_EQ(v["passed"], r.exitCode == kOk);
      EXPECT_EQ(r.exitCode == kDisconnected, !connected || !loopFree);
      EXPECT_EQ(r.exitCode == kDeadlockProne, connected && loopFree && !deadlockFree);
      if (r.exitCode == kDeadlockProne) {
        ++deadlockProne;
        EXPECT_TRUE(v["cycle"].is_array() && !v["cycle"].empty()) << "deadlock-prone without a witness";
      }
      // Every route checked is delivered exactly when the routing is connected.
      const Json& counts = v["counts"];
      EXPECT_LE(counts["delivered"].get<std::uint64_t>(), counts["routes"].get<std::uint64_t>());
      if (connected) {
        EXPECT_EQ(counts["delivered"], counts["routes"]);
      }
      EXPECT_EQ(v["layers"].get<std::uint64_t>(), v["dependencies"].size());
      // An engine returns a routing only when it can deliver: a connected routing, and
      // deadlock-free unless the engine makes no such promise.
      EXPECT_TRUE(connected && loopFree) << "the engine returned a routing that does not deliver";
      if (!kMayDeadlock.contains(engine)) {
        EXPECT_TRUE(deadlockFree) << "the engine promises deadlock freedom";
      }
      if (engine != extraEngine) continue;
      // The same engine through route (its own checks) and analyze.
      const std::string routeCommand =
          "route '" + spec + "' --engine " + engine + " --seed " + std::to_string(index) + " --format json";
      const auto route = runRoutelab(routeCommand);
      EXPECT_TRUE(route.exitCode == kOk || route.exitCode == kDisconnected) << routeCommand << "\n" << route.err;
      EXPECT_EQ(route.exitCode == kOk, connected && loopFree) << routeCommand << "\n" << route.out;
      const std::string analyzeCommand = "analyze '" + spec + "' --engine " + engine + " --seed " +
                                         std::to_string(index) + " --metric pattern --pattern random-permutation";
      const auto analyze = runRoutelab(analyzeCommand);
      EXPECT_TRUE(analyze.exitCode == kOk || analyze.exitCode == kBadInput) << analyzeCommand << "\n" << analyze.err;
      if (analyze.exitCode == kBadInput) expectCleanError(analyze, analyzeCommand);
    }
    if (::testing::Test::HasFailure()) break;  // the first failing fabric is enough to debug
  }
  // The run exercised every engine for real, not only its refusals (fat-tree engines only
  // take intact fat-trees, about one fabric in eight).
  if (fabrics >= 50) {
    for (const std::string& engine : engines)
      EXPECT_GT(verifiedBy[engine], 0u) << engine << " never produced a routing";
  }
  EXPECT_GT(verified, 0u);
  RecordProperty("verified", static_cast<int>(verified));
  RecordProperty("refused", static_cast<int>(refused));
  RecordProperty("deadlock_prone", static_cast<int>(deadlockProne));
}

}  // namespace
