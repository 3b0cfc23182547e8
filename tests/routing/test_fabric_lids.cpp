// Fabric LIDs (io/lid_map.h, docs/FORMATS.md "Fabric LIDs"): a fabric imported from
// ibnetdiscover output, or given OpenSM's guid2lid cache, exports its LFT dump and SL file
// with its own LIDs, switch headers included. The truth is OpenSM's own files of the same
// run (tests/data/opensm/k4n3: guid2lid, lfts.minhop.dump.gz).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/lft_dump.h"
#include "io/lid_map.h"
#include "io/output.h"
#include "io/sl_table.h"
#include "test_support.h"

using namespace routelab;

namespace {

std::string k4n3(const std::string& file) { return test::fixturesDir() + "/k4n3/" + file; }

/// (switch GUID -> header LID) of an LFT dump text ("... of switch Lid <L> guid 0x<G> (...").
std::map<std::uint64_t, std::uint32_t> headerLids(const std::string& dump) {
  std::map<std::uint64_t, std::uint32_t> out;
  std::istringstream in(dump);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Unicast lids [0-", 0) != 0) continue;
    std::istringstream fields(line.substr(line.find(" of switch Lid ") + 15));
    std::uint32_t lid = 0;
    std::string guidWord, guid;
    fields >> lid >> guidWord >> guid;
    out[std::stoull(guid, nullptr, 16)] = lid;
  }
  return out;
}

/// `text` with every occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string exported(const Network& net, const RoutingResult& r, const LidMap& lids) {
  std::ostringstream out;
  writeLftDump(net, r, out, switchLids(net, lids));
  return out.str();
}

}  // namespace

// writeLftDump's switch headers (io/lft_dump.h): the given LID where it is not 0, else the
// switch's own address's LID. Given here: 0 (none) for switch 0, LID 1 for switch 1 (the
// lowest LID), 40 for switch 2, nothing past it.
TEST(FabricLids, ASwitchHeaderTakesTheGivenLidUnlessItIsZero) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const Network& net = fabric.network;
  RoutingContext context;
  context.routeSwitches = true;
  const RoutingResult r = runEngine("dmodk", net, context);
  const std::vector<std::uint32_t> given{0, 1, 40};
  std::ostringstream out;
  writeLftDump(net, r, out, given);
  const std::map<std::uint64_t, std::uint32_t> headers = headerLids(out.str());
  ASSERT_EQ(headers.size(), net.switchCount());
  for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
    const NodeId sw = net.switchNode(s);
    const std::uint32_t own = r.addresses.lid(r.addresses.base(sw));
    ASSERT_NE(own, 0u);
    const std::uint32_t expected = s == 1 ? 1 : s == 2 ? 40 : own;
    EXPECT_EQ(headers.at(net.guid(sw)), expected) << net.name(sw);
  }
}

// Named as ibnetdiscover output or given as file:PATH and detected as such (docs/FORMATS.md
// "Fabric LIDs"), the import carries the LIDs OpenSM gave.
TEST(FabricLids, IbnetdiscoverImportCarriesTheFilesLids) {
  const LidMap truth = readGuid2Lid(k4n3("guid2lid"));  // OpenSM's cache of the same run
  ASSERT_EQ(truth.byPortGuid.size(), 112u);             // 64 CAs + 48 switches
  for (const std::string prefix : {"ibnetdiscover:", "file:"}) {
    SCOPED_TRACE(prefix);
    const Fabric fabric = loadFabric(prefix + k4n3("ibnetdiscover.txt"));
    ASSERT_FALSE(fabric.lids.empty());
    for (std::size_t i = 0; i < fabric.network.nodeCount(); ++i) {
      const NodeId node = NodeId::fromIndex(i);
      const LidMap::Entry* ours = fabric.lids.find(fabric.network, node);
      const LidMap::Entry* theirs = truth.find(fabric.network, node);
      ASSERT_NE(ours, nullptr) << fabric.network.name(node);
      ASSERT_NE(theirs, nullptr) << fabric.network.name(node);
      EXPECT_EQ(ours->lid, theirs->lid) << fabric.network.name(node);
      EXPECT_EQ(ours->lmc, 0) << fabric.network.name(node);
    }
  }
}

