// OpenSM LFT dumps at the unicast LID limit (0xBFFF = 49151, docs/RELIABILITY.md): a switch
// whose own LID is the last unicast LID loads and is written back byte for byte, one past is
// refused with the message; the export check looks at every address's LID, the first
// address's included.
#include <gtest/gtest.h>

#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "graph/builder.h"
#include "io/lft_dump.h"
#include "routing/checks.h"

using namespace routelab;

namespace {

/// InfiniBand unicast LIDs are 1..0xBFFF (IBA vol. 1 §4.1.3).
constexpr std::uint32_t kMaxUnicastLid = 0xBFFF;

/// Two hosts on one switch (ports 1 and 2); a host's port GUID is its node GUID + 1.
Network twoHosts() {
  NetworkBuilder builder;
  const NodeId a = builder.addTerminal("h-a", 1, 0x0000000000100000ULL);
  const NodeId b = builder.addTerminal("h-b", 1, 0x0000000000100010ULL);
  const NodeId sw = builder.addSwitch("sw", 4, 0x0000000000200000ULL);
  builder.connect(a, 1, sw, 1);
  builder.connect(b, 1, sw, 2);
  return builder.build();
}

/// A dump of twoHosts whose switch has LID `switchLid`; the hosts have LIDs 1 and 2.
std::string dumpWithSwitchLid(std::uint32_t switchLid) {
  return "Unicast lids [0-" + std::to_string(switchLid) + "] of switch Lid " + std::to_string(switchLid) +
         " guid 0x0000000000200000 ('sw'):\n"
         "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'h-a'\n"
         "0x0002 002 # Channel Adapter portguid 0x0000000000100011: 'h-b'\n" +
         fmt::format("0x{:04x} 000 # Switch portguid 0x0000000000200000: 'sw'\n", switchLid) +
         std::to_string(switchLid) + " lids dumped\n";
}

std::string parseMessage(const std::string& text, const Network& net) {
  try {
    parseLftDump(text, "t.dump", net);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no error";
}

/// `routing` with its addresses' LIDs replaced by `lids` (same owners, same order).
RoutingResult withLids(RoutingResult routing, const Network& net, std::vector<std::uint32_t> lids) {
  std::vector<std::pair<NodeId, std::uint32_t>> blocks;
  for (Address a = 0; a < routing.addresses.count(); ++a) {
    const NodeId owner = routing.addresses.owner(a);
    if (blocks.empty() || blocks.back().first != owner)
      blocks.emplace_back(owner, 1);
    else
      ++blocks.back().second;
  }
  routing.addresses = AddressMap::fromBlocks(net, std::move(blocks), std::move(lids));
  return routing;
}

std::string exportMessage(const RoutingResult& routing) {
  try {
    validateLftExport(routing);
  } catch (const RoutingError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(LftLimits, ASwitchAtTheLastUnicastLidLoadsAndIsWrittenBack) {
  const Network net = twoHosts();
  const std::string dump = dumpWithSwitchLid(kMaxUnicastLid);
  const RoutingResult r = parseLftDump(dump, "limit.dump", net);
  const NodeId sw = *net.findNode("sw");
  EXPECT_EQ(r.addresses.lid(r.addresses.base(sw)), kMaxUnicastLid);
  EXPECT_TRUE(checkRouting(net, r).passed());
  std::ostringstream out;
  writeLftDump(net, r, out);
  EXPECT_EQ(out.str(), dump);
  // One past: the header's switch LID is refused with its message (the range too).
  EXPECT_EQ(parseMessage(dumpWithSwitchLid(kMaxUnicastLid + 1), net),
            "t.dump:1: switch header range [0-49152] is not [0-N] with N <= 49151 (the last unicast LID)");
  std::string pastLid = dump;
  pastLid.replace(pastLid.find("switch Lid 49151"), 16, "switch Lid 49152");
  EXPECT_EQ(parseMessage(pastLid, net), "t.dump:1: switch LID 49152 is not a unicast LID (1..49151)");
}

TEST(LftLimits, ExportChecksTheLidOfEveryAddressTheFirstIncluded) {
  const Network net = twoHosts();
  const RoutingResult r = parseLftDump(dumpWithSwitchLid(3), "small.dump", net);
  ASSERT_EQ(r.addresses.count(), 3u);
  EXPECT_EQ(exportMessage(r), "no error");
  // The largest LID on each address in turn: at the limit accepted, one past refused.
  for (Address at = 0; at < r.addresses.count(); ++at) {
    std::vector<std::uint32_t> lids = {1, 2, 3};
    lids[at] = kMaxUnicastLid;
    EXPECT_EQ(exportMessage(withLids(r, net, lids)), "no error") << "address " << at;
    lids[at] = kMaxUnicastLid + 1;
    EXPECT_EQ(exportMessage(withLids(r, net, lids)),
              "3 addresses need LIDs up to 49152; InfiniBand unicast LIDs end at 49151")
        << "address " << at;
    std::ostringstream out;
    EXPECT_THROW(writeLftDump(net, withLids(r, net, lids), out), RoutingError) << "address " << at;
    EXPECT_TRUE(out.str().empty());
  }
}
