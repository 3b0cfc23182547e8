// ForwardingTable's codes (routing/routing_result.h): one byte per entry while the ports and
// the interned lists fit beside each other, two or four bytes when they do not. Every test
// checks the table against a plain model (a vector of candidate lists per entry) after the
// operations that widen, so a code that meets a port, or a widening that loses a list, fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/errors.h"
#include "engines/fattree/fat_tree.h"
#include "engines/registry.h"
#include "routing/routing_result.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

constexpr std::uint32_t kSwitches = 5, kAddresses = 11;

/// The entry as entryView() gives it, decoded: the list's ports, or the one port (none for
/// kNoRoute) — what candidates() returns.
std::vector<PortNumber> viewedCandidates(const ForwardingTable& table, std::uint32_t s, Address a) {
  const ForwardingTable::EntryView view = table.entryView(s, a);
  if (view.list != ForwardingTable::kNoList) {
    EXPECT_LT(view.list, table.listCount());
    const auto list = table.list(view.list);
    return {list.begin(), list.end()};
  }
  return view.port == kNoRoute ? std::vector<PortNumber>{} : std::vector<PortNumber>{view.port};
}

/// The table and a model of it, kept in step.
struct Checked {
  ForwardingTable table{kSwitches, kAddresses};
  std::vector<std::vector<PortNumber>> model = std::vector<std::vector<PortNumber>>(kSwitches * kAddresses);

  void set(std::uint32_t s, Address a, PortNumber port) {
    table.set(s, a, port);
    model[s * kAddresses + a] = port == kNoRoute ? std::vector<PortNumber>{} : std::vector<PortNumber>{port};
  }
  void setList(std::uint32_t s, Address a, const std::vector<PortNumber>& ports) {
    table.setCandidates(s, a, ports);
    const bool none = ports.size() == 1 && ports[0] == kNoRoute;
    model[s * kAddresses + a] = none ? std::vector<PortNumber>{} : ports;
  }
  void expectSame() const {
    for (std::uint32_t s = 0; s < kSwitches; ++s) {
      for (Address a = 0; a < kAddresses; ++a) {
        const std::vector<PortNumber>& want = model[s * kAddresses + a];
        const auto got = table.candidates(s, a);
        ASSERT_EQ(std::vector<PortNumber>(got.begin(), got.end()), want) << "switch " << s << " address " << a;
        ASSERT_EQ(table.port(s, a), want.empty() ? kNoRoute : want.front());
        ASSERT_EQ(viewedCandidates(table, s, a), want) << "entryView: switch " << s << " address " << a;
      }
    }
  }
};

}  // namespace

TEST(ForwardingTable, SmallPortsAndFewListsTakeOneByteAnEntry) {
  Checked c;
  c.set(0, 0, 3);
  c.set(1, 2, kSelfPort);
  c.setList(2, 3, {5, 6, 7});
  c.setList(2, 4, {6, 7, 5});
  c.setList(3, 3, {5, 6, 7});  // interned once
  c.set(2, 4, 1);              // a list entry made single again
  c.expectSame();
  EXPECT_EQ(c.table.codeWidth(), 1u);
  EXPECT_EQ(c.table.listBase(), 253u);  // two lists: codes 254, 253
  EXPECT_TRUE(c.table.adaptive());
  EXPECT_LT(c.table.memoryBytes(), kSwitches * kAddresses + 512);
}

// Ports written through mutableRow() are unknown to the table until its first list: then it
// reads them, so a first list code (254) never meets a stored port 254 (kills
// gen1149040710.3, the scan moved to later lists).
TEST(ForwardingTable, TheFirstListAfterHandedOutRowsSeesTheirPorts) {
  ForwardingTable table(1, 2);
  const std::span<std::uint8_t> row = table.mutableRow(0);
  row[0] = 254;
  row[1] = 3;
  const std::vector<PortNumber> ports = {1, 2};
  const auto list = table.addCandidateList(ports);
  table.setCandidateList(0, 1, list);
  EXPECT_EQ(table.port(0, 0), 254);
  EXPECT_EQ(std::vector<PortNumber>(table.candidates(0, 0).begin(), table.candidates(0, 0).end()),
            std::vector<PortNumber>{254});
  EXPECT_EQ(std::vector<PortNumber>(table.candidates(0, 1).begin(), table.candidates(0, 1).end()), ports);
  EXPECT_GT(table.codeWidth(), 1U);  // 254 is taken by a port: the codes widen
}

