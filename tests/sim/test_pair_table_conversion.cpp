// The in-order tracking's pair table (sim/engine.h PairTable) converted from dense counters to
// the map when one counter would pass its limit: every pair that has sent keeps its counters —
// a pair with exactly one packet (sequence numbers 0) included — and pairs that never sent
// still start from 0.
#include <gtest/gtest.h>

#include "sim/engine.h"

namespace routelab {

TEST(PairTableConversion, EveryPairThatSentKeepsItsCountersTheOnePacketPairsIncluded) {
  sim::PairTable table(4, std::size_t{1} << 20, /*denseCounterLimit=*/3);
  ASSERT_TRUE(table.dense());
  EXPECT_EQ(table.takeSequences(0, 1, 1), 0u);  // one packet, in flight: next 1, expected 0
  EXPECT_EQ(table.takeSequences(1, 0, 1), 0u);  // one packet, delivered: next 1, expected 1
  table.setExpected(1, 0, 1);
  EXPECT_EQ(table.takeSequences(3, 2, 2), 0u);  // two packets: next 2, expected 0
  EXPECT_EQ(table.takeSequences(2, 3, 3), 0u);  // at the counter limit
  EXPECT_EQ(table.takeSequences(2, 3, 1), 3u);  // one past: converted, the number still exact
  ASSERT_FALSE(table.dense());
  EXPECT_EQ(table.expected(0, 1), 0u);
  EXPECT_EQ(table.takeSequences(0, 1, 1), 1u);
  EXPECT_EQ(table.expected(1, 0), 1u);
  EXPECT_EQ(table.takeSequences(1, 0, 1), 1u);
  EXPECT_EQ(table.expected(3, 2), 0u);
  EXPECT_EQ(table.takeSequences(3, 2, 1), 2u);
  EXPECT_EQ(table.takeSequences(2, 3, 1), 4u);
  // Pairs that never sent: counters from 0.
  EXPECT_EQ(table.expected(0, 2), 0u);
  EXPECT_EQ(table.takeSequences(0, 2, 1), 0u);
  EXPECT_EQ(table.takeSequences(1, 1, 1), 0u);
}

}  // namespace routelab
