// The channel store (sim/channel_store.h): every channel's state, every (channel, VC)'s state,
// rings and credit words are disjoint, lie in the channel's own record of recordLines() cache
// lines (the channel state line-aligned at its start), and keep what is written to them; the
// store constructs the owned channels' state fresh, with a full buffer of credits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/channel_store.h"

namespace routelab {
namespace {

using sim::ChannelState;
using sim::ChannelStore;
using sim::VcState;

struct Layout {
  std::uint32_t channels, vcs, slots, creditWords;
};

TEST(ChannelStore, EveryPieceOfStateLiesInItsChannelsRecordAndNoneOverlap) {
  for (const Layout& l : {Layout{5, 4, 2, 0}, Layout{3, 1, 1, 1}, Layout{4, 8, 16, 3}, Layout{2, 64, 2, 2}}) {
    ChannelStore store;
    store.layOut(l.channels, l.vcs, l.slots, l.creditWords);
    ASSERT_EQ(store.bytes(), std::size_t{l.channels} * store.recordLines() * 64);
    store.allocate(false, [](std::uint32_t) { return true; });
    const auto* base = reinterpret_cast<const std::byte*>(&store.channel(0));
    std::vector<std::pair<std::size_t, std::size_t>> pieces;  // [begin, end) from the first record
    for (std::uint32_t c = 0; c < l.channels; ++c) {
      const auto at = [&](const void* p) { return static_cast<std::size_t>(static_cast<const std::byte*>(p) - base); };
      const std::size_t record = std::size_t{c} * store.recordLines() * 64,
                        recordEnd = record + store.recordLines() * 64;
      EXPECT_EQ(at(&store.channel(c)), record) << "the channel state starts its record";
      pieces.emplace_back(record, record + sizeof(ChannelState));
      for (std::uint32_t v = 0; v < l.vcs; ++v) {
        const std::size_t vc = at(&store.vc(c, v)), ring = at(store.ring(c, v));
        EXPECT_EQ(ring, vc + sizeof(VcState)) << "the rings follow the VcState (CreditFlow counts on it)";
        const std::size_t end = ring + (2 * std::size_t{l.slots} + l.creditWords) * sizeof(std::uint32_t);
        EXPECT_LE(end, recordEnd) << "channel " << c << " vc " << v;
        pieces.emplace_back(vc, end);
        EXPECT_EQ(store.vc(c, v).credits, l.slots);
        EXPECT_EQ(store.vc(c, v).inSize + store.vc(c, v).outSize + store.vc(c, v).creditsComing, 0);
      }
    }
    std::sort(pieces.begin(), pieces.end());
    for (std::size_t i = 1; i < pieces.size(); ++i) EXPECT_LE(pieces[i - 1].second, pieces[i].first) << "overlap";
  }
}

TEST(ChannelStore, KeepsWhatIsWritten) {
  ChannelStore store;
  store.layOut(6, 3, 4, 2);
  store.allocate(false, [](std::uint32_t) { return true; });
  auto value = [](std::uint32_t c, std::uint32_t v, std::uint32_t i) { return c * 1000 + v * 100 + i; };
  for (std::uint32_t c = 0; c < 6; ++c) {
    store.channel(c).linkBusy = c + 7;
    for (std::uint32_t v = 0; v < 3; ++v) {
      store.vc(c, v).outSize = static_cast<std::uint16_t>(c + v);
      for (std::uint32_t i = 0; i < 8; ++i) store.ring(c, v)[i] = value(c, v, i);
    }
  }
  const ChannelStore& read = store;
  for (std::uint32_t c = 0; c < 6; ++c) {
    EXPECT_EQ(read.channel(c).linkBusy, c + 7);
    for (std::uint32_t v = 0; v < 3; ++v) {
      EXPECT_EQ(read.vc(c, v).outSize, c + v);
      for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(read.ring(c, v)[i], value(c, v, i));
    }
  }
}

TEST(ChannelStore, ConstructsOnlyTheOwnedChannels) {
  ChannelStore store;
  store.layOut(4, 2, 3, 0);
  store.allocate(false, [](std::uint32_t c) { return c % 2 == 0; });
  EXPECT_EQ(store.vc(0, 1).credits, 3);
  EXPECT_EQ(store.vc(2, 0).credits, 3);
  EXPECT_EQ(store.vc(1, 0).credits, 0) << "not owned: left zero, never constructed";
  EXPECT_EQ(store.channel(2).linkWake, sim::kNeverCycle) << "owned: fresh state";
}

// The record's size from the layout's statement (channel_store.h): a VC's block is the power
// of two holding its VcState, rings and credit words when that is at most 64 bytes, else the
// fewest whole lines holding them; the record is the fewest lines holding the ChannelState and
// every VC's block. Taken over ring and credit sizes that put a block exactly on 64, 128 and
// 192 bytes and one word past.
TEST(ChannelStore, RecordsAreTheFewestLinesHoldingEveryBlock) {
  std::size_t exactLines = 0;
  for (std::uint32_t slots = 1; slots <= 40; ++slots) {
    for (std::uint32_t creditWords = 0; creditWords <= 3; ++creditWords) {
      const std::size_t need = sizeof(VcState) + (2 * std::size_t{slots} + creditWords) * 4;
      std::size_t block = 1;
      while (block < need) block *= 2;
      if (need > 64) block = (need / 64 + (need % 64 != 0)) * 64;
      exactLines += need > 64 && need % 64 == 0;
      for (const std::uint32_t vcs : {1U, 3U, 4U}) {
        ChannelStore store;
        store.layOut(7, vcs, slots, creditWords);
        const std::size_t bytes = sizeof(ChannelState) + vcs * block;
        EXPECT_EQ(store.recordLines(), bytes / 64 + (bytes % 64 != 0))
            << "slots " << slots << " credit words " << creditWords << " vcs " << vcs;
        EXPECT_EQ(store.bytes(), 7 * store.recordLines() * std::size_t{64});
      }
    }
  }
  EXPECT_GE(exactLines, 2U) << "the case needs blocks of exactly whole lines";
}

}  // namespace
}  // namespace routelab