TEST(ForwardingTable, AListCodeThatWouldMeetAStoredPortWidensTheCodes) {
  Checked c;
  c.set(0, 0, 250);
  c.set(4, 10, 1);
  for (PortNumber i = 0; i < 4; ++i) c.setList(1, i, {1, PortNumber(2 + i)});  // codes 254..251
  EXPECT_EQ(c.table.codeWidth(), 1u);
  c.setList(1, 4, {1, 9});  // code 250 is port 250's
  EXPECT_EQ(c.table.codeWidth(), 2u);
  c.expectSame();
  c.set(3, 3, 254);
  c.setList(3, 4, {254, 1});
  c.expectSame();
}

TEST(ForwardingTable, APortThatWouldMeetAListCodeWidensTheCodes) {
  Checked c;
  c.setList(0, 0, {1, 2});  // code 254
  c.setList(0, 1, {2, 1});  // code 253
  c.set(2, 2, 252);         // below every list code: stays one byte
  EXPECT_EQ(c.table.codeWidth(), 1u);
  c.set(2, 3, 253);  // would read as the second list
  EXPECT_EQ(c.table.codeWidth(), 2u);
  c.expectSame();
  EXPECT_THROW(c.table.mutableCodeRow(0), RoutingError);  // no one-byte rows any more
}

TEST(ForwardingTable, ReservedPortsKeepListCodesClearOfThem) {
  Checked c;
  c.table.reservePorts(249);
  for (PortNumber i = 0; i < 5; ++i) c.setList(0, i, {1, PortNumber(10 + i)});  // codes 254..250
  EXPECT_EQ(c.table.codeWidth(), 1u);
  c.setList(0, 5, {1, 20});  // code 249 is reserved
  EXPECT_EQ(c.table.codeWidth(), 2u);
  c.set(1, 1, 249);
  c.expectSame();
  EXPECT_THROW(c.table.reservePorts(255), RoutingError);
}

TEST(ForwardingTable, RowsWrittenInPlaceAreSeenByTheFirstList) {
  ForwardingTable table(2, 4);
  table.mutableRow(1)[2] = 253;
  const ForwardingTable::ListId first = table.addCandidateList(std::vector<PortNumber>{1, 2});  // code 254
  EXPECT_EQ(table.codeWidth(), 1u);
  const ForwardingTable::ListId second = table.addCandidateList(std::vector<PortNumber>{2, 1});  // would be 253
  EXPECT_EQ(table.codeWidth(), 2u);
  table.setCandidateList(0, 0, second);
  table.setCandidateList(0, 1, first);
  EXPECT_EQ(table.port(1, 2), 253);
  EXPECT_EQ(table.candidates(0, 0).size(), 2u);
  EXPECT_EQ(table.port(0, 0), 2);
  EXPECT_EQ(table.port(0, 1), 1);
  EXPECT_THROW(table.mutableRow(0), RoutingError);
}

