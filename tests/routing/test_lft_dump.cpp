// OpenSM LFT dumps: every fixture dump (real OpenSM 3.3.23 output) loads against the
// generated and the imported fabric and passes the routing checks; writer output is
// byte-identical to OpenSM's files; round trips; error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "engines/fattree/fat_tree.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "io/fabric_files.h"
#include "io/lft_dump.h"
#include "io/output.h"
#include "routing/checks.h"
#include "test_stats.h"
#include "test_support.h"
#include "topology/xgft.h"

using namespace routelab;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string dir;
  std::string spec;  ///< generator spec of the same fabric (same names and GUIDs)
};

const std::vector<Fixture>& fixtures() {
  static const std::vector<Fixture> list = {{"k4n2", "kary-ntree:k=4,n=2"},
                                            {"k2n4", "kary-ntree:k=2,n=4"},
                                            {"k4n3", "kary-ntree:k=4,n=3"},
                                            {"gft_4_4_8", "gft2:n=4,m=4,r=8"},
                                            {"rnd16_s1", "random:switches=16,seed=1"},
                                            {"k6n2", "kary-ntree:k=6,n=2"}};
  return list;
}

std::vector<std::string> dumpsIn(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("lfts.", 0) == 0) out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string written(const Network& net, const RoutingResult& r) {
  std::ostringstream out;
  writeLftDump(net, r, out);
  return out.str();
}

}  // namespace

TEST(LftDump, EveryFixtureDumpLoadsAndDeliversEveryCaPair) {
  std::size_t dumps = 0;
  for (const Fixture& f : fixtures()) {
    const std::string dir = test::fixturesDir() + "/" + f.dir;
    const Network generated = loadFabric(f.spec).network;
    const Network imported = loadFabric("ibnetdiscover:" + dir + "/ibnetdiscover.txt").network;
    for (const std::string& path : dumpsIn(dir)) {
      for (const Network* net : {&generated, &imported}) {
        const RoutingResult r = readLftDump(path, *net);
        // Every CA and every switch has its LID (OpenSM dumps list all ports).
        EXPECT_EQ(r.addresses.count(), net->terminalCount() + net->switchCount()) << path;
        const RoutingCheckReport report = checkRouting(*net, r);
        EXPECT_TRUE(report.passed()) << path << ": " << (report.failures.empty() ? "" : report.failures.front());
        EXPECT_EQ(report.terminalPairsDelivered, net->terminalCount() * (net->terminalCount() - 1)) << path;
        EXPECT_EQ(report.loops, 0u) << path;
      }
      ++dumps;
    }
  }
  // 7 engines on the trees and the GFT, 7 on the random fabric, 3 on the 12-port k6n2.
  EXPECT_EQ(dumps, 7u * 4 + 7u + 3u);
}

TEST(LftDump, WriterReproducesOpenSmFilesByteForByte) {
  // The dump carries OpenSM's LIDs; our fabrics carry ibsim's GUIDs and the same names, so
  // writing the loaded routing reproduces the file exactly.
  for (const Fixture& f : fixtures()) {
    const std::string dir = test::fixturesDir() + "/" + f.dir;
    const Network net = loadFabric(f.spec).network;
    for (const std::string& path : dumpsIn(dir)) {
      const std::string original = readFileText(path);
      EXPECT_EQ(written(net, readLftDump(path, net)), original) << path;
    }
  }
}

