// The limits table of docs/RELIABILITY.md ("Limits"), read from the document: every row has a
// boundary check here (a new row fails LimitsTable.EveryDocumentedRowHasItsBoundaryCheck until
// it gets one). Each check asks for exactly the limit (accepted) and one past it (refused with
// the message), where the structure at the limit can be built in a test; the structures sized
// by the 24 GiB budget are checked at one byte past it through their own size check, and the
// budget's boundary (accepted at exactly 24 GiB) through checkMemory, which every one calls.
// tests/cli/test_cli_limits.cpp asks for the same refusals through the CLI.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/limits.h"
#include "fabric/fabric.h"
#include "io/output.h"
#include "routing/routing_result.h"
#include "test_support.h"

using namespace routelab;

namespace {

/// The first column of every row of the table under "## Limits" in docs/RELIABILITY.md.
std::vector<std::string> documentedRows() {
  std::ifstream in(test::sourceDir() + "/docs/RELIABILITY.md");
  EXPECT_TRUE(in.good());
  std::vector<std::string> rows;
  bool inSection = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) inSection = line == "## Limits";
    if (!inSection || line.rfind("| ", 0) != 0) continue;
    const std::size_t end = line.find(" |", 2);
    const std::string first = line.substr(2, end - 2);
    if (first != "structure") rows.push_back(first);
  }
  return rows;
}

/// What each documented row is checked by (tests in this file unless named otherwise) and,
/// where the structure at exactly its limit is not built here, why.
struct LimitRow {
  std::string structure;
  std::string check;
  std::string notBuiltAtTheLimit;
};

const char* const kOptionLimits = "OptionLimits.EveryDocumentedOptionHoldsAtItsLimitsAndIsRefusedOnePast";

const std::vector<LimitRow>& limitRows() {
  static const std::vector<LimitRow> rows = {
      {"fabric (generators)", "LimitsTable.FabricNodesOnePastTwoToTheTwentySixAreRefused",
       "2^26 nodes take about 12 GB to build"},
      {"input file", "LimitsTable.InputFileAtOneGibibyteIsReadAndOneBytePastRefused", ""},
      {"forwarding table", "LimitsTable.ForwardingTableOneEntryPastTheBudgetIsRefused", "24 GiB of entries"},
      {"per-pair layers of an SL file", "LimitsTable.MemoryBudgetAcceptsExactlyTwentyFourGibibytes",
       "24 Gi pairs; one past: tests/cli/test_cli_limits.cpp"},
      {"channel dependency graph", "Cdg.LayersBeyondTheMemoryBudgetAreRefusedBeforeAllocation", "6 Gi slots"},
      {"pair paths (analyze ABB/AFPB/ADB, pattern loads)", "TooLargeRequests/Limits.RefusedBeforeAllocation/pair_paths",
       "46,340 terminals' pair paths fill the budget"},
      {"WORST (analyze `--metric worst`, single-path)",
       "WorstFastPath.OwnMemoryIsTheDocumentedSizesTakenAtExactlyTheBudget",
       "the forwarding table binds first; checked against a lowered budget"},
      {"even-split WORST (analyze `--metric worst --load-model even-split\\|best-split`, multi-path)",
       "LoadModels.EvenSplitWorstHoldsAtItsEntryLimitAndIsRefusedOnePast",
       "2^24 entries take 512 MiB; checked against a lowered limit"},
      {"simulation", "PairTable.MapGrowthBeyondTheBudgetIsALimitError",
       "run against a lowered budget (SimConfig::memoryBudgetBytes)"},
      {"sweep points", "SweepFile.PointsAtTheLimitAreAcceptedAndOnePastRefused", ""},
      // The request options' ranges: tests/request/test_option_limits.cpp reads these rows.
      {"route `--lmc`", kOptionLimits, ""},
      {"route `--seed`", kOptionLimits, ""},
      {"verify `--lmc`", kOptionLimits, ""},
      {"verify `--seed`", kOptionLimits, ""},
      {"verify `--examples`", kOptionLimits, ""},
      {"analyze `--seed`", kOptionLimits, ""},
      {"analyze `--precision`", kOptionLimits, ""},
      {"analyze `--max-samples`", kOptionLimits, ""},
      {"analyze `--lmc`", kOptionLimits, ""},
      {"analyze `--threads`", kOptionLimits, ""},
      {"analyze `--split-tolerance`", kOptionLimits, ""},
      {"analyze `--split-iterations`", kOptionLimits, ""},
      {"schedule `--permutations`", kOptionLimits, ""},
      {"schedule `--seed`", kOptionLimits, ""},
      {"compare `--seed`", kOptionLimits, ""},
      {"compare `--precision`", kOptionLimits, ""},
      {"compare `--max-samples`", kOptionLimits, ""},
      {"compare `--max-shifts`", kOptionLimits, ""},
      {"compare `--detail-terminals`", kOptionLimits, ""},
      {"compare `--max-addresses-per-terminal`", kOptionLimits, ""},
      {"compare `--generic-engine-switches`", kOptionLimits, ""},
      {"compare `--threads`", kOptionLimits, ""},
      {"compare `--vls`", kOptionLimits, ""},
      {"compare `--simulate-terminals`", kOptionLimits, ""},
      {"compare `--simulate-leaders`", kOptionLimits, ""},
      {"compare `--simulate-cycles`", kOptionLimits, ""},
      {"compare `--simulate-steps`", kOptionLimits, ""},
  };
  return rows;
}