TEST(FabricLids, RouteExportReadBackKeepsTheFabricsLids) {
  const Fabric fabric = loadFabric("ibnetdiscover:" + k4n3("ibnetdiscover.txt"));
  const Network& net = fabric.network;
  const LidMap truth = readGuid2Lid(k4n3("guid2lid"));
  for (bool switchAddresses : {false, true}) {
    RoutingContext context;
    context.routeSwitches = switchAddresses;
    const RoutingResult routing = runEngine("dmodk", net, context);
    const RoutingResult relabelled = withFabricLids(net, routing, fabric.lids);
    const std::string text = exported(net, relabelled, fabric.lids);
    // Switch headers: every switch's real LID, whether or not switches own addresses.
    const auto headers = headerLids(text);
    ASSERT_EQ(headers.size(), net.switchCount());
    for (NodeId sw : net.switches()) EXPECT_EQ(headers.at(net.guid(sw)), truth.find(net, sw)->lid) << net.name(sw);
    // Read back: every address has the LID OpenSM gave its owner, the tables are unchanged.
    // (The reader also binds the header LIDs to the switches: 48 more addresses without
    // table entries when the routing gives switches none.)
    const RoutingResult back = parseLftDump(text, "exported", net);
    ASSERT_EQ(back.addresses.count(), routing.addresses.count() + (switchAddresses ? 0 : net.switchCount()));
    for (Address a = 0; a < back.addresses.count(); ++a) {
      const NodeId owner = back.addresses.owner(a);
      EXPECT_EQ(back.addresses.lid(a), truth.find(net, owner)->lid) << net.name(owner);
      if (!routing.addresses.hasAddresses(owner)) continue;
      const Address original = routing.addresses.base(owner);
      for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
        ASSERT_EQ(back.tables.front().port(s, a), routing.tables.front().port(s, original));
      }
    }
  }
}

TEST(FabricLids, SameLidsAsOpensmsDumpOfTheSameFabric) {
  // The exported dump names every destination with the LID OpenSM's own dump gives it.
  const Fabric fabric = loadFabric("ibnetdiscover:" + k4n3("ibnetdiscover.txt"));
  RoutingContext context;
  context.routeSwitches = true;
  const RoutingResult routing =
      withFabricLids(fabric.network, runEngine("minhop", fabric.network, context), fabric.lids);
  const std::string ours = exported(fabric.network, routing, fabric.lids);
  const std::string theirs = readFileText(k4n3("lfts.minhop.dump.gz"));
  auto lidOfGuid = [](const std::string& dump) {  // "0x<LID> <port> # <type> portguid 0x<G>: ..."
    std::map<std::string, std::string> out;
    std::istringstream in(dump);
    for (std::string line; std::getline(in, line);) {
      const std::size_t at = line.find(" portguid ");
      if (line.rfind("0x", 0) != 0 || at == std::string::npos) continue;
      out[line.substr(at + 10, line.find(':', at) - at - 10)] = line.substr(0, 6);
    }
    return out;
  };
  EXPECT_EQ(lidOfGuid(ours), lidOfGuid(theirs));
  EXPECT_EQ(headerLids(ours), headerLids(theirs));
}

TEST(FabricLids, Guid2LidGivesTheSameLidsAsIbnetdiscover) {
  const Fabric generated = loadFabric("kary-ntree:k=4,n=3");
  const Fabric imported = loadFabric("ibnetdiscover:" + k4n3("ibnetdiscover.txt"));
  const LidMap cache = readGuid2Lid(k4n3("guid2lid"));
  const RoutingResult a = withFabricLids(generated.network, runEngine("dmodk", generated.network), cache);
  const RoutingResult b = withFabricLids(imported.network, runEngine("dmodk", imported.network), imported.lids);
  EXPECT_EQ(exported(generated.network, a, cache), exported(imported.network, b, imported.lids));
}