TEST(LftDump, FtreeDeterministicReproducesOpenSmFtree) {
  // Our ftree-deterministic (with switch addresses), given OpenSM's LIDs, written as a dump:
  // byte-identical to OpenSM 3.3.23's ftree LFTs on the 4-ary 2-tree, T(4+4, 8) and the 6-ary 2-tree
  // (12-port switches, ports 10-12 written and read back). On the
  // 3-stage trees OpenSM's ftree orders destinations differently: golden agreement counts
  // over the (switch, CA LID) entries.
  struct Case {
    std::string dir, spec, file;
    std::size_t caEntries, equal;
  };
  for (const Case& c : {Case{"k4n2", "kary-ntree:k=4,n=2", "lfts.ftree.dump", 128, 128},
                        Case{"gft_4_4_8", "gft2:n=4,m=4,r=8", "lfts.ftree.dump", 384, 384},
                        Case{"k6n2", "kary-ntree:k=6,n=2", "lfts.ftree.dump", 432, 432},
                        Case{"k2n4", "kary-ntree:k=2,n=4", "lfts.ftree.dump", 512, 464},
                        Case{"k4n3", "kary-ntree:k=4,n=3", "lfts.ftree.dump.gz", 3072, 2784}}) {
    const std::string path = test::fixturesDir() + "/" + c.dir + "/" + c.file;
    const Network net = loadFabric(c.spec).network;
    const RoutingResult opensm = readLftDump(path, net);
    RoutingContext context;
    context.routeSwitches = true;
    const RoutingResult ours = routeFtreeDeterministic(net, context);
    RoutingResult readdressed = opensm;  // OpenSM's address map, our ports
    std::size_t equal = 0, caEntries = 0;
    for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
      for (Address a = 0; a < opensm.addresses.count(); ++a) {
        const NodeId owner = opensm.addresses.owner(a);
        const PortNumber port = ours.table().port(s, ours.addresses.base(owner));
        readdressed.tables[0].set(s, a, port);
        if (net.isTerminal(owner)) {
          ++caEntries;
          equal += port == opensm.table().port(s, a) ? 1 : 0;
        }
      }
    }
    EXPECT_EQ(caEntries, c.caEntries) << c.dir;
    EXPECT_EQ(equal, c.equal) << c.dir;
    if (c.equal == c.caEntries) {
      EXPECT_EQ(written(net, readdressed), readFileText(path)) << c.dir;
    }
  }
}

// Two cases no fixture of ibsim's generators has (tests/data/opensm make every host a
// single-port CA on port 1): a dual-rail host with both ports cabled, and a host whose only
// cabled port is its last one, both with the NodeDescription "hca" that real HCAs share
// ("MT4123 ConnectX"), so the LFT dump can only name them by port GUID (node GUID + port).
// The port lines are in `ibnetdiscover -p`'s layout; the dump lists each cabled CA port's
// LID as OpenSM does (the dual-rail host has two).
TEST(LftDump, HostsNamedByTheGuidOfAnyCabledPort) {
  const std::string ports =
      "SW     1 10 0x0000000000200000 4x SDR - CA     5  2 0x0000000000100012 ( 'sw-a' - 'hca' )\n"
      "SW     1 11 0x0000000000200000 4x SDR - CA     3  1 0x0000000000100001 ( 'sw-a' - 'hca' )\n"
      "SW     1 12 0x0000000000200000 4x SDR - SW     2 11 0x0000000000200001 ( 'sw-a' - 'sw-b' )\n"
      "SW     2 11 0x0000000000200001 4x SDR - SW     1 12 0x0000000000200000 ( 'sw-b' - 'sw-a' )\n"
      "SW     2 12 0x0000000000200001 4x SDR - CA     4  2 0x0000000000100002 ( 'sw-b' - 'hca' )\n"
      "CA     3  1 0x0000000000100001 4x SDR - SW     1 11 0x0000000000200000 ( 'hca' - 'sw-a' )\n"
      "CA     4  2 0x0000000000100002 4x SDR - SW     2 12 0x0000000000200001 ( 'hca' - 'sw-b' )\n"
      "CA     0  1 0x0000000000100011 4x SDR                                   'hca'\n"
      "CA     5  2 0x0000000000100012 4x SDR - SW     1 10 0x0000000000200000 ( 'hca' - 'sw-a' )\n";
  ASSERT_EQ(detectFabricFormat(ports), FabricFormat::IbnetdiscoverPorts);
  const Network net = parseFabricText(ports, "dual-rail.txt");
  // One node per CA (node GUID = port GUID - port number), not one per cabled port.
  ASSERT_EQ(net.terminalCount(), 2u);
  ASSERT_EQ(net.switchCount(), 2u);
  EXPECT_EQ(net.linkCount(), 4u);
  const NodeId dual = net.terminalNode(0), single = net.terminalNode(1);
  EXPECT_EQ(net.guid(dual), 0x100000u);
  EXPECT_EQ(net.guid(single), 0x100010u);
  EXPECT_EQ(net.name(dual), "H-0000000000100000");  // "hca" is not unique
  const NodeId swA = *net.findNode("sw-a"), swB = *net.findNode("sw-b");
  ASSERT_EQ(net.portCount(dual), 2);
  EXPECT_EQ(net.target(net.channelAt(dual, 1)), swA);
  EXPECT_EQ(net.target(net.channelAt(dual, 2)), swB);
  EXPECT_EQ(net.target(net.channelAt(swA, 11)), dual);
  EXPECT_EQ(net.target(net.channelAt(swB, 12)), dual);
  ASSERT_EQ(net.portCount(single), 2);
  EXPECT_FALSE(net.channelAt(single, 1).valid());
  EXPECT_EQ(net.target(net.channelAt(single, 2)), swA);
  EXPECT_EQ(net.portCount(swA), 12);

  const std::string dump =
      "Unicast lids [0-5] of switch Lid 1 guid 0x0000000000200000 ('sw-a'):\n"
      "0x0001 000 # Switch portguid 0x0000000000200000: 'sw-a'\n"
      "0x0002 012 # Switch portguid 0x0000000000200001: 'sw-b'\n"
      "0x0003 011 # Channel Adapter portguid 0x0000000000100001: 'hca'\n"
      "0x0004 012 # Channel Adapter portguid 0x0000000000100002: 'hca'\n"
      "0x0005 010 # Channel Adapter portguid 0x0000000000100012: 'hca'\n"
      "5 lids dumped\n"
      "Unicast lids [0-5] of switch Lid 2 guid 0x0000000000200001 ('sw-b'):\n"
      "0x0001 011 # Switch portguid 0x0000000000200000: 'sw-a'\n"
      "0x0002 000 # Switch portguid 0x0000000000200001: 'sw-b'\n"
      "0x0003 011 # Channel Adapter portguid 0x0000000000100001: 'hca'\n"
      "0x0004 012 # Channel Adapter portguid 0x0000000000100002: 'hca'\n"
      "0x0005 011 # Channel Adapter portguid 0x0000000000100012: 'hca'\n"
      "5 lids dumped\n";
  const RoutingResult r = parseLftDump(dump, "dual-rail.dump", net);
  // LIDs 3 and 4 (ports 1 and 2 of the dual-rail host) and 5 (port 2 of the other).
  for (const auto& [lid, owner] : std::vector<std::pair<std::uint32_t, NodeId>>{{3, dual}, {4, dual}, {5, single}}) {
    bool found = false;
    for (Address a = 0; a < r.addresses.count(); ++a) {
      if (r.addresses.lid(a) != lid) continue;
      found = true;
      EXPECT_EQ(r.addresses.owner(a), owner) << "LID " << lid;
    }
    EXPECT_TRUE(found) << "LID " << lid;
  }
  EXPECT_EQ(r.table().port(net.switchIndex(swA), r.addresses.base(single)), 10);
  const RoutingCheckReport report = checkRouting(net, r);
  EXPECT_TRUE(report.passed()) << (report.failures.empty() ? "" : report.failures.front());
  // single -> both LIDs of the dual-rail host, dual-rail host -> single.
  EXPECT_EQ(report.terminalPairsDelivered, 3u);
}

