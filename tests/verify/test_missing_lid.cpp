// Verdicts that cannot pass wrongly (issue 8): the sources and destinations of a
// verification are the terminals of the FABRIC, never the owners of the routing's
// addresses. An OpenSM LFT dump from which one host's LID is missing (OpenSM leaves
// unreachable hosts out) must be reported not connected, with every pair from and to that
// host failed — by the library, by `verify` (exit 5) and by `route`'s checks. And the
// layers reported are the layers the traffic uses, as OpenSM's "VLs needed".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/sl_table.h"
#include "routing/checks.h"
#include "test_support.h"
#include "verify/verify.h"

using namespace routelab;
namespace fs = std::filesystem;

namespace {

/// The k4n2 minhop dump without every line naming `host` (its LID is gone from every switch).
std::string dumpWithout(const std::string& host) {
  const std::string source = test::sourceDir() + "/tests/data/opensm/k4n2/lfts.minhop.dump";
  std::ifstream in(source);
  const fs::path out = test::scratchDir() / ("missing-lid-" + host + ".dump");
  std::ofstream dump(out);
  std::string line;
  std::size_t dropped = 0;
  while (std::getline(in, line)) {
    if (line.find("'" + host + "'") != std::string::npos) {
      ++dropped;
      continue;
    }
    dump << line << '\n';
  }
  EXPECT_EQ(dropped, 8u);  // one entry per switch of the 4-ary 2-tree
  return out.string();
}

}  // namespace

TEST(MissingLid, EveryPairFromAndToTheHostFails) {
  const std::string fabricSpec = "file:" + test::sourceDir() + "/tests/data/opensm/k4n2/ibnetdiscover.txt";
  const Fabric fabric = loadFabric(fabricSpec);
  const std::string dump = dumpWithout("kt-h01");
  const RoutingResult routing = runEngine("file:" + dump, fabric.network);
  ASSERT_FALSE(routing.addresses.hasAddresses(fabric.network.terminalNode(1)));
  const std::size_t hosts = fabric.network.terminalCount();
  ASSERT_EQ(hosts, 16u);

  const VerifyResult v = verifyRouting(fabric.network, routing);
  EXPECT_FALSE(v.connected);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.noAddress, 2 * (hosts - 1));  // 15 pairs to it, 15 from it
  EXPECT_EQ(v.routes, hosts * (hosts - 1));
  EXPECT_EQ(v.delivered, (hosts - 1) * (hosts - 2));
  EXPECT_EQ(v.sources, hosts);
  ASSERT_FALSE(v.failures.empty());
  EXPECT_EQ(v.failures[0].status, "no address");
  // Each reported failure: a pair with the host at one end, whose LID is "no LID" (0), in layer
  // 0 (the pair is walked in no layer), and no walk to say where it stopped.
  const std::string host = fabric.network.name(fabric.network.terminalNode(1));
  for (const VerifyFailure& f : v.failures) {
    SCOPED_TRACE(f.source + " -> " + f.destination);
    EXPECT_EQ(f.status, "no address");
    EXPECT_EQ(f.layer, 0u);
    ASSERT_TRUE(f.source == host || f.destination == host);
    EXPECT_EQ(f.source == host ? f.sourceLid : f.destinationLid, 0u);
    EXPECT_NE(f.source == host ? f.destinationLid : f.sourceLid, 0u);
    EXPECT_EQ(f.where, "");
  }

  const RoutingCheckReport report = checkRouting(fabric.network, routing);
  EXPECT_FALSE(report.passed());
  // The dump gives the 8 switches addresses too: the host cannot send to them either.
  EXPECT_EQ(report.noAddress, 2 * (hosts - 1) + 8);
  EXPECT_EQ(report.terminalPairs - report.terminalPairsDelivered, 2 * (hosts - 1));

  const auto cli = test::runRoutelab("verify '" + fabricSpec + "' --engine 'file:" + dump + "'");
  EXPECT_EQ(cli.exitCode, 5) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("30 pairs without an address"), std::string::npos) << cli.out;
  // The complete dump passes.
  const RoutingResult complete =
      runEngine("file:" + test::sourceDir() + "/tests/data/opensm/k4n2/lfts.minhop.dump", fabric.network);
  EXPECT_TRUE(verifyRouting(fabric.network, complete).passed());
  fs::remove(dump);
}

TEST(LayersUsed, DfssspVlTableCountsTheLayersTheTrafficUses) {
  // rnd16_s1: OpenSM's DFSSSP says "Virtual Lanes needed: 2"; its VL table uses VLs 0 and 7
  // for the terminal pairs, so the routing declares 8 layers (highest + 1).
  const std::string dir = test::sourceDir() + "/tests/data/opensm/rnd16_s1/";
  const Fabric fabric = loadFabric("file:" + dir + "ibnetdiscover.txt");
  RoutingResult routing = runEngine("file:" + dir + "lfts.dfsssp.dump", fabric.network);
  routing = applySlTable(fabric.network, std::move(routing), readSlTable(dir + "dfsssp-vl-table.txt"), false);
  const VerifyResult v = verifyRouting(fabric.network, routing);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.layers, 8u);
  EXPECT_EQ(v.layersUsed, 2u);
  EXPECT_EQ(v.highestLayer, 7);
  std::ifstream log(dir + "osm.dfsssp.log");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_NE(text.str().find("Virtual Lanes needed: 2"), std::string::npos);
  // One layer, used: 1 of 1.
  const RoutingResult minhop = runEngine("file:" + dir + "lfts.minhop.dump", fabric.network);
  const VerifyResult one = verifyRouting(fabric.network, minhop);
  EXPECT_EQ(one.layersUsed, 1u);
  EXPECT_EQ(one.highestLayer, 0);
}