TEST(FabricLids, SlFileUsesTheFabricsLidsAndReadsBack) {
  // rnd16_s1: routelab's LASH needs 2 layers there (OpenSM's LASH too).
  const Fabric fabric = loadFabric("ibnetdiscover:" + test::fixturesDir() + "/rnd16_s1/ibnetdiscover.txt");
  const RoutingResult routing = withFabricLids(fabric.network, runEngine("lash", fabric.network), fabric.lids);
  std::ostringstream out;
  writeSlTable(fabric.network, routing, out);
  const SlTable table = parseSlTable(out.str(), "exported.sl");
  std::set<std::uint32_t> caLids;
  for (NodeId t : fabric.network.terminals()) caLids.insert(fabric.lids.find(fabric.network, t)->lid);
  ASSERT_EQ(table.entries.size(), 16u * 15u);
  for (const auto& e : table.entries) {
    EXPECT_TRUE(caLids.count(e.slid) && caLids.count(e.dlid)) << e.slid << " " << e.dlid;
  }
  // Applied to the same routing on the fabric's LIDs, every pair keeps its layer.
  const RoutingResult back = applySlTable(fabric.network, routing, table, false);
  ASSERT_EQ(routing.layerCount(), 2u);
  std::size_t pairs = 0;
  for (NodeId source : fabric.network.terminals()) {
    const std::uint32_t index = routing.addresses.sourceIndex(source);
    for (NodeId destination : fabric.network.terminals()) {
      if (source == destination) continue;
      const Address a = routing.addresses.base(destination);
      ASSERT_EQ(back.layer(index, a), routing.layer(index, a));
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 16u * 15u);
}

TEST(FabricLids, Guid2LidErrorsNameTheLine) {
  auto message = [](const std::string& text) {
    try {
      parseGuid2Lid(text, "g2l");
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("0x10 0x1 0x1\n\n0x11 0x1 0x1\n").find("g2l:3: LID 1 of port GUID 0x0000000000000011 is also"),
            std::string::npos);
  EXPECT_NE(message("0x10 0x3 0x4\n").find("g2l:1: LIDs 0x3..0x4 are not an aligned block"), std::string::npos);
  EXPECT_NE(message("0x10 0x4 0x7\n0x11 0x6 0x6\n").find("g2l:2:"), std::string::npos);  // inside an LMC block
  // Ranges touching at one LID: a port at the last LID of an earlier LMC block, and an LMC
  // block whose last LID is an earlier port's.
  EXPECT_NE(
      message("0x10 0x4 0x7\n0x11 0x7 0x7\n")
          .find("g2l:2: LID 7 of port GUID 0x0000000000000011 is also a LID of port GUID 0x0000000000000010 (line 1)"),
      std::string::npos)
      << message("0x10 0x4 0x7\n0x11 0x7 0x7\n");
  EXPECT_NE(
      message("0x11 0x7 0x7\n0x10 0x4 0x7\n")
          .find("g2l:2: LID 4 of port GUID 0x0000000000000010 is also a LID of port GUID 0x0000000000000011 (line 1)"),
      std::string::npos)
      << message("0x11 0x7 0x7\n0x10 0x4 0x7\n");
  EXPECT_EQ(message("0x10 0x4 0x7\n0x11 0x8 0x8\n0x12 0x3 0x3\n"), "no error");  // the LIDs beside a block
  EXPECT_NE(message("0x10 0x1\n").find("g2l:1: expected '0x<port GUID>"), std::string::npos);
  EXPECT_NE(message("0x10 0xc000 0xc000\n").find("not a unicast LID"), std::string::npos);
  EXPECT_NE(message("0x10 0x1 0x1\n0x10 0x2 0x2\n").find("g2l:2: port GUID 0x0000000000000010 is listed twice"),
            std::string::npos);
  const LidMap ok = parseGuid2Lid("# cache\n0x10 0x4 0x7\n\n0x11 0x8 0x8\n", "g2l");
  EXPECT_EQ(ok.byPortGuid.at(0x10).lmc, 2);
  EXPECT_EQ(ok.byPortGuid.at(0x11).lid, 8u);
  // LMC at its limit: a block of 128 LIDs is LMC 7; 256 would be LMC 8, refused as such.
  EXPECT_EQ(parseGuid2Lid("0x10 0x80 0xff\n", "g2l").byPortGuid.at(0x10).lmc, 7);
  EXPECT_NE(message("0x10 0x100 0x1ff\n").find("g2l:1: LMC 8 is out of range 0..7"), std::string::npos)
      << message("0x10 0x100 0x1ff\n");
  EXPECT_NE(message("0x10 0x100 0x2ff\n").find("g2l:1: LIDs 0x100..0x2ff are not an aligned block"), std::string::npos);
}

TEST(FabricLids, RefusesRoutingsTheLidsCannotCarry) {
  const Fabric fabric = loadFabric("ibnetdiscover:" + k4n3("ibnetdiscover.txt"));
  RoutingContext context;
  context.addressesPerTerminal = 2;  // LMC 1 on a fabric configured with LMC 0
  const RoutingResult lmc1 = runEngine("dmodk", fabric.network, context);
  try {
    withFabricLids(fabric.network, lmc1, fabric.lids);
    FAIL() << "no error";
  } catch (const RoutingError& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 addresses but its port has LMC 0"), std::string::npos) << e.what();
  }
  // A cache that misses one CA.
  const LidMap partial = parseGuid2Lid("0x0000000000100001 0x1 0x1\n", "partial");
  try {
    withFabricLids(fabric.network, runEngine("dmodk", fabric.network), partial);
    FAIL() << "no error";
  } catch (const RoutingError& e) {
    EXPECT_NE(std::string(e.what()).find("has no LID in partial"), std::string::npos) << e.what();
  }
}

TEST(FabricLids, CliExportUsesTheFabricsLids) {
  const std::string dir = ::testing::TempDir();
  const std::string lft = dir + "/fabric_lids.lfts", sl = dir + "/fabric_lids.sl";
  const auto r = test::runRoutelab("route ibnetdiscover:" + k4n3("ibnetdiscover.txt") + " --engine lash --export lft " +
                                   lft + " --export sl " + sl);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("lids        the fabric's own"), std::string::npos);
  const auto headers = headerLids(readFileText(lft));
  EXPECT_EQ(headers.at(0x200000), 2u);  // kt-s0-00 is LID 2 in OpenSM's run
  // verify on the fabric reads the SL file on the same (the fabric's) LIDs.
  const auto v = test::runRoutelab("verify ibnetdiscover:" + k4n3("ibnetdiscover.txt") + " --engine lash --sl " + sl);
  EXPECT_EQ(v.exitCode, 0) << v.out << v.err;
  const auto f =
      test::runRoutelab("verify ibnetdiscover:" + k4n3("ibnetdiscover.txt") + " --engine file:" + lft + " --sl " + sl);
  EXPECT_EQ(f.exitCode, 0) << f.out << f.err;
  // A generated fabric with OpenSM's LID cache gives the same dump.
  const auto g = test::runRoutelab("route kary-ntree:k=4,n=3 --engine lash --lid-map " + k4n3("guid2lid") +
                                   " --export lft " + lft + ".g");
  ASSERT_EQ(g.exitCode, 0) << g.err;
  EXPECT_EQ(readFileText(lft + ".g"), readFileText(lft));
  // LMC 1 cannot be carried by LIDs configured with LMC 0: refused, nothing written.
  const auto bad = test::runRoutelab("route ibnetdiscover:" + k4n3("ibnetdiscover.txt") +
                                     " --engine dmodk --lmc 1 --export lft " + lft + ".bad");
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE(bad.err.find("LMC 0"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::ifstream(lft + ".bad").good());
  // A LID map without LIDs is an error, not a silent fallback to routelab's numbering.
  std::ofstream(dir + "/fabric_lids.empty.g2l") << "# nothing\n";
  const auto empty = test::runRoutelab("route kary-ntree:k=4,n=3 --engine dmodk --lid-map " + dir +
                                       "/fabric_lids.empty.g2l --export lft " + lft + ".empty");
  EXPECT_EQ(empty.exitCode, 1);
  EXPECT_NE(empty.err.find("no LIDs in the file"), std::string::npos) << empty.err;
  EXPECT_FALSE(std::ifstream(lft + ".empty").good());
}

TEST(FabricLids, IbnetdiscoverWithoutLidsOrWithCollisions) {
  const std::string text = readFileText(test::fixturesDir() + "/k4n2/ibnetdiscover.txt");
  // Before an SM ran, ibnetdiscover prints LID 0 everywhere: no fabric LIDs (default numbering).
  std::string unconfigured;
  {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {  // every "lid <N>" -> "lid 0"
      for (std::size_t at = line.find("lid "); at != std::string::npos; at = line.find("lid ", at + 4)) {
        const std::size_t end = line.find_first_not_of("0123456789", at + 4);
        line.replace(at + 4, (end == std::string::npos ? line.size() : end) - at - 4, "0");
      }
      unconfigured += line + "\n";
    }
  }
  EXPECT_TRUE(parseIbnetdiscoverLids(unconfigured, "unconfigured").empty());
  // Two ports claiming one LID: refused with the line of the second.
  const std::string clash = replaced(text, "# lid 24 lmc 0", "# lid 1 lmc 0");
  try {
    parseIbnetdiscoverLids(clash, "clash");
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("LID 1 of port GUID"), std::string::npos) << e.what();
    EXPECT_GT(e.line(), 0u);
  }
  const std::string beyond = replaced(text, "# lid 24 lmc 0", "# lid 49152 lmc 0");
  EXPECT_THROW(parseIbnetdiscoverLids(beyond, "beyond"), ParseError);
  // Every CA and switch of k4n2 has its LID: 16 + 8.
  EXPECT_EQ(parseIbnetdiscoverLids(text, "k4n2").byPortGuid.size(), 24u);
}

// ibnetdiscover's `switchguid=`/`caguid=` lines are optional (docs/FORMATS.md): without them
// a node's GUID is the one in its `S-`/`H-` id, and the LIDs are keyed as with them.
TEST(FabricLids, IbnetdiscoverLidsWithoutTheGuidLinesAreKeyedByTheHeadersIds) {
  const std::string text = readFileText(test::fixturesDir() + "/k4n2/ibnetdiscover.txt");
  std::string bare;
  std::istringstream in(text);
  std::size_t dropped = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("switchguid=") || line.starts_with("caguid=")) {
      ++dropped;
      continue;
    }
    bare += line + "\n";
  }
  ASSERT_EQ(dropped, 24u);  // 8 switches, 16 CAs
  const LidMap with = parseIbnetdiscoverLids(text, "with"), without = parseIbnetdiscoverLids(bare, "without");
  ASSERT_EQ(with.byPortGuid.size(), 24u);
  ASSERT_EQ(without.byPortGuid.size(), with.byPortGuid.size());
  for (const auto& [guid, entry] : with.byPortGuid) {
    ASSERT_TRUE(without.byPortGuid.contains(guid)) << std::hex << guid;
    EXPECT_EQ(without.byPortGuid.at(guid).lid, entry.lid) << std::hex << guid;
    EXPECT_EQ(without.byPortGuid.at(guid).lmc, entry.lmc) << std::hex << guid;
  }
  ASSERT_EQ(without.byNodePort.size(), with.byNodePort.size());
  for (const auto& [guid, ports] : with.byNodePort) {
    ASSERT_TRUE(without.byNodePort.contains(guid)) << std::hex << guid;
    for (const auto& [port, entry] : ports) EXPECT_EQ(without.byNodePort.at(guid).at(port).lid, entry.lid);
  }
}

// A routing with one table per layer keeps its layers: an SL table may name SLs up to its
// last layer (read), not one more (refused with the SL and both counts).
TEST(FabricLids, AnSlTableCannotAddLayersToARoutingWithATablePerLayer) {
  const Fabric fabric = loadFabric("random:switches=8,seed=1");
  const RoutingResult routing = runEngine("mroots:layers=2", fabric.network);
  ASSERT_EQ(routing.tables.size(), 2u);
  std::ostringstream out;
  writeSlTable(fabric.network, routing, out);
  SlTable table = parseSlTable(out.str(), "layers.sl");
  ASSERT_FALSE(table.entries.empty());
  table.entries.front().sl = 1;  // the last layer: read
  EXPECT_EQ(applySlTable(fabric.network, routing, table, false).layerCount(), 2u);
  table.entries.front().sl = 2;  // one past
  try {
    applySlTable(fabric.network, routing, table, false);
    FAIL() << "SL 2 was applied to a routing of 2 layers";
  } catch (const RoutingError& e) {
    EXPECT_EQ(std::string(e.what()), "layers.sl: SL 2 needs 3 layers, the routing has 2 layers with their own tables");
  }
}