TEST(LftDump, RoundTripAtTheFormatsLimits) {
  // The last unicast LID (0xBFFF), port 254 and GUIDs near 2^64: read, then written back
  // byte for byte.
  NetworkBuilder builder;
  const NodeId first = builder.addTerminal("h-first", 1, 0x8000000000000000ULL);
  const NodeId last = builder.addTerminal("h-last", 2, 0xfffffffffffffff0ULL);
  const NodeId big = builder.addSwitch("big", 254, 0xfffffffffffffffeULL);
  builder.connect(first, 1, big, 1);
  builder.connect(last, 2, big, 254);
  const Network net = builder.build();
  const std::string dump =
      "Unicast lids [0-49151] of switch Lid 1 guid 0xfffffffffffffffe ('big'):\n"
      "0x0001 000 # Switch portguid 0xfffffffffffffffe: 'big'\n"
      "0x0002 001 # Channel Adapter portguid 0x8000000000000001: 'h-first'\n"
      "0xbfff 254 # Channel Adapter portguid 0xfffffffffffffff2: 'h-last'\n"
      "49151 lids dumped\n";
  const RoutingResult r = parseLftDump(dump, "limits.dump", net);
  const Address a = r.addresses.base(last);
  EXPECT_EQ(r.addresses.lid(a), 0xbfffu);
  EXPECT_EQ(r.table().port(0, a), 254);
  EXPECT_EQ(written(net, r), dump);
  const RoutingCheckReport report = checkRouting(net, r);
  EXPECT_TRUE(report.passed()) << (report.failures.empty() ? "" : report.failures.front());
  // One past each limit is refused with the line.
  std::string beyond = dump;
  beyond.replace(beyond.find("0xbfff"), 6, "0xc000");
  EXPECT_THROW(parseLftDump(beyond, "beyond.dump", net), ParseError);
  beyond = dump;
  beyond.replace(beyond.find("0xbfff 254"), 10, "0xbfff 255");
  EXPECT_THROW(parseLftDump(beyond, "beyond.dump", net), ParseError);
}

