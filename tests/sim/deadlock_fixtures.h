// A ring of switches as an ibsim net file and a saturating configuration on one-packet buffers:
// the fixtures of the simulator's deadlock tests (tests/sim, tests/report).
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <string>

#include "sim/model.h"

namespace routelab::test {

/// A ring of `switches` switches, one terminal each, written as an ibsim net file in the
/// test's temporary folder under a name that starts with `stem` (tests run as separate
/// processes at once: each caller its own file). Port 1 to the terminal, 2 to the next switch,
/// 3 to the previous; ports past 3 (`ports` > 3) have no cable. Returns the fabric spec "net:PATH".
inline std::string ringFabric(int switches, const std::string& stem, int ports = 3) {
  const std::string path = ::testing::TempDir() + stem + std::to_string(switches) + ".net";
  std::ofstream out(path);
  for (int s = 0; s < switches; ++s) {
    out << "Switch " << ports << " \"s" << s << "\"\n[1] \"h" << s << "\"[1]\n[2] \"s" << (s + 1) % switches
        << "\"[3]\n[3] \"s" << (s + switches - 1) % switches << "\"[2]\n\n";
  }
  for (int s = 0; s < switches; ++s) out << "Hca 1 \"h" << s << "\"\n[1] \"s" << s << "\"[1]\n\n";
  return "net:" + path;
}

/// Saturating load on one-packet buffers, run `seed` (1, 2 or 3) of a deadlock hunt: each seed
/// with another arbitration (the fair ones make some waiting cycles rarer). Watchdog 2,000
/// cycles; a measurement window long enough that a deadlock-prone routing meets one.
inline SimConfig deadlockProneConfig(std::uint64_t seed) {
  SimConfig config;
  config.load = 1.0;
  config.warmupCycles = 100;
  config.measureCycles = 100000;
  config.watchdogCycles = 2000;
  config.routingDelay = 2;
  config.bufferPackets = 1;
  config.seed = seed;
  config.arbitration =
      std::array{Arbitration::RoundRobin, Arbitration::Age, Arbitration::SwitchRoundRobin}.at(seed - 1);
  return config;
}

}  // namespace routelab::test
