// Fault modifiers: +fail-links, +fail-switches, +remove-links, +remove-switches.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "graph/algorithms.h"
#include "test_support.h"
#include "topology/faults.h"

using namespace routelab;

namespace {

using End = std::tuple<std::string, int, std::string, int>;

std::set<End> cableEnds(const Network& network) {
  std::set<End> out;
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    const ChannelId ch = ChannelId::fromIndex(c);
    out.emplace(network.name(network.source(ch)), network.sourcePort(ch), network.name(network.target(ch)),
                network.targetPort(ch));
  }
  return out;
}

std::size_t switchLinks(const Network& network) {
  std::size_t count = 0;
  for (std::size_t link = 0; link < network.linkCount(); ++link) {
    const ChannelId c = ChannelId::fromIndex(2 * link);
    count += network.isSwitch(network.source(c)) && network.isSwitch(network.target(c));
  }
  return count;
}

/// Survivors keep names, kinds, GUIDs, port counts and port numbers; nothing is added.
void expectSubsetOf(const Network& after, const Network& before) {
  for (std::size_t i = 0; i < after.nodeCount(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    const auto old = before.findNode(after.name(node));
    ASSERT_TRUE(old.has_value()) << after.name(node);
    EXPECT_EQ(after.kind(node), before.kind(*old));
    EXPECT_EQ(after.guid(node), before.guid(*old)) << after.name(node);
    EXPECT_EQ(after.portCount(node), before.portCount(*old)) << after.name(node);
  }
  const std::set<End> beforeEnds = cableEnds(before);
  for (const End& end : cableEnds(after)) EXPECT_TRUE(beforeEnds.count(end)) << std::get<0>(end);
}

std::string errorOf(const std::string& spec) {
  return test::thrownMessage<SpecError>([&] { loadFabric(spec); }, "no SpecError");
}

const char* kRandom16 = "random:switches=16";  // = the rnd16_s1 fixture

}  // namespace

TEST(FailLinks, RemovesNRandomSwitchCablesReproducibly) {
  const Network base = loadFabric(kRandom16).network;
  const Fabric fabric = loadFabric(std::string(kRandom16) + "+fail-links=3,seed=5");
  const Network& net = fabric.network;
  EXPECT_EQ(net.linkCount(), base.linkCount() - 3);
  EXPECT_EQ(switchLinks(net), 32u - 3u);
  EXPECT_EQ(net.nodeCount(), base.nodeCount());
  expectSubsetOf(net, base);
  ASSERT_EQ(fabric.modifiers.size(), 1u);
  const ModifierReport& report = fabric.modifiers[0];
  EXPECT_EQ(report.modifier, "fail-links=3,seed=5");
  ASSERT_EQ(report.removed.size(), 3u);
  // Each removed entry is "a[p] -- b[q]" naming a switch-to-switch cable of the base that
  // is gone from the result.
  const std::set<End> after = cableEnds(net);
  for (const std::string& removed : report.removed) {
    const auto dash = removed.find(" -- ");
    ASSERT_NE(dash, std::string::npos) << removed;
    const std::string a = removed.substr(0, dash);
    const std::string b = removed.substr(dash + 4);
    EXPECT_EQ(a.rfind("rnd-sw", 0), 0u) << removed;
    EXPECT_EQ(b.rfind("rnd-sw", 0), 0u) << removed;
    const auto split = [](const std::string& end) {
      const auto open = end.find('[');
      return std::make_pair(end.substr(0, open), std::stoi(end.substr(open + 1)));
    };
    const auto [nameA, portA] = split(a);
    const auto [nameB, portB] = split(b);
    EXPECT_TRUE(cableEnds(base).count({nameA, portA, nameB, portB})) << removed;
    EXPECT_FALSE(after.count({nameA, portA, nameB, portB})) << removed;
  }
  // The effective spec echoes everything and re-parses to the same fabric.
  EXPECT_EQ(fabric.spec, "random:switches=16,terminals=1,radix=16,seed=1+fail-links=3,seed=5");
  EXPECT_EQ(cableEnds(loadFabric(fabric.spec).network), after);
  // Same seed, same cables; other seeds choose other cables.
  EXPECT_EQ(loadFabric(std::string(kRandom16) + "+fail-links=3,seed=5").modifiers[0].removed, report.removed);
  std::set<std::vector<std::string>> distinct;
  for (int seed = 1; seed <= 8; ++seed) {
    distinct.insert(
        loadFabric(std::string(kRandom16) + "+fail-links=3,seed=" + std::to_string(seed)).modifiers[0].removed);
  }
  EXPECT_GE(distinct.size(), 7u);
}