// OpenSM writes an entry whose LID it cannot name as "unknown node and type": the entry is
// skipped (no address to route) and counted in the routing's statistics, which otherwise do
// not name the count (docs/ROUTING.md).
TEST(LftDump, UnknownNodeEntriesAreSkippedAndCounted) {
  NetworkBuilder builder;
  const NodeId host = builder.addTerminal("h", 1, 0x10);
  const NodeId other = builder.addTerminal("g", 1, 0x20);
  const NodeId sw = builder.addSwitch("s", 4, 0x100);
  builder.connect(host, 1, sw, 1);
  builder.connect(other, 1, sw, 2);
  const Network net = builder.build();
  const std::string header = "Unicast lids [0-7] of switch Lid 1 guid 0x0000000000000100 ('s'):\n";
  const std::string known =
      "0x0001 000 # Switch portguid 0x0000000000000100: 's'\n"
      "0x0002 001 # Channel Adapter portguid 0x0000000000000011: 'h'\n"
      "0x0003 002 # Channel Adapter portguid 0x0000000000000021: 'g'\n";
  const auto statsOf = [&](const std::string& entries) {
    const RoutingResult r = parseLftDump(header + entries + "3 lids dumped\n", "u.dump", net);
    std::string all;
    for (const auto& [key, value] : r.stats) all += key + "=" + value + ";";
    return all;
  };
  EXPECT_EQ(statsOf(known),
            "lft_file=u.dump;switch_blocks=1;entries=3;terminals_without_lid=0;switches_without_block=0;");
  EXPECT_EQ(statsOf(known + "0x0005 003 # unknown node and type\n"),
            "lft_file=u.dump;switch_blocks=1;entries=3;terminals_without_lid=0;switches_without_block=0;"
            "unknown_lid_entries=1;");
  EXPECT_EQ(statsOf("0x0004 004 # unknown node and type\n" + known + "0x0006 003 # unknown node and type\n"),
            "lft_file=u.dump;switch_blocks=1;entries=3;terminals_without_lid=0;switches_without_block=0;"
            "unknown_lid_entries=2;");
  // The skipped LIDs own no address: the routing has the three named ones.
  const RoutingResult r = parseLftDump(header + known + "0x0005 003 # unknown node and type\n", "u.dump", net);
  EXPECT_EQ(r.addresses.count(), 3U);
  EXPECT_EQ(test::statOf(r.stats, "unknown_lid_entries"), "1");
}

TEST(LftDump, OurEnginesRoundTrip) {
  const Network net = makeKaryNtree(4, 3);
  for (const std::string engine : {"ftree-deterministic", "smodk", "ftree-adaptive"}) {
    RoutingContext context;
    context.routeSwitches = true;
    context.addressesPerTerminal = 2;
    const RoutingResult r = runEngine(engine, net, context);
    const std::string text = written(net, r);
    const RoutingResult back = parseLftDump(text, "roundtrip", net);
    ASSERT_EQ(back.addresses.count(), r.addresses.count()) << engine;
    for (Address a = 0; a < r.addresses.count(); ++a) {
      ASSERT_EQ(back.addresses.lid(a), r.addresses.lid(a));
      ASSERT_EQ(back.addresses.owner(a), r.addresses.owner(a));
      for (std::uint32_t s = 0; s < net.switchCount(); ++s) ASSERT_EQ(back.table().port(s, a), r.table().port(s, a));
    }
    EXPECT_EQ(written(net, back), text);
  }
}

TEST(LftDump, TheFileEngineLoadsThroughTheRegistry) {
  const std::string path = test::fixturesDir() + "/k4n3/lfts.ftree.dump.gz";
  const Network net = makeKaryNtree(4, 3);
  const RoutingResult r = runEngine("file:" + path, net);
  EXPECT_EQ(r.engine, "file:path=" + path);
  EXPECT_TRUE(checkRouting(net, r).passed());
  // OpenSM ftree on the 4-ary 3-tree: leaf kt-s0-00 sends kt-h63 (LID from the file) up.
  const NodeId h63 = *net.findNode("kt-h63");
  const PortNumber port = r.table().port(net.switchIndex(*net.findNode("kt-s0-00")), r.addresses.base(h63));
  EXPECT_GE(port, 5);
  EXPECT_LE(port, 8);
}