TEST(ForwardingTable, MoreListsThanTwoByteCodesHoldWidenToFour) {
  Checked c;
  c.set(0, 0, 200);
  std::vector<std::vector<PortNumber>> lists;
  for (PortNumber last = 7; last <= 8; ++last) {
    for (PortNumber a = 1; a < 200 && lists.size() < 65'400; ++a) {
      for (PortNumber b = 1; b < 200 && lists.size() < 65'400; ++b) {
        if (a != b) lists.push_back({a, b, last});
      }
    }
  }
  ASSERT_EQ(lists.size(), 65'400u);
  for (const auto& list : lists) c.table.addCandidateList(list);
  EXPECT_EQ(c.table.codeWidth(), 4u);
  for (std::uint32_t s = 0; s < kSwitches; ++s) {
    for (Address a = 1; a < kAddresses; ++a) c.setList(s, a, lists[(s * kAddresses + a) * 1187 % lists.size()]);
  }
  c.setList(4, 0, lists.back());
  c.expectSame();
}

TEST(ForwardingTable, RandomOperationsAgreeWithTheModelAtEveryWidth) {
  for (const PortNumber maxPort : {PortNumber{8}, PortNumber{120}, PortNumber{254}}) {
    std::mt19937 rng(maxPort);
    Checked c;
    // Few distinct lists with small ports (at most 9 x 9 of two): the codes stay one byte.
    std::uniform_int_distribution<int> port(0, maxPort), entry(0, kSwitches * kAddresses - 1),
        length(0, maxPort == 8 ? 2 : 4);
    for (int step = 0; step < 3000; ++step) {
      const auto e = static_cast<std::uint32_t>(entry(rng));
      std::vector<PortNumber> ports(static_cast<std::size_t>(length(rng)));
      for (PortNumber& p : ports) p = static_cast<PortNumber>(port(rng));
      if (ports.size() == 1 && step % 7 == 0) ports[0] = kNoRoute;
      c.setList(e / kAddresses, e % kAddresses, ports);
    }
    c.expectSame();
    if (maxPort == 8) {
      EXPECT_EQ(c.table.codeWidth(), 1u);
    } else if (maxPort == 254) {
      EXPECT_GT(c.table.codeWidth(), 1u);
    }
  }
}

TEST(ForwardingTable, PortsAboveTheByteAreRefused) {
  ForwardingTable table(1, 1);
  EXPECT_THROW(table.set(0, 0, 256), RoutingError);
  EXPECT_THROW(table.setCandidates(0, 0, std::vector<PortNumber>{1, 255}), RoutingError);
}

TEST(ForwardingTable, AnAdaptiveFatTreeTableTakesOneByteAnEntry) {
  // 4-ary 3-tree, Gómez's adaptive routing: 3 levels x 4 rotations of the up ports at most.
  const Network net = makeKaryNtree(4, 3);
  const RoutingResult r = routeFtreeAdaptive(net, {});
  const ForwardingTable& t = r.table();
  ASSERT_TRUE(t.adaptive());
  EXPECT_EQ(t.codeWidth(), 1u);
  EXPECT_LT(t.memoryBytes(), t.switchCount() * t.addressCount() + 1024);
}

TEST(ForwardingTable, MaxCandidatesIsTheLongestListAtEveryWidth) {
  ForwardingTable table(2, 4);
  EXPECT_EQ(table.maxCandidates(), 1u);  // no entry, or single ports: one candidate at most
  table.set(0, 0, 3);
  EXPECT_EQ(table.maxCandidates(), 1u);
  const std::vector<PortNumber> three{1, 2, 3}, two{4, 5};
  table.setCandidates(0, 1, three);
  table.setCandidates(1, 1, two);
  EXPECT_EQ(table.maxCandidates(), 3u);
  table.set(1, 2, 254);  // meets the list codes (253, 254): widens them, the lists stay as they are
  EXPECT_EQ(table.codeWidth(), 2u);
  EXPECT_EQ(table.maxCandidates(), 3u);
  EXPECT_EQ(table.candidates(0, 1).size(), 3u);
}

// ---- the compact form (ForwardingTable::compact) ----------------------------------------

namespace {

/// Every entry of `table` against `model` (candidate lists per switch x addresses).
void expectEntries(const ForwardingTable& table, const std::vector<std::vector<PortNumber>>& model) {
  const std::size_t addresses = table.addressCount();
  for (std::uint32_t s = 0; s < table.switchCount(); ++s) {
    for (Address a = 0; a < addresses; ++a) {
      const std::vector<PortNumber>& want = model[s * addresses + a];
      const auto got = table.candidates(s, a);
      ASSERT_EQ(std::vector<PortNumber>(got.begin(), got.end()), want) << "switch " << s << " address " << a;
      ASSERT_EQ(viewedCandidates(table, s, a), want) << "entryView: switch " << s << " address " << a;
    }
  }
}

/// A table of repeating rows (a port per address mod 5, a list every 7th address) in which
/// switch s routes its own 3 addresses 3s..3s+2 down port 9 — the shape of a fat-tree's rows.
struct Patterned {
  static constexpr std::uint32_t kRows = 40, kColumns = 200;  // 200: the last chunk is partial
  ForwardingTable table;
  std::vector<std::vector<PortNumber>> model;
  explicit Patterned(std::uint32_t columns = kColumns) : table(kRows, columns), model(kRows * columns) {
    const std::vector<PortNumber> list{1, 2, 3};
    for (std::uint32_t s = 0; s < kRows; ++s) {
      for (Address a = 0; a < columns; ++a) {
        std::vector<PortNumber> ports{static_cast<PortNumber>(1 + a % 5)};
        if (a % 7 == 0) ports = list;
        if (a / 3 == s) ports = {9};
        if (a == columns - 1) ports = {};  // no route
        table.setCandidates(s, a, ports);
        model[s * columns + a] = ports;
      }
    }
  }
};

}  // namespace

TEST(ForwardingTable, CompactFormReadsEveryEntryAsBefore) {
  Patterned p;
  const std::size_t dense = p.table.memoryBytes();
  ASSERT_TRUE(p.table.compact());
  EXPECT_TRUE(p.table.compacted());
  EXPECT_TRUE(p.table.compact());  // again: nothing to do
  expectEntries(p.table, p.model);
  EXPECT_LT(p.table.memoryBytes(), dense / 2);
  EXPECT_EQ(p.table.codeWidth(), 1u);
  EXPECT_EQ(p.table.maxCandidates(), 3u);
  // Rows of whole 64-entry chunks, and rows whose last chunk holds a single entry.
  for (const std::uint32_t columns : {192U, 193U, 257U}) {
    Patterned q(columns);
    ASSERT_TRUE(q.table.compact()) << columns;
    expectEntries(q.table, q.model);
  }
}

TEST(ForwardingTable, TheFirstWriteExpandsACompactTable) {
  {
    Patterned p;
    ASSERT_TRUE(p.table.compact());
    p.table.set(7, 150, 4);  // a single port
    p.model[7 * Patterned::kColumns + 150] = {4};
    EXPECT_FALSE(p.table.compacted());
    expectEntries(p.table, p.model);
  }
  {
    Patterned p;
    ASSERT_TRUE(p.table.compact());
    const std::vector<PortNumber> list{6, 5};  // a new list
    p.table.setCandidates(39, 199, list);
    p.model[39 * Patterned::kColumns + 199] = list;
    EXPECT_FALSE(p.table.compacted());
    expectEntries(p.table, p.model);
    ASSERT_TRUE(p.table.compact());  // and compact again
    expectEntries(p.table, p.model);
  }
  {
    Patterned p;
    ASSERT_TRUE(p.table.compact());
    p.table.mutableCodeRow(0)[0] = 2;
    p.model[0] = {2};
    EXPECT_FALSE(p.table.compacted());
    expectEntries(p.table, p.model);
  }
}

TEST(ForwardingTable, AVariedTableIsNotCompacted) {
  // Random ports in every entry: hardly a chunk repeats, and the compact form would not pay.
  constexpr std::uint32_t kRows = 30, kColumns = 300;
  ForwardingTable table(kRows, kColumns);
  std::vector<std::vector<PortNumber>> model(kRows * kColumns);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> port(1, 60);
  for (std::uint32_t s = 0; s < kRows; ++s) {
    for (Address a = 0; a < kColumns; ++a) {
      const auto p = static_cast<PortNumber>(port(rng));
      table.set(s, a, p);
      model[s * kColumns + a] = {p};
    }
  }
  const std::size_t dense = table.memoryBytes();
  EXPECT_FALSE(table.compact());
  EXPECT_FALSE(table.compacted());
  EXPECT_EQ(table.memoryBytes(), dense);
  expectEntries(table, model);
}

TEST(ForwardingTable, CompactsOnlyWhenTheCompactFormTakesAtMostHalfTheMemory) {
  // compact()'s contract: the compact form (a 2-byte chunk number per chunk and each distinct
  // chunk's kChunkEntries bytes) must take at most half of the one byte per entry. 16 rows x
  // 256 addresses: 4,096 bytes, 64 chunks; with D distinct chunks the compact form takes
  // 128 + 64 D bytes, at most 2,048 exactly when D <= 30.
  constexpr std::uint32_t kRows = 16, kColumns = 256, kChunks = kColumns / ForwardingTable::kChunkEntries;
  static_assert(kRows * kChunks * 2 + 30 * ForwardingTable::kChunkEntries == kRows * kColumns / 2);
  for (const std::uint32_t distinct : {30U, 31U}) {
    ForwardingTable table(kRows, kColumns);
    std::vector<std::vector<PortNumber>> model(kRows * kColumns);
    for (std::uint32_t s = 0; s < kRows; ++s) {
      for (Address a = 0; a < kColumns; ++a) {
        const std::uint32_t chunk = s * kChunks + a / ForwardingTable::kChunkEntries;
        const std::uint32_t id = chunk < distinct ? chunk : 0;  // the first `distinct` chunks differ
        const std::uint32_t offset = a % ForwardingTable::kChunkEntries;
        const auto p = static_cast<PortNumber>(offset == 0 ? 1 + id % 60 : offset == 1 ? 1 + id / 60 : 1);
        table.set(s, a, p);
        model[s * kColumns + a] = {p};
      }
    }
    const bool fits = distinct == 30;
    EXPECT_EQ(table.compact(), fits) << distinct;
    EXPECT_EQ(table.compacted(), fits) << distinct;
    expectEntries(table, model);
  }
}

TEST(ForwardingTable, CompactsUpToTwoToTheSixteenDistinctChunksAndNoMore) {
  // compact()'s contract: at most 65,536 distinct chunks (numbered by std::uint16_t). A table
  // of 160 rows x 1,024 chunks whose first `distinct` chunks differ (the chunk's number in base
  // 60 in its first three entries) and whose others repeat chunk 0: the compact form would
  // take less than half the memory either way, so only the chunk count decides.
  constexpr std::uint32_t kRows = 160, kColumns = 65536, kChunks = kColumns / ForwardingTable::kChunkEntries;
  auto portAt = [](std::uint32_t distinct, std::uint32_t s, Address a) {
    const std::uint32_t chunk = s * kChunks + a / ForwardingTable::kChunkEntries;
    const std::uint32_t id = chunk < distinct ? chunk : 0;
    constexpr std::uint32_t kPowers[] = {1, 60, 3600};
    const std::uint32_t offset = a % ForwardingTable::kChunkEntries;
    return static_cast<PortNumber>(offset < 3 ? 1 + (id / kPowers[offset]) % 60 : 1);
  };
  for (const std::uint32_t distinct : {65536U, 65537U}) {
    ForwardingTable table(kRows, kColumns);
    for (std::uint32_t s = 0; s < kRows; ++s) {
      for (Address a = 0; a < kColumns; ++a) table.set(s, a, portAt(distinct, s, a));
    }
    const std::size_t dense = table.memoryBytes();
    const bool fits = distinct <= 65536;
    EXPECT_EQ(table.compact(), fits) << distinct;
    EXPECT_EQ(table.compacted(), fits) << distinct;
    if (fits) {
      EXPECT_LT(table.memoryBytes(), dense / 2);
    } else {
      EXPECT_EQ(table.memoryBytes(), dense);
    }
    std::uint64_t wrong = 0;
    for (std::uint32_t s = 0; s < kRows; ++s) {
      for (Address a = 0; a < kColumns; ++a) wrong += table.port(s, a) != portAt(distinct, s, a);
    }
    EXPECT_EQ(wrong, 0U) << distinct;
  }
}

TEST(ForwardingTable, EnginesReturnAdaptiveFatTreeTablesCompact) {
  // 4-ary 4-tree (256 terminals), Gómez's adaptive routing: every row is a level's template
  // with the switch's own subtree routed down, a few distinct chunks in all.
  const Network net = makeKaryNtree(4, 4);
  const RoutingResult dense = routeFtreeAdaptive(net, {});
  const RoutingResult engine = runEngine("ftree-adaptive", net);
  const ForwardingTable& table = engine.table();
  ASSERT_TRUE(table.compacted());
  EXPECT_FALSE(dense.table().compacted());
  EXPECT_LT(table.memoryBytes() * 4, dense.table().memoryBytes());
  for (std::uint32_t s = 0; s < table.switchCount(); ++s) {
    for (Address a = 0; a < table.addressCount(); ++a) {
      const auto want = dense.table().candidates(s, a);
      const auto got = table.candidates(s, a);
      ASSERT_TRUE(std::ranges::equal(want, got)) << "switch " << s << " address " << a;
    }
  }
}