TEST(FailLinks, DefaultsAndLimits) {
  const Fabric fabric = loadFabric(std::string(kRandom16) + "+fail-links=32");
  EXPECT_EQ(fabric.modifiers[0].modifier, "fail-links=32,seed=1");
  EXPECT_EQ(switchLinks(fabric.network), 0u);
  EXPECT_EQ(fabric.modifiers[0].disconnectedTerminals, 15u);  // 16 islands of one terminal
  EXPECT_EQ(componentCount(connectedComponents(fabric.network)), 16u);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+fail-links=33").find("only 32 switch-to-switch cables"),
            std::string::npos);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+fail-links").find("missing count"), std::string::npos);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+fail-links=-2").find(">= 0"), std::string::npos);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+fail-links=x").find("not an integer"), std::string::npos);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+fail-links=1,color=red").find("unknown option 'color'"),
            std::string::npos);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+break-links=1").find("unknown modifier"), std::string::npos);
}

TEST(FailLinks, DropsXgftLabelsOnlyWhenSomethingIsRemoved) {
  EXPECT_NE(loadFabric("kary-ntree:k=2,n=3+fail-links=0").network.xgft(), nullptr);
  const Fabric failed = loadFabric("kary-ntree:k=2,n=3+fail-links=2,seed=3");
  EXPECT_EQ(failed.network.xgft(), nullptr);
  EXPECT_EQ(failed.network.linkCount(), 8u + 16u - 2u);
}

TEST(FailSwitches, RemovesSwitchesWithTheirCablesAndReportsStrandedTerminals) {
  const Network base = loadFabric(kRandom16).network;
  const Fabric fabric = loadFabric(std::string(kRandom16) + "+fail-switches=3,seed=11");
  const Network& net = fabric.network;
  EXPECT_EQ(net.switchCount(), 13u);
  EXPECT_EQ(net.terminalCount(), 16u);  // terminals stay, possibly cable-less
  expectSubsetOf(net, base);
  const ModifierReport& report = fabric.modifiers[0];
  ASSERT_EQ(report.removed.size(), 3u);
  std::size_t removedCables = 0;
  std::set<std::string> stranded;
  for (const std::string& removed : report.removed) {
    const std::string name = removed.substr(0, removed.find(' '));
    const NodeId sw = *base.findNode(name);
    EXPECT_EQ(removed, name + " (switch, " + std::to_string(base.degree(sw)) + " cables)");
    EXPECT_FALSE(net.findNode(name).has_value());
    removedCables += base.degree(sw);
    stranded.insert("rnd-h" + name.substr(6));  // its one terminal
  }
  // Cables of two removed switches between each other are counted twice above.
  std::size_t shared = 0;
  for (const std::string& a : report.removed) {
    for (const std::string& b : report.removed) {
      const NodeId sa = *base.findNode(a.substr(0, a.find(' ')));
      const NodeId sb = *base.findNode(b.substr(0, b.find(' ')));
      if (sa < sb) {
        for (ChannelId c : base.outChannels(sa)) shared += base.target(c) == sb;
      }
    }
  }
  EXPECT_EQ(net.linkCount(), base.linkCount() - removedCables + shared);
  // Stranded terminals are at least the removed switches' own; the report equals the
  // terminals outside the largest terminal component, recomputed here.
  for (const std::string& host : stranded) {
    EXPECT_NE(std::find(report.unreachable.begin(), report.unreachable.end(), host), report.unreachable.end()) << host;
    EXPECT_EQ(net.degree(*net.findNode(host)), 0u);
  }
  EXPECT_EQ(report.unreachable, unreachableTerminals(net));
  EXPECT_EQ(report.disconnectedTerminals, report.unreachable.size());
  EXPECT_EQ(loadFabric(std::string(kRandom16) + "+fail-switches=3,seed=11").modifiers[0].removed, report.removed);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+fail-switches=17").find("only 16"), std::string::npos);
}