TEST(LftDump, ErrorsNameFileAndLine) {
  const Network net = makeKaryNtree(4, 2);
  auto message = [&](const std::string& text) {
    try {
      parseLftDump(text, "t.dump", net);
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string header = "Unicast lids [0-24] of switch Lid 2 guid 0x0000000000200000 ('kt-s0-0'):\n";
  EXPECT_EQ(message(header + "0x0001 009 # Channel Adapter portguid 0x0000000000100001: 'kt-h00'\n"),
            "t.dump:2: port 9 is beyond the 8 ports of switch 'kt-s0-0'");
  EXPECT_EQ(message(header + "0x0001 001 # Channel Adapter portguid 0x0000000000900001: 'nobody'\n"),
            "t.dump:2: Channel Adapter 'nobody' (portguid 0x0000000000900001) is not in the network");
  EXPECT_EQ(message("0x0001 001 # Switch portguid 0x0000000000200000: 'kt-s0-0'\n"),
            "t.dump:1: entry before the first \"Unicast lids\" switch header");
  EXPECT_EQ(message(header + header), "t.dump:2: second block for switch 'kt-s0-0'");
  EXPECT_EQ(message(header + "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'kt-h00'\n" +
                    "0x0001 001 # Channel Adapter portguid 0x0000000000100003: 'kt-h01'\n"),
            "t.dump:3: LID 1 belongs to 'kt-h00' and to 'kt-h01'");
  // Numbers beyond their type or range are named, not truncated or accepted silently.
  EXPECT_EQ(message("Unicast lids [0-4294967295] of switch Lid 2 guid 0x0000000000200000 ('kt-s0-0'):\n"),
            "t.dump:1: switch header range [0-4294967295] is not [0-N] with N <= 49151 (the last unicast LID)");
  EXPECT_EQ(message("Unicast lids [3-24] of switch Lid 2 guid 0x0000000000200000 ('kt-s0-0'):\n"),
            "t.dump:1: switch header range [3-24] is not [0-N] with N <= 49151 (the last unicast LID)");
  EXPECT_EQ(message("Unicast lids [0-24] of switch Lid 4294967298 guid 0x0000000000200000 ('kt-s0-0'):\n"),
            "t.dump:1: switch LID 4294967298 is not a unicast LID (1..49151)");
  EXPECT_EQ(message(header + "0x100000001 001 # Channel Adapter portguid 0x0000000000100001: 'kt-h00'\n"),
            "t.dump:2: LID 0x100000001 is not a unicast LID (1..0xbfff)");
  EXPECT_EQ(message(header + "0x0019 001 # Channel Adapter portguid 0x0000000000100001: 'kt-h00'\n"),
            "t.dump:2: LID 25 is beyond the block's range [0-24]");
  EXPECT_EQ(message("hello\n"), "t.dump:1: unrecognized line 'hello'");
  // Each malformed piece of a header or an entry, by itself.
  EXPECT_EQ(message("Unicast lids [0 24] of switch Lid 2 guid 0x0000000000200000 ('kt-s0-0'):\n"),
            "t.dump:1: malformed switch header (expected \"Unicast lids [0-N] of switch Lid L guid 0xG ('name'):\")");
  EXPECT_EQ(message("Unicast lids [0-24] of switch Lid 2 guid 0x0000000000200000 (kt-s0-0):\n"),
            "t.dump:1: malformed switch header: guid or ('name'): missing");
  EXPECT_EQ(message("Unicast lids [0-24] of switch Lid 2 guid 0x0000000000900000 ('nowhere'):\n"),
            "t.dump:1: switch 'nowhere' (guid 0x0000000000900000) is not in the network");
  EXPECT_EQ(message(header + "0x0001 001 # Hub portguid 0x0000000000100001: 'kt-h00'\n"),
            "t.dump:2: unknown node type 'Hub'");
  EXPECT_EQ(message(header + "0x0001 001 # Channel Adapter portguid 0x0000000000100001 'kt-h00'\n"),
            "t.dump:2: malformed entry: portguid or ': 'name'' missing");
  EXPECT_EQ(message(header + "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'kt-h00\n"),
            "t.dump:2: malformed entry: portguid or ': 'name'' missing");
  EXPECT_EQ(message(""), "t.dump:0: no \"Unicast lids\" switch block: not an OpenSM LFT dump");
  EXPECT_THROW(runEngine("file:/nonexistent/lfts.dump", net), IoError);
}
