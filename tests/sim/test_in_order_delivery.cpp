// In-order delivery (sim/in_order_delivery.h): reorder buffers release each pair's packets in
// sequence, exactly once, at the delivery that completes their prefix (recomputed by brute
// force over random arrival orders); without in-order delivery every packet is released at its
// arrival with the same out-of-order counts; the end-to-end flow control refuses a source at
// the limit and wakes it at its destination's next release.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/random.h"
#include "sim/in_order_delivery.h"

namespace routelab {
namespace {

using sim::Held;
using sim::InOrderDelivery;
using sim::PairTable;

constexpr std::uint32_t kTerminals = 4;

InOrderDelivery makeDelivery(bool inOrder, std::uint32_t reorderPackets = 64) {
  return InOrderDelivery(kTerminals, inOrder, reorderPackets, PairTable(kTerminals));
}

Held packet(std::uint32_t source, std::uint64_t sequence) {
  Held held;
  held.source = source;
  held.sequence = sequence;
  return held;
}

// Delivers the packets of `arrivals` (source, sequence) to destination 0 in order; returns
// the released ones as (source, sequence), in release order.
std::vector<std::pair<std::uint32_t, std::uint64_t>> run(
    InOrderDelivery& delivery, const std::vector<std::pair<std::uint32_t, std::uint64_t>>& arrivals) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> released;
  for (auto [source, sequence] : arrivals) {
    delivery.deliver(
        packet(source, sequence), 0, [&](const Held& p) { released.emplace_back(p.source, p.sequence); },
        [](std::uint32_t) {});
  }
  return released;
}

TEST(InOrderDelivery, AReorderBufferReleasesAPairInSequence) {
  InOrderDelivery delivery = makeDelivery(true);
  ASSERT_EQ(delivery.takeSequences(1, 0, 3), 0U);
  using R = std::vector<std::pair<std::uint32_t, std::uint64_t>>;
  EXPECT_EQ(run(delivery, {{1, 2}}), R{}) << "2 waits for 0 and 1";
  EXPECT_EQ(run(delivery, {{1, 0}}), (R{{1, 0}}));
  EXPECT_EQ(run(delivery, {{1, 1}}), (R{{1, 1}, {1, 2}})) << "1 fills the gap: 2 follows";
  EXPECT_EQ(delivery.outOfOrder(), 1U);
  EXPECT_EQ(delivery.maxHeld(), 1U);
}

TEST(InOrderDelivery, WithoutInOrderEveryPacketIsReleasedAtItsArrivalAndCountedAlike) {
  InOrderDelivery delivery = makeDelivery(false);
  ASSERT_EQ(delivery.takeSequences(1, 0, 3), 0U);
  using R = std::vector<std::pair<std::uint32_t, std::uint64_t>>;
  EXPECT_EQ(run(delivery, {{1, 2}, {1, 0}, {1, 1}}), (R{{1, 2}, {1, 0}, {1, 1}})) << "each once, at arrival";
  EXPECT_EQ(delivery.outOfOrder(), 1U);
  EXPECT_EQ(delivery.maxHeld(), 1U);
  // The pair's next packet is in order again (the held one was passed when the gap filled).
  ASSERT_EQ(delivery.takeSequences(1, 0, 1), 3U);
  EXPECT_EQ(run(delivery, {{1, 3}}), (R{{1, 3}}));
  EXPECT_EQ(delivery.outOfOrder(), 1U);
}

TEST(InOrderDelivery, EndToEndFlowControlRefusesAtTheLimitAndWakesAtARelease) {
  InOrderDelivery delivery = makeDelivery(true, 2);
  ASSERT_EQ(delivery.takeSequences(1, 0, 3), 0U);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(delivery.admits(1, 0));
    delivery.injected(0);
  }
  EXPECT_FALSE(delivery.admits(1, 0)) << "two outstanding towards terminal 0";
  EXPECT_FALSE(delivery.admits(2, 0));
  EXPECT_TRUE(delivery.admits(1, 3)) << "the limit is per destination";
  std::vector<std::uint32_t> woken;
  std::vector<std::uint64_t> releases;
  auto deliver = [&](std::uint64_t sequence) {
    delivery.deliver(
        packet(1, sequence), 0, [&](const Held& p) { releases.push_back(p.sequence); },
        [&](std::uint32_t source) { woken.push_back(source); });
  };
  deliver(1);  // out of order: held, nothing released, nobody woken
  EXPECT_TRUE(woken.empty());
  EXPECT_FALSE(delivery.admits(1, 0));
  deliver(0);  // releases 0 (waking every refusal listed so far) and then 1
  EXPECT_EQ(releases, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(woken, (std::vector<std::uint32_t>{1, 2, 1})) << "the refusals listed when each release happened";
  EXPECT_TRUE(delivery.admits(1, 0)) << "both released: nothing outstanding";
}

TEST(InOrderDelivery, ReleasesMatchABruteForceOverRandomArrivalOrders) {
  Rng rng(37);
  for (int trial = 0; trial < 200; ++trial) {
    for (const bool inOrder : {true, false}) {
      InOrderDelivery delivery = makeDelivery(inOrder);
      // Up to three sources send to destination 0; each pair's packets arrive in a random order.
      std::vector<std::pair<std::uint32_t, std::uint64_t>> arrivals;
      std::vector<std::uint64_t> count(kTerminals, 0);
      for (std::uint32_t s = 1; s < kTerminals; ++s) {
        count[s] = rng.below(6);
        if (count[s] > 0) delivery.takeSequences(s, 0, static_cast<std::uint32_t>(count[s]));
        for (std::uint64_t q = 0; q < count[s]; ++q) arrivals.emplace_back(s, q);
      }
      rng.shuffle(std::span(arrivals));
      // Brute force: per pair, the arrived set; a packet is released (in order) when the
      // prefix 0..k of its pair has arrived; out of order when it is not the prefix's next.
      std::vector<std::vector<bool>> arrived(kTerminals, std::vector<bool>(6, false));
      std::vector<std::uint64_t> prefix(kTerminals, 0);
      std::uint64_t outOfOrder = 0, held = 0, maxHeld = 0;
      for (auto [source, sequence] : arrivals) {
        std::vector<std::pair<std::uint32_t, std::uint64_t>> expected;
        arrived[source][sequence] = true;
        if (sequence != prefix[source]) {
          ++outOfOrder;
          maxHeld = std::max(maxHeld, ++held);
          if (!inOrder) expected.emplace_back(source, sequence);
        } else {
          expected.emplace_back(source, sequence);
          for (++prefix[source]; prefix[source] < count[source] && arrived[source][prefix[source]]; ++prefix[source]) {
            if (inOrder) expected.emplace_back(source, prefix[source]);
            --held;
          }
        }
        ASSERT_EQ(run(delivery, {{source, sequence}}), expected) << "trial " << trial << " in-order " << inOrder;
      }
      EXPECT_EQ(delivery.outOfOrder(), outOfOrder);
      EXPECT_EQ(delivery.maxHeld(), maxHeld);
    }
  }
}

}  // namespace
}  // namespace routelab