TEST(RemoveSwitches, KaryTwoTreeLeafStrandsItsTerminals) {
  //        kt-s1-0   kt-s1-1          2-ary 2-tree; removing leaf kt-s0-0 strands
  //          |   \  /   |             kt-h0 and kt-h1, removes its 4 cables.
  //          |    \/    |
  //          |    /\    |
  //        kt-s0-0   kt-s0-1
  //        /  \       /  \            .
  //     h0    h1    h2    h3
  const Network base = loadFabric("kary-ntree:k=2,n=2").network;
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2+remove-switches=kt-s0-0");
  const ModifierReport& report = fabric.modifiers[0];
  EXPECT_EQ(report.modifier, "remove-switches=kt-s0-0");
  EXPECT_EQ(report.removed, std::vector<std::string>{"kt-s0-0 (switch, 4 cables)"});
  EXPECT_EQ(report.unreachable, (std::vector<std::string>{"kt-h0", "kt-h1"}));
  EXPECT_EQ(report.disconnectedTerminals, 2u);
  EXPECT_EQ(fabric.network.switchCount(), 3u);
  EXPECT_EQ(fabric.network.linkCount(), base.linkCount() - 4);
  expectSubsetOf(fabric.network, base);
  // By GUID (switches get 0x200000 + switch index) and as a '.'-separated list.
  const Fabric byGuid = loadFabric("kary-ntree:k=2,n=2+remove-switches=0x200000.kt-s1-1");
  EXPECT_EQ(byGuid.modifiers[0].removed,
            (std::vector<std::string>{"kt-s0-0 (switch, 4 cables)", "kt-s1-1 (switch, 2 cables)"}));
  // The GUID's prefix in either case.
  EXPECT_EQ(loadFabric("kary-ntree:k=2,n=2+remove-switches=0X200000").modifiers[0].removed,
            (std::vector<std::string>{"kt-s0-0 (switch, 4 cables)"}));
  EXPECT_NE(errorOf("kary-ntree:k=2,n=2+remove-switches=kt-h0").find("is a terminal"), std::string::npos);
  EXPECT_NE(errorOf("kary-ntree:k=2,n=2+remove-switches=kt-s9-9").find("no node named 'kt-s9-9'"), std::string::npos);
  EXPECT_NE(errorOf("kary-ntree:k=2,n=2+remove-switches=kt-s0-0.kt-s0-0").find("listed twice"), std::string::npos);
  EXPECT_NE(errorOf("kary-ntree:k=2,n=2+remove-switches").find("missing switch list"), std::string::npos);
}

TEST(RemoveSwitches, EvenSplitKeepsTheComponentOfTheFirstNode) {
  //            gft-top0                T(2+1, 2): removing the only top switch leaves two
  //           /        \               islands of two terminals; the tie goes to the
  //     gft-leaf0    gft-leaf1         component of the lowest node id (gft-h0-0).
  //      /   \        /   \            .
  //  h0-0  h0-1   h1-0  h1-1
  const ModifierReport report = loadFabric("gft2:n=2,m=1,r=2+remove-switches=gft-top0").modifiers[0];
  EXPECT_EQ(report.unreachable, (std::vector<std::string>{"gft-h1-0", "gft-h1-1"}));
}

TEST(RemoveLinks, GivenCablesByOneOrBothEnds) {
  // From the rnd16_s1 fixture: rnd-sw00[2] -- rnd-sw10[3], rnd-sw00[3] -- rnd-sw03[2].
  const Network base = loadFabric(kRandom16).network;
  const Fabric fabric = loadFabric(std::string(kRandom16) + "+remove-links=rnd-sw00[2].rnd-sw03[2]:rnd-sw00[3]");
  EXPECT_EQ(fabric.modifiers[0].removed,
            (std::vector<std::string>{"rnd-sw00[2] -- rnd-sw10[3]", "rnd-sw03[2] -- rnd-sw00[3]"}));
  EXPECT_EQ(fabric.network.linkCount(), base.linkCount() - 2);
  EXPECT_FALSE(fabric.network.channelAt(*fabric.network.findNode("rnd-sw00"), 2).valid());
  EXPECT_FALSE(fabric.network.channelAt(*fabric.network.findNode("rnd-sw03"), 2).valid());
  EXPECT_TRUE(fabric.network.channelAt(*fabric.network.findNode("rnd-sw00"), 4).valid());
  expectSubsetOf(fabric.network, base);
  EXPECT_EQ(fabric.modifiers[0].disconnectedTerminals, 0u);
  // A terminal cable strands that terminal.
  const ModifierReport host = loadFabric(std::string(kRandom16) + "+remove-links=rnd-h05[1]").modifiers[0];
  EXPECT_EQ(host.removed, std::vector<std::string>{"rnd-h05[1] -- rnd-sw05[1]"});
  EXPECT_EQ(host.unreachable, std::vector<std::string>{"rnd-h05"});
}

