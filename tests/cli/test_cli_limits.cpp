// Limits (docs/RELIABILITY.md, "Limits"): a request beyond the 24 GiB memory budget is
// refused with a message naming the structure and its size, before allocating it — so the
// command fails fast and stays small instead of being killed for memory. Each row asks for
// one too-large case through the CLI.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.h"

using routelab::test::runRoutelab;

namespace {

struct TooLarge {
  const char* name;
  const char* arguments;
  std::vector<const char*> mentions;
};

const std::vector<TooLarge>& rows() {
  static const std::vector<TooLarge> table = {
      // A fabric: 64^6 terminals are far beyond the 2^26 nodes the generators build.
      {"fabric_kary_ntree", "topo kary-ntree:k=64,n=6", {"too many nodes (limit 2^26)"}},
      {"fabric_xgft", "topo xgft:h=4,m=100.100.100.100,w=1.1.1.1", {"too many nodes (limit 2^26)"}},
      {"fabric_ft", "topo ft:l=5,m=100,w=100", {"too many nodes (limit 2^26)"}},
      {"fabric_random", "topo random:switches=2000000000,terminals=1", {"exceeds"}},
      // A forwarding table: 2^17 switches x 2^20 addresses = 128 GiB.
      {"forwarding_table",
       "route kary-ntree:k=32,n=4 --engine dmodk --no-checks",
       {"forwarding table of 131072 switches x 1048576 addresses", "128.0 GiB exceeds the 24.0 GiB memory budget"}},
      // Pair paths with 32-bit offsets: the 32,768 terminals of the 32-ary 3-tree need at least
      // 6.37 G channel entries (2 + the switch distance per pair) > 2^32 — refused before the
      // walk of every pair (it took 4.5 minutes).
      {"pair_path_entries",
       "analyze kary-ntree:k=32,n=3 --engine dmodk --metric abb",
       {"pair paths of 32768 terminals exceed 2^32 channel entries"}},
      // Pair paths: 48,000 terminals need at least 48000^2 x 12 bytes = 25.7 GiB. The sampled
      // bandwidth metrics store every pair's path (WORST no longer does: worst.h).
      {"pair_paths",
       "analyze gft2:n=200,m=1,r=240 --engine dmodk --metric abb",
       {"pair paths of 48000 terminals", "exceeds the 24.0 GiB memory budget"}},
  };
  return table;
}

class Limits : public ::testing::TestWithParam<TooLarge> {};

TEST_P(Limits, RefusedBeforeAllocation) {
  const TooLarge& row = GetParam();
  const auto start = std::chrono::steady_clock::now();
  const auto result = runRoutelab(row.arguments);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.exitCode, 1) << row.arguments << "\n" << result.err;
  EXPECT_EQ(result.err.rfind("routelab: error: ", 0), 0u) << result.err;
  for (const char* mention : row.mentions) {
    EXPECT_NE(result.err.find(mention), std::string::npos) << "stderr lacks '" << mention << "': " << result.err;
  }
  // Refused up front: no attempt to build the structure (generous bound for sanitizer builds).
  EXPECT_LT(seconds, 60.0) << row.arguments;
  // The child's peak memory stayed far below the structure it refused.
  struct rusage usage {};
  ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
  EXPECT_LT(usage.ru_maxrss, 4L << 20) << "peak RSS of a child process in KiB";
}

INSTANTIATE_TEST_SUITE_P(TooLargeRequests, Limits, ::testing::ValuesIn(rows()),
                         [](const auto& parameter) { return std::string(parameter.param.name); });

}  // namespace
