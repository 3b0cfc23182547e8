// Loading a routing with a table per layer group (Lysne §8.4's UpDown layer) onto one LFT:
// routing/lmc_tables.h merges the tables by LMC, io writes the LFT dump and the SL table,
// and the files read back verify as the routing itself did — same walks, same dependencies
// per layer, same verdict.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <set>
#include <sstream>

#include "cdg/from_routing.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/lft_dump.h"
#include "io/sl_table.h"
#include "routing/lmc_tables.h"
#include "verify/verify.h"

using namespace routelab;

namespace {

using Dependencies = std::vector<std::set<std::pair<std::uint32_t, std::uint32_t>>>;

Dependencies dependenciesOf(const Network& net, const RoutingResult& routing) {
  const RoutingDependencies deps = buildRoutingDependencies(net, routing);
  Dependencies out(routing.layerCount());
  for (std::size_t layer = 0; layer < out.size(); ++layer) {
    for (const auto& [from, to] : deps.graph.dependencies(LayerId::fromIndex(layer))) {
      out[layer].emplace(from.value, to.value);
    }
  }
  return out;
}

/// The pair's walks in the merged routing: exactly one LID of the destination carries the
/// source's traffic, in the same layer and along the same channels as the original.
void expectSameWalks(const Network& net, const RoutingResult& original, const RoutingResult& merged) {
  const AddressMap& before = original.addresses;
  const AddressMap& after = merged.addresses;
  std::vector<ChannelId> walkBefore, walkAfter;
  for (NodeId source : net.terminals()) {
    const std::uint32_t siBefore = before.sourceIndex(source), siAfter = after.sourceIndex(source);
    for (NodeId destination : net.terminals()) {
      if (source == destination) continue;
      // Every original address of the destination that the source sends to ...
      std::size_t sent = 0, carried = 0;
      for (Address a = before.base(destination); a < before.base(destination) + before.blockSize(destination); ++a) {
        sent += original.sends(siBefore, a) ? 1 : 0;
      }
      for (Address a = after.base(destination); a < after.base(destination) + after.blockSize(destination); ++a) {
        if (!merged.sends(siAfter, a)) continue;
        ++carried;
        // ... is one carried address of the merged block, with the same walk.
        const std::uint32_t offset = after.offset(a) % before.blockSize(destination);
        const Address original_a = before.base(destination) + offset;
        ASSERT_TRUE(original.sends(siBefore, original_a));
        EXPECT_EQ(merged.layer(siAfter, a), original.layer(siBefore, original_a));
        const PathStatus statusBefore =
            original.walk(net, source, original_a, original.layer(siBefore, original_a), walkBefore);
        const PathStatus statusAfter = merged.walk(net, source, a, merged.layer(siAfter, a), walkAfter);
        EXPECT_EQ(statusAfter, statusBefore);
        EXPECT_EQ(walkAfter, walkBefore) << net.name(source) << " -> " << net.name(destination);
      }
      EXPECT_EQ(carried, sent) << net.name(source) << " -> " << net.name(destination);
    }
  }
}

/// A routing as `route --export lft --export sl` writes it, and as `verify --engine file:LFT
/// --sl SL` reads it back against the same fabric.
struct ExportedFiles {
  std::string lft, sl;
  RoutingResult loaded;
};

ExportedFiles throughFiles(const Network& net, const RoutingResult& merged) {
  std::ostringstream lft, sl;
  writeLftDump(net, merged, lft);
  writeSlTable(net, merged, sl);
  ExportedFiles files{lft.str(), sl.str(), {}};
  files.loaded =
      applySlTable(net, parseLftDump(files.lft, "export.dump", net), parseSlTable(files.sl, "export.sl"), false);
  return files;
}

}  // namespace

TEST(LmcExport, FallbackRoutingsVerifyAsLoadedFromTheirFiles) {
  // random:switches=32,seed=3 needs 3 LASH layers: with max-layers 2 (and 1) the pairs that
  // do not fit go to the UpDown layer, which has its own table (Lysne §8.4).
  const Fabric fabric = loadFabric("random:switches=32,seed=3");
  const Network& net = fabric.network;
  for (const char* engine :
       {"lash:max-layers=2", "lash:max-layers=1", "lash:max-layers=2,balance", "lash:addressing=pair,max-layers=2"}) {
    SCOPED_TRACE(engine);
    const RoutingResult routing = runEngine(engine, net);
    ASSERT_EQ(routing.tables.size(), 2u) << "the fallback must be in use for this test to mean anything";
    const VerifyResult direct = verifyRouting(net, routing);
    ASSERT_TRUE(direct.passed()) << direct.cycleText;

    const RoutingResult merged = mergeTablesByLmc(net, routing);
    ASSERT_EQ(merged.tables.size(), 1u);
    EXPECT_EQ(merged.layerCount(), routing.layerCount());
    // Two tables: each block doubles, at a base LID aligned to its size (OpenSM's LMC rule;
    // pair addressing: a block of 32 addresses becomes 64 LIDs).
    std::set<std::uint32_t> lidsSeen;
    for (NodeId owner : merged.addresses.owners()) {
      const std::uint32_t size = merged.addresses.blockSize(owner);
      EXPECT_EQ(size, 2 * routing.addresses.blockSize(owner));
      EXPECT_EQ(merged.addresses.lid(merged.addresses.base(owner)) % std::bit_ceil(size), 0u) << net.name(owner);
      // The block's LIDs are consecutive from its base (an LMC block: base + path bits), and
      // no LID is used twice in the subnet.
      for (std::uint32_t i = 0; i < size; ++i) {
        const std::uint32_t lid = merged.addresses.lid(merged.addresses.base(owner) + i);
        EXPECT_EQ(lid, merged.addresses.lid(merged.addresses.base(owner)) + i) << net.name(owner) << " " << i;
        EXPECT_TRUE(lidsSeen.insert(lid).second) << "LID " << lid << " twice";
      }
    }
    expectSameWalks(net, routing, merged);
    EXPECT_EQ(dependenciesOf(net, merged), dependenciesOf(net, routing));

    // Through the files: LFT dump + SL table, read back against the same fabric.
    const ExportedFiles files = throughFiles(net, merged);
    const VerifyResult fromFiles = verifyRouting(net, files.loaded);
    EXPECT_TRUE(fromFiles.passed()) << fromFiles.cycleText;
    EXPECT_EQ(fromFiles.layersUsed, direct.layersUsed);
    EXPECT_EQ(fromFiles.dependencies, direct.dependencies);
    EXPECT_EQ(fromFiles.routes, direct.routes);
    // Without the SL file every LID of the dump is one layer's traffic: deadlock-prone.
    EXPECT_FALSE(verifyRouting(net, parseLftDump(files.lft, "fallback.dump", net)).deadlockFree);
  }
}