TEST(RemoveLinks, MalformedListsAreSpecErrors) {
  const std::string base = std::string(kRandom16) + "+remove-links=";
  EXPECT_NE(errorOf(base + "rnd-sw00[2]:rnd-sw03[2]").find("is cabled to rnd-sw10[3], not to rnd-sw03[2]"),
            std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw99[2]").find("no node named 'rnd-sw99'"), std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw00[16]").find("rnd-sw00[16] is not cabled"), std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw00[17]").find("out of range 1..16"), std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw00[2].rnd-sw10[3]").find("listed twice"), std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw00").find("expected name[port]"), std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw00[2").find("missing ']'"), std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw00[2]x").find("expected '.' or ':'"), std::string::npos);
  EXPECT_NE(errorOf(base + "rnd-sw00[two]").find("not an integer"), std::string::npos);
  EXPECT_NE(errorOf(std::string(kRandom16) + "+remove-links").find("missing cable list"), std::string::npos);
}

TEST(Faults, ModifiersCompose) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=3+fail-links=5,seed=2+fail-switches=2,seed=3");
  ASSERT_EQ(fabric.modifiers.size(), 2u);
  EXPECT_EQ(fabric.modifiers[0].removed.size(), 5u);
  EXPECT_EQ(fabric.modifiers[1].removed.size(), 2u);
  EXPECT_EQ(fabric.network.switchCount(), 48u - 2u);
  EXPECT_EQ(fabric.spec, "kary-ntree:k=4,n=3+fail-links=5,seed=2+fail-switches=2,seed=3");
  EXPECT_EQ(cableEnds(loadFabric(fabric.spec).network), cableEnds(fabric.network));
}

TEST(Faults, EveryModifierEchoesAnEffectiveSpecThatParsesBackToTheSameFabric) {
  // The echo is Options::effectiveModifier() (loadFabric), defaults filled in: `+name=N,seed=S`
  // for the random modifiers, `+name=LIST` for the given ones.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"+fail-links=3", "+fail-links=3,seed=1"},
      {"+fail-links=3,seed=5", "+fail-links=3,seed=5"},
      {"+fail-switches=2,seed=7", "+fail-switches=2,seed=7"},
      {"+remove-links=rnd-sw00[2].rnd-sw03[2]:rnd-sw00[3]", "+remove-links=rnd-sw00[2].rnd-sw03[2]:rnd-sw00[3]"},
      {"+remove-switches=rnd-sw04.rnd-sw09", "+remove-switches=rnd-sw04.rnd-sw09"},
      {"+fail-links=2,seed=3+remove-switches=rnd-sw01", "+fail-links=2,seed=3+remove-switches=rnd-sw01"}};
  const std::string base = "random:switches=16,terminals=1,radix=16,seed=1";
  for (const auto& [modifiers, echoed] : cases) {
    SCOPED_TRACE(modifiers);
    const Fabric fabric = loadFabric(std::string(kRandom16) + modifiers);
    EXPECT_EQ(fabric.spec, base + echoed);
    const Fabric again = loadFabric(fabric.spec);
    EXPECT_EQ(again.spec, fabric.spec);
    EXPECT_EQ(cableEnds(again.network), cableEnds(fabric.network));
    EXPECT_EQ(again.network.switchCount(), fabric.network.switchCount());
    EXPECT_EQ(again.network.terminalCount(), fabric.network.terminalCount());
    ASSERT_EQ(again.modifiers.size(), fabric.modifiers.size());
    for (std::size_t i = 0; i < fabric.modifiers.size(); ++i) {
      EXPECT_EQ(again.modifiers[i].removed, fabric.modifiers[i].removed);
    }
  }
}
