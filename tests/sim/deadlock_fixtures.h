// A ring of switches as an ibsim net file, for the simulator's deadlock tests (test_sim*.cpp).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace routelab::test {

/// A ring of `switches` switches, one terminal each, written as an ibsim net file in the
/// test's temporary folder under a name that starts with `stem` (tests run as separate
/// processes at once: each caller its own file). Returns the fabric spec "net:PATH".
inline std::string ringFabric(int switches, const std::string& stem) {
  const std::string path = ::testing::TempDir() + stem + std::to_string(switches) + ".net";
  std::ofstream out(path);
  for (int s = 0; s < switches; ++s) {
    out << "Switch 3 \"s" << s << "\"\n[1] \"h" << s << "\"[1]\n[2] \"s" << (s + 1) % switches << "\"[3]\n[3] \"s"
        << (s + switches - 1) % switches << "\"[2]\n\n";
  }
  for (int s = 0; s < switches; ++s) out << "Hca 1 \"h" << s << "\"\n[1] \"s" << s << "\"[1]\n\n";
  return "net:" + path;
}

}  // namespace routelab::test
