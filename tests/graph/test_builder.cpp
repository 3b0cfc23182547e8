#include <gtest/gtest.h>

#include "core/errors.h"
#include "graph/builder.h"

using namespace routelab;

namespace {
std::string buildError(const std::function<void(NetworkBuilder&)>& fill) {
  NetworkBuilder b;
  try {
    fill(b);
    b.build();
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

//   h0 --[1]sw0[2]== (two parallel cables) ==[1]sw1[3]-- h1
//              [3]-------------------------[2]
TEST(Builder, ChannelsPortsAndParallelCables) {
  NetworkBuilder b;
  const NodeId h0 = b.addTerminal("h0");
  const NodeId h1 = b.addTerminal("h1");
  const NodeId s0 = b.addSwitch("sw0", 4);
  const NodeId s1 = b.addSwitch("sw1", 4);
  b.connect(h0, 1, s0, 1);
  b.connect(s0, 2, s1, 1);
  b.connect(s0, 3, s1, 2);
  b.connect(s1, 3, h1, 1);
  const Network net = b.build();
  EXPECT_EQ(net.nodeCount(), 4u);
  EXPECT_EQ(net.terminalCount(), 2u);
  EXPECT_EQ(net.switchCount(), 2u);
  EXPECT_EQ(net.linkCount(), 4u);
  EXPECT_EQ(net.channelCount(), 8u);
  EXPECT_EQ(net.switchIndex(s1), 1u);
  EXPECT_EQ(net.terminalIndex(h1), 1u);
  const ChannelId c = net.channelAt(s0, 3);
  ASSERT_TRUE(c.valid());
  EXPECT_EQ(net.target(c), s1);
  EXPECT_EQ(net.targetPort(c), 2);
  EXPECT_EQ(net.source(Network::reverse(c)), s1);
  EXPECT_EQ(net.sourcePort(Network::reverse(c)), 2);
  EXPECT_FALSE(net.channelAt(s0, 4).valid());  // unused port
  EXPECT_FALSE(net.channelAt(s0, 0).valid());  // port 0 = the switch itself
  EXPECT_FALSE(net.channelAt(s0, 9).valid());  // out of range
  EXPECT_EQ(net.outChannels(s0).size(), 3u);
  EXPECT_EQ(net.degree(s1), 3u);
  EXPECT_EQ(net.describeChannel(c), "sw0[3] -> sw1[2]");
  EXPECT_EQ(*net.findNode("sw1"), s1);
  EXPECT_FALSE(net.findNode("nope").has_value());
  // ibsim's GUID rule for nodes without GUIDs
  EXPECT_EQ(net.guid(h1), 0x100002u);
  EXPECT_EQ(net.guid(s0), 0x200000u);
  EXPECT_EQ(net.name(net.target(net.injectionChannel(h1))), "sw1");
}

TEST(Builder, RejectsInvalidCabling) {
  EXPECT_NE(buildError([](NetworkBuilder& b) {
              auto s = b.addSwitch("s", 2);
              auto t = b.addTerminal("t");
              b.connect(t, 1, s, 3);
            }).find("port 3 of 's' is out of range 1..2"),
            std::string::npos);
  EXPECT_NE(buildError([](NetworkBuilder& b) {
              auto s = b.addSwitch("s", 2);
              auto t = b.addTerminal("t");
              auto u = b.addTerminal("u");
              b.connect(t, 1, s, 1);
              b.connect(u, 1, s, 1);
            }).find("port s[1] is used by two cables"),
            std::string::npos);
  EXPECT_NE(buildError([](NetworkBuilder& b) {
              b.addSwitch("s", 2);
              b.addSwitch("s", 2);
            }).find("two nodes are named 's'"),
            std::string::npos);
  EXPECT_NE(buildError([](NetworkBuilder& b) {
              auto s = b.addSwitch("s", 2);
              b.connect(s, 1, s, 1);
            }).find("to itself"),
            std::string::npos);
  // A node id one past the last node added (and an invalid one) is unknown, not read.
  EXPECT_EQ(buildError([](NetworkBuilder& b) {
              auto s = b.addSwitch("s", 2);
              b.connect(s, 1, NodeId(1), 1);
            }),
            "unknown node id 1");
  EXPECT_EQ(buildError([](NetworkBuilder& b) {
              auto s = b.addSwitch("s", 2);
              b.connect(NodeId(), 1, s, 1);
            }).find("unknown node id"),
            0U);
  EXPECT_NE(buildError([](NetworkBuilder& b) { b.addSwitch("", 2); }).find("empty name"), std::string::npos);
  EXPECT_NE(buildError([](NetworkBuilder& b) { b.addSwitch("big", 255); }).find("at most 254"), std::string::npos);
}

TEST(Builder, HalfLinksMustBeSymmetric) {
  NetworkBuilder ok;
  auto a = ok.addSwitch("a", 2);
  auto b = ok.addSwitch("b", 2);
  ok.addHalfLink(a, 1, b, 2, "f:1");
  ok.addHalfLink(b, 2, a, 1, "f:5");
  EXPECT_EQ(ok.build().linkCount(), 1u);

  const std::string missing = buildError([](NetworkBuilder& builder) {
    auto x = builder.addSwitch("a", 2);
    auto y = builder.addSwitch("b", 2);
    builder.addHalfLink(x, 1, y, 2, "f.net:3");
  });
  EXPECT_NE(missing.find("f.net:3: asymmetric link: a[1] -> b[2] but b[2] lists no link back"), std::string::npos)
      << missing;
  const std::string wrong = buildError([](NetworkBuilder& builder) {
    auto x = builder.addSwitch("a", 2);
    auto y = builder.addSwitch("b", 2);
    builder.addHalfLink(x, 1, y, 2, "f.net:3");
    builder.addHalfLink(y, 2, x, 2, "f.net:9");
    builder.addHalfLink(x, 2, y, 1, "f.net:4");
  });
  EXPECT_NE(wrong.find("asymmetric link"), std::string::npos) << wrong;
  const std::string twice = buildError([](NetworkBuilder& builder) {
    auto x = builder.addSwitch("a", 2);
    auto y = builder.addSwitch("b", 2);
    builder.addHalfLink(x, 1, y, 2, "f.net:3");
    builder.addHalfLink(x, 1, y, 1, "f.net:4");
  });
  EXPECT_NE(twice.find("f.net:4: port a[1] is listed twice (also at f.net:3)"), std::string::npos) << twice;
}

TEST(Builder, XgftLabelsAreValidated) {
  // Labels claiming an XGFT the cables do not form are rejected at build().
  NetworkBuilder b;
  auto t = b.addTerminal("t");
  auto s = b.addSwitch("s", 2);
  b.connect(t, 1, s, 2);  // XGFT(1; 2; 1) puts child x_1 = 0 on port 1, not 2
  auto labels = std::make_shared<XgftLabels>();
  labels->params = {{2}, {1}};
  labels->level = {0, 1};
  labels->indexInLevel = {0, 0};
  b.setXgftLabels(labels);
  EXPECT_THROW(b.build(), TopologyError);
}