std::string limitMessage(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(LimitsTable, EveryDocumentedRowHasItsBoundaryCheck) {
  std::vector<std::string> documented = documentedRows();
  std::vector<std::string> checked;
  for (const LimitRow& row : limitRows()) checked.push_back(row.structure);
  EXPECT_EQ(documented, checked);
}

TEST(LimitsTable, MemoryBudgetAcceptsExactlyTwentyFourGibibytes) {
  const std::uint64_t budget = std::uint64_t{24} << 30;
  EXPECT_EQ(kMemoryBudgetBytes, budget);
  // At the budget: accepted, whatever the split into count x bytes.
  EXPECT_NO_THROW(checkMemory("s", budget, "bytes", 1));
  EXPECT_NO_THROW(checkMemory("s", budget / 3, "triples", 3));
  EXPECT_NO_THROW(checkMemory("s", budget / 8, "words", 8));
  // One byte (or one element) past: refused with the message.
  EXPECT_EQ(limitMessage([&] { checkMemory("a structure", budget + 1, "bytes", 1); }),
            "a structure: 25769803777 bytes x 1 bytes = 24.0 GiB exceeds the 24.0 GiB memory budget "
            "(docs/RELIABILITY.md, Limits)");
  EXPECT_THROW(checkMemory("s", budget / 3 + 1, "triples", 3), LimitError);
  EXPECT_THROW(checkMemory("s", budget / 8 + 1, "words", 8), LimitError);
  // A product beyond 64 bits saturates instead of wrapping to a small size.
  EXPECT_THROW(checkMemory("s", std::uint64_t{1} << 62, "entries", 8), LimitError);
  EXPECT_EQ(saturatingBytes(std::uint64_t{1} << 62, 8), UINT64_MAX);
}

TEST(LimitsTable, ForwardingTableOneEntryPastTheBudgetIsRefused) {
  // One byte per entry: 24 Gi entries fill the budget (checked at one past, before allocating).
  const std::size_t entries = std::size_t{24} << 30;
  EXPECT_EQ(limitMessage([&] { ForwardingTable table(1, entries + 1); }),
            "forwarding table of 1 switches x 25769803777 addresses: 25769803777 entries x 1 bytes = 24.0 GiB "
            "exceeds the 24.0 GiB memory budget (docs/RELIABILITY.md, Limits)");
  EXPECT_THROW(ForwardingTable(3 << 10, (std::size_t{8} << 20) + 1), LimitError);
  // Well inside: built.
  const ForwardingTable small(3, 5);
  EXPECT_EQ(small.switchCount() * small.addressCount(), 15u);
}

TEST(LimitsTable, FabricNodesOnePastTwoToTheTwentySixAreRefused) {
  // XGFT(2; 2047, 32768; 1, 1): 2047 x 32768 terminals + 32768 leaves + 1 top = 2^26 + 1 nodes.
  EXPECT_EQ(limitMessage([] { loadFabric("xgft:h=2,m=2047.32768,w=1.1"); }),
            "XGFT(2; 2047,32768; 1,1): too many nodes (limit 2^26)");
  // ft: 2^26 terminals alone are within the cap (ft:l=26,m=2), the switches then pass it;
  // 2^27 terminals (l=27) pass it already. Each refused before anything is built.
  EXPECT_EQ(limitMessage([] { loadFabric("ft:l=26,m=2,w=1"); }), "ft: l=26, m=2, w=1: too many nodes (limit 2^26)");
  EXPECT_EQ(limitMessage([] { loadFabric("ft:l=27,m=2,w=1"); }), "ft: l=27, m=2: too many nodes (limit 2^26)");
  // random: switches x (terminals + 1) = 2^26 + 2 (one switch past 2^25 switches with a host each).
  EXPECT_EQ(limitMessage([] { loadFabric("random:switches=33554433,terminals=1"); }),
            "random: 33554433 switches x (1 terminals + 1) exceeds 67108864 nodes");
  // Switches have at most 254 ports (InfiniBand's port numbers): 254 built, 255 refused.
  const Network wide = loadFabric("xgft:h=1,m=254,w=1").network;
  EXPECT_EQ(wide.terminalCount(), 254u);
  EXPECT_EQ(limitMessage([] { loadFabric("xgft:h=1,m=255,w=1"); }),
            "XGFT(1; 255; 1): level 1 needs 255 ports; at most 254 are supported");
  // A k-ary n-tree's switches have 2k ports: k = 127 (254) built, 128 (256) refused.
  EXPECT_EQ(loadFabric("kary-ntree:k=127,n=1").network.terminalCount(), 127u);
  EXPECT_EQ(limitMessage([] { loadFabric("kary-ntree:k=128,n=1"); }), "kary-ntree: k = 128 needs 256 ports (max 254)");
}

TEST(LimitsTable, InputFileAtOneGibibyteIsReadAndOneBytePastRefused) {
  EXPECT_EQ(kMaxInputFileBytes, std::size_t{1} << 30);
  // Sparse files (no disk blocks): exactly 1 GiB is read whole (the reader holds it in
  // memory), one byte more is refused with the message.
  const std::string path = (test::scratchDir() / "gibibyte.txt").string();
  { std::ofstream create(path); }
  std::filesystem::resize_file(path, kMaxInputFileBytes);
  EXPECT_EQ(readFileText(path).size(), kMaxInputFileBytes);
  std::filesystem::resize_file(path, kMaxInputFileBytes + 1);
  EXPECT_EQ(limitMessage([&] { readFileText(path); }),
            "'" + path + "' has 1073741825 bytes; input files are limited to 1073741824 bytes (docs/RELIABILITY.md)");
  std::filesystem::remove(path);
}