TEST(LmcExport, SingleTableRoutingsKeepTheirLidsAndGetTheirSlFile) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  const Network& net = fabric.network;
  const RoutingResult routing = runEngine("lash", net);  // 2 layers, one table
  ASSERT_EQ(routing.tables.size(), 1u);
  ASSERT_GE(routing.layerCount(), 2u);
  const RoutingResult merged = mergeTablesByLmc(net, routing);
  EXPECT_EQ(merged.addresses.count(), routing.addresses.count());
  EXPECT_EQ(merged.layerOf, routing.layerOf);
  const ExportedFiles files = throughFiles(net, merged);
  const VerifyResult v = verifyRouting(net, files.loaded);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.dependencies, verifyRouting(net, routing).dependencies);
  // Header comment, then one line per ordered terminal pair.
  std::size_t lines = 0;
  for (char c : files.sl) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 1 + net.terminalCount() * (net.terminalCount() - 1));
}

// An InfiniBand port has at most 128 LIDs (LMC 7): a merged block of exactly 128 is taken,
// the next size (256: three tables take four copies) refused with the owner, its addresses,
// the tables, the copies and the LIDs needed.
TEST(LmcExport, AMergedBlockOfExactly128LidsIsLmc7AndTheNextSizeIsRefused) {
  const Fabric fabric = loadFabric("random:switches=6,seed=1");
  RoutingContext context;
  context.addressesPerTerminal = 64;
  const RoutingResult two = runEngine("d-mroots:layers=2", fabric.network, context);
  ASSERT_EQ(two.tables.size(), 2u);
  const RoutingResult merged = mergeTablesByLmc(fabric.network, two);
  for (const NodeId t : fabric.network.terminals()) EXPECT_EQ(merged.addresses.blockSize(t), 128u);
  bool named = false;
  for (const auto& [key, value] : merged.stats) named = named || (key == "lmc_tables" && value == "2 tables on LMC 7");
  EXPECT_TRUE(named);
  const RoutingResult three = runEngine("d-mroots:layers=3", fabric.network, context);
  ASSERT_EQ(three.tables.size(), 3u);
  try {
    mergeTablesByLmc(fabric.network, three);
    ADD_FAILURE() << "256 LIDs per port were merged";
  } catch (const RoutingError& e) {
    const std::string expected = fmt::format(
        "'{}' owns 64 addresses; merging 3 tables by LMC takes 4 copies of them (a power of two), 256 LIDs, and an "
        "InfiniBand port has at most 128 (LMC 7)",
        fabric.network.name(three.addresses.owners().front()));
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

// lmcOf: the smallest k with 2^k >= the LIDs, counted up; lmcCopies: the smallest power of two
// >= the tables (one for none or one).
TEST(LmcExport, TheLmcOfABlockAndTheCopiesOfTablesAreCountedUp) {
  for (std::uint64_t lids = 0; lids <= 300; ++lids) {
    std::uint32_t k = 0;
    while ((std::uint64_t{1} << k) < lids) ++k;
    EXPECT_EQ(lmcOf(lids), k) << lids;
  }
  EXPECT_EQ(lmcOf(std::uint64_t{1} << 40), 40u);
  EXPECT_EQ(lmcOf((std::uint64_t{1} << 40) + 1), 41u);
  for (std::size_t tables = 0; tables <= 40; ++tables) {
    std::uint32_t copies = 1;
    while (copies < tables) copies *= 2;
    EXPECT_EQ(lmcCopies(tables), copies) << tables;
  }
}

TEST(LmcExport, EscapeRoutingsAndOversizedBlocksAreRefused) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  const RoutingResult escape = runEngine("escape", fabric.network);
  ASSERT_GE(escape.escapeLayer, 0);
  ASSERT_GT(escape.tables.size(), 1u);
  EXPECT_THROW(mergeTablesByLmc(fabric.network, escape), RoutingError);
  // Pair addressing on 32 switches: 320 LIDs per terminal before the merge, beyond LMC 7.
  const Fabric larger = loadFabric("random:switches=32,seed=3");
  const RoutingResult pairs = runEngine("mp-lash:max-layers=2", larger.network);
  ASSERT_EQ(pairs.tables.size(), 2u);
  try {
    mergeTablesByLmc(larger.network, pairs);
    ADD_FAILURE() << "expected a RoutingError";
  } catch (const RoutingError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 128"), std::string::npos) << e.what();
  }
}
