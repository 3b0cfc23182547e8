// The circuit schedulers: Ding's examples (Fig. 4, Fig. 8), agreement with naive
// reference schedulers that walk the Network's cables, conflict-freedom and path validity
// of every granted set, release semantics, multi-round scheduling and the routing export.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

#include "core/errors.h"
#include "core/random.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "routing/checks.h"
#include "schedule/circuits.h"
#include "schedule/experiment.h"
#include "schedule/registry.h"
#include "test_support.h"
#include "topology/ft.h"
#include "topology/recognize.h"
#include "topology/xgft.h"
#include "traffic/pattern.h"

using namespace routelab;

namespace {

std::uint32_t terminalNamed(const Network& net, const std::string& name) {
  const auto node = net.findNode(name);
  EXPECT_TRUE(node.has_value()) << name;
  return node ? net.terminalIndex(*node) : 0;
}

/// Up channels of `node` (towards a higher XGFT level) in port order: Ding's ports 0..w-1.
std::vector<ChannelId> upChannels(const Network& net, NodeId node) {
  std::vector<ChannelId> out;
  const XgftLabels& labels = *net.xgft();
  for (ChannelId c : net.outChannels(node)) {
    if (labels.level[net.target(c).index()] > labels.level[node.index()]) out.push_back(c);
  }
  return out;
}

struct Reference {
  std::vector<bool> granted;
  std::vector<std::vector<std::uint16_t>> ports;
};

/// Level-wise scheduling (Ding Fig. 7, first free port, failed requests keep their links)
/// done naively on the cables: both sides climb with the same port until they meet.
Reference naiveLevelWise(const Network& net, const std::vector<SourceDestination>& requests, bool levelByLevel) {
  Reference ref;
  std::vector<bool> used(net.channelCount(), false);
  const std::size_t n = requests.size();
  ref.granted.assign(n, true);
  ref.ports.assign(n, {});
  std::vector<NodeId> up(n), down(n);
  for (std::size_t r = 0; r < n; ++r) {
    up[r] = net.terminalNode(requests[r].source);
    down[r] = net.terminalNode(requests[r].destination);
  }
  auto step = [&](std::size_t r) {
    const auto a = upChannels(net, up[r]), b = upChannels(net, down[r]);
    for (std::size_t p = 0; p < a.size(); ++p) {
      if (!used[a[p].index()] && !used[Network::reverse(b[p]).index()]) {
        used[a[p].index()] = used[Network::reverse(b[p]).index()] = true;
        ref.ports[r].push_back(static_cast<std::uint16_t>(p));
        up[r] = net.target(a[p]);
        down[r] = net.target(b[p]);
        return;
      }
    }
    ref.granted[r] = false;
  };
  if (levelByLevel) {
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t r = 0; r < n; ++r) {
        if (ref.granted[r] && up[r] != down[r]) {
          step(r);
          progress = true;
        }
      }
    }
  } else {
    for (std::size_t r = 0; r < n; ++r) {
      while (ref.granted[r] && up[r] != down[r]) step(r);
    }
  }
  return ref;
}

/// Local greedy scheduling, one request at a time, naively: climb through the first free
/// up channel H times, then come down the unique path to the destination.
Reference naiveLocalGreedy(const Network& net, const CircuitFabric& fabric,
                           const std::vector<SourceDestination>& requests) {
  Reference ref;
  std::vector<bool> used(net.channelCount(), false);
  ref.granted.assign(requests.size(), true);
  ref.ports.assign(requests.size(), {});
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const std::uint32_t top = fabric.ancestorLevel(requests[r].source, requests[r].destination);
    NodeId at = net.terminalNode(requests[r].source);
    for (std::uint32_t k = 0; k < top && ref.granted[r]; ++k) {
      const auto a = upChannels(net, at);
      const auto free = std::find_if(a.begin(), a.end(), [&](ChannelId c) { return !used[c.index()]; });
      if (free == a.end()) {
        ref.granted[r] = false;
        break;
      }
      used[free->index()] = true;
      ref.ports[r].push_back(static_cast<std::uint16_t>(free - a.begin()));
      at = net.target(*free);
    }
    if (!ref.granted[r]) continue;
    // The destination's side: climb with the same ports, then use the channels downwards
    // from the top.
    std::vector<ChannelId> downPath;
    NodeId d = net.terminalNode(requests[r].destination);
    for (std::uint32_t k = 0; k < top; ++k) {
      const ChannelId c = upChannels(net, d)[ref.ports[r][k]];
      downPath.push_back(Network::reverse(c));
      d = net.target(c);
    }
    EXPECT_EQ(d, at) << "Theorem 2";
    for (std::uint32_t k = top; k-- > 0;) {
      if (used[downPath[k].index()]) {
        ref.granted[r] = false;
        break;
      }
      used[downPath[k].index()] = true;
    }
  }
  return ref;
}

std::vector<SourceDestination> randomPermutation(std::size_t terminals, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<SourceDestination> requests;
  sampleDingPermutation(rng, terminals, requests);
  return requests;
}

}  // namespace

// The fabric's per-level figures (circuits.h) against a count of the network itself: the
// nodes at each level k = 0..h (k = hops from the nearest terminal, by breadth-first search),
// the top level included, and W_k the product of the up-port counts below k.
TEST(CircuitFabricLevels, NodesAtEveryLevelAndTheWeightsEqualACountOfTheNetwork) {
  for (const std::string spec : {"ft:l=3,m=4,w=4", "kary-ntree:k=2,n=3", "xgft:h=3,m=2.3.2,w=1.2.3"}) {
    const Fabric loaded = loadFabric(spec);
    const Network& net = loaded.network;
    const CircuitFabric fabric(net);
    std::vector<std::uint32_t> level(net.nodeCount(), UINT32_MAX);
    std::vector<NodeId> frontier;
    for (std::uint32_t t = 0; t < net.terminalCount(); ++t) {
      level[net.terminalNode(t).index()] = 0;
      frontier.push_back(net.terminalNode(t));
    }
    std::vector<std::uint64_t> counted(1, net.terminalCount());
    for (std::uint32_t k = 1; !frontier.empty(); ++k) {
      std::vector<NodeId> next;
      for (NodeId node : frontier) {
        for (ChannelId c : net.outChannels(node)) {
          const NodeId to = net.target(c);
          if (level[to.index()] != UINT32_MAX) continue;
          level[to.index()] = k;
          next.push_back(to);
        }
      }
      if (!next.empty()) counted.push_back(next.size());
      frontier = std::move(next);
    }
    ASSERT_EQ(counted.size(), fabric.levels() + 1) << spec;
    std::uint64_t weight = 1;
    for (std::size_t k = 0; k <= fabric.levels(); ++k) {
      EXPECT_EQ(fabric.nodesAt(k), counted[k]) << spec << " level " << k;
      EXPECT_EQ(fabric.weight(k), weight) << spec << " level " << k;
      if (k < fabric.levels()) weight *= fabric.upPorts(k);
    }
  }
}

// The schedulers' shift shortcut (circuit_fabric.h) holds exactly when every level's group is
// the terminal number divided by D_k = m_1 ... m_k, a power of two: recomputed from the group
// table on fabrics with power-of-two arities (it holds), a level of arity 3 and terminals not
// numbered as their XGFT index (it does not).
TEST(CircuitFabricLevels, TheShiftShortcutHoldsExactlyWhereGroupsAreShiftedTerminalNumbers) {
  std::vector<std::pair<std::string, Network>> fabrics;
  for (const std::string spec : {"ft:l=3,m=4,w=4", "kary-ntree:k=2,n=3", "xgft:h=3,m=2.3.2,w=1.2.3"}) {
    fabrics.emplace_back(spec, loadFabric(spec).network);
  }
  const Network tree = loadFabric("kary-ntree:k=2,n=3").network;
  NetworkBuilder builder;  // the same tree, terminals listed in reverse
  std::vector<NodeId> image(tree.nodeCount());
  for (NodeId sw : tree.switches()) image[sw.index()] = builder.addSwitch(tree.name(sw), tree.portCount(sw));
  for (std::size_t i = tree.terminalCount(); i-- > 0;) {
    image[tree.terminalNode(i).index()] = builder.addTerminal(tree.name(tree.terminalNode(i)));
  }
  for (std::size_t c = 0; c < tree.channelCount(); c += 2) {
    const auto channel = ChannelId::fromIndex(c);
    builder.connect(image[tree.source(channel).index()], tree.sourcePort(channel), image[tree.target(channel).index()],
                    tree.targetPort(channel));
  }
  const std::optional<Network> reversed = recognizeFatTree(builder.build());
  ASSERT_TRUE(reversed.has_value());
  fabrics.emplace_back("kary-ntree:k=2,n=3 terminals reversed", *reversed);
  std::vector<bool> holds;
  for (const auto& [name, network] : fabrics) {
    const CircuitFabric fabric(network);
    bool expected = true;
    std::uint64_t divisor = 1;
    for (std::size_t k = 0; k < fabric.levels(); ++k) {
      expected = expected && std::has_single_bit(divisor);
      for (std::uint32_t t = 0; t < fabric.terminals(); ++t) expected = expected && fabric.group(k, t) == t / divisor;
      divisor *= network.xgft()->params.m[k];
    }
    EXPECT_EQ(fabric.shiftGroups(), expected) << name;
    for (std::size_t k = 0; fabric.shiftGroups() && k < fabric.levels(); ++k) {
      for (std::uint32_t t = 0; t < fabric.terminals(); ++t) {
        ASSERT_EQ(fabric.group(k, t), t >> fabric.groupShift(k)) << name << " level " << k << " terminal " << t;
      }
    }
    holds.push_back(expected);
  }
  EXPECT_EQ(holds, (std::vector<bool>{true, true, false, false}));
}

TEST(LevelWise, DingFigure4GlobalInformationResolvesTheDownConflict) {
  // FT(3,4): SW(0,0) and SW(0,1) both request SW(0,8) (nodes 0 -> 32 and 4 -> 33).
  const Network net = makeFatTreeFt(3, 4, 4);
  const CircuitFabric fabric(net);
  const std::vector<SourceDestination> requests{{0, 32}, {4, 33}};
  const CircuitSchedule local = CircuitScheduler(fabric, makeSchedulerConfig("local-greedy")).run(requests, 1);
  EXPECT_EQ(local.granted, 1u);
  EXPECT_EQ(local.status[1], CircuitStatus::DownConflict);
  EXPECT_EQ(local.failedLevel[1], 1u);  // Dlink(0, 8, 0): Ding level 0 is our level 1
  const CircuitSchedule global = CircuitScheduler(fabric, makeSchedulerConfig("level-wise")).run(requests, 1);
  EXPECT_EQ(global.granted, 2u);
  // Ulink(0,1,1) and Dlink(0,8,1): the second request moves to port 1 at Ding level 0.
  EXPECT_EQ(global.portsOf(1)[1], 1u);
}

TEST(LevelWise, DingFigure8Example) {
  // FT(4,4,4), node 3 -> node 95 with Ulink(1, σ_1)[0] busy: P_0 = 0, P_1 = 1, P_2 = 0.
  const Network net = makeFatTreeFt(4, 4, 4);
  const CircuitFabric fabric(net);
  const std::vector<SourceDestination> requests{{terminalNamed(net, "ft-h003"), terminalNamed(net, "ft-h095")}};
  LinkState state(fabric);
  const FtShape shape{4, 4, 4};
  state.setUp(2, shape.tauToXgftIndex(1, 0), 0, true);  // Ding level 1 = our level 2
  CircuitSchedule schedule;
  CircuitScheduler(fabric, makeSchedulerConfig("level-wise")).run(requests, 1, state, schedule);
  ASSERT_EQ(schedule.granted, 1u);
  const auto ports = schedule.portsOf(0);
  EXPECT_EQ(std::vector<std::uint16_t>(ports.begin(), ports.end()), (std::vector<std::uint16_t>{0, 0, 1, 0}));
  std::vector<std::string> hops;
  for (ChannelId c : fabric.circuitPath(requests[0], ports)) hops.push_back(net.name(net.target(c)));
  EXPECT_EQ(hops, (std::vector<std::string>{"ft-sw0-000", "ft-sw1-000", "ft-sw2-001", "ft-sw3-010", "ft-sw2-101",
                                            "ft-sw1-110", "ft-sw0-113", "ft-h095"}));
}

TEST(LevelWise, AgreesWithANaiveSchedulerOnTheCables) {
  for (const std::string spec : {"ft:l=3,m=4,w=4", "ft:l=3,m=4,w=2", "ft:l=3,m=2,w=3", "kary-ntree:k=3,n=3",
                                 "xgft:h=2,m=4.3,w=2.2", "gft2:n=4,m=3,r=5"}) {
    const Fabric loaded = loadFabric(spec);
    const CircuitFabric fabric(loaded.network);
    for (const bool levelByLevel : {true, false}) {
      const SchedulerConfig config = makeSchedulerConfig(levelByLevel ? "level-wise" : "level-wise:order=request");
      for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        auto requests = randomPermutation(fabric.terminals(), seed);
        // Add repeated sources and destinations to exercise the terminal links too.
        const auto extra = randomPermutation(fabric.terminals(), seed + 100);
        requests.insert(requests.end(), extra.begin(), extra.end());
        const CircuitSchedule schedule = CircuitScheduler(fabric, config).run(requests, seed);
        const Reference ref = naiveLevelWise(loaded.network, requests, levelByLevel);
        for (std::size_t r = 0; r < requests.size(); ++r) {
          ASSERT_EQ(schedule.status[r] == CircuitStatus::Granted, ref.granted[r]) << spec << " request " << r;
          if (ref.granted[r]) {
            const auto ports = schedule.portsOf(r);
            ASSERT_EQ(std::vector<std::uint16_t>(ports.begin(), ports.end()), ref.ports[r]) << spec << " request " << r;
          }
        }
      }
    }
  }
}

TEST(LevelWise, FusedKernelAgreesWithTheNaiveSchedulerOnManyRandomInstances) {
  // level-wise with first-fit and no release runs levelWiseFirstFitFused (specialised for
  // heights 2, 3, 4 and generic above): compare it with naiveLevelWise, a plain scheduler
  // on the cables, on random XGFTs of heights 1..5 and random request lists with repeated
  // sources and destinations.
  Rng shapes(2024);
  std::size_t instances = 0;
  for (std::size_t trial = 0; trial < 60; ++trial) {
    const std::size_t h = 1 + shapes.below(5);
    std::string m, w;
    std::uint64_t terminals = 1;
    for (std::size_t k = 0; k < h; ++k) {
      const std::uint64_t mk = 2 + shapes.below(h <= 2 ? 5 : 2);
      const std::uint64_t wk = k == 0 ? 1 + shapes.below(2) : 1 + shapes.below(3);
      terminals *= mk;
      m += (k ? "." : "") + std::to_string(mk);
      w += (k ? "." : "") + std::to_string(wk);
    }
    if (terminals > 256) continue;
    const std::string spec = fmt::format("xgft:h={},m={},w={}", h, m, w);
    const Fabric loaded = loadFabric(spec);
    const CircuitFabric fabric(loaded.network);
    for (const std::string name : {"level-wise", "level-wise:order=request"}) {
      const SchedulerConfig config = makeSchedulerConfig(name);
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        Rng rng(deriveSeed(trial, seed));
        std::vector<SourceDestination> requests;
        const std::size_t count = rng.below(2 * fabric.terminals() + 1);
        for (std::size_t r = 0; r < count; ++r) {
          const auto source = static_cast<std::uint32_t>(rng.below(fabric.terminals()));
          auto destination = static_cast<std::uint32_t>(rng.below(fabric.terminals() - 1));
          if (destination >= source) ++destination;
          requests.push_back({source, destination});
        }
        const CircuitSchedule schedule = CircuitScheduler(fabric, config).run(requests, seed);
        const Reference ref = naiveLevelWise(loaded.network, requests, name == "level-wise");
        ++instances;
        for (std::size_t r = 0; r < requests.size(); ++r) {
          ASSERT_EQ(schedule.status[r] == CircuitStatus::Granted, ref.granted[r]) << spec << " " << name << " " << r;
          if (ref.granted[r]) {
            const auto ports = schedule.portsOf(r);
            ASSERT_EQ(std::vector<std::uint16_t>(ports.begin(), ports.end()), ref.ports[r])
                << spec << " " << name << " request " << r;
          }
        }
      }
    }
  }
  EXPECT_GE(instances, 200u);
}

TEST(LocalGreedy, AgreesWithANaiveSchedulerOnTheCables) {
  for (const std::string spec : {"ft:l=3,m=4,w=4", "ft:l=3,m=4,w=2", "xgft:h=2,m=4.3,w=2.2"}) {
    const Fabric loaded = loadFabric(spec);
    const CircuitFabric fabric(loaded.network);
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const auto requests = randomPermutation(fabric.terminals(), seed);
      const CircuitSchedule schedule =
          CircuitScheduler(fabric, makeSchedulerConfig("local-greedy:order=request")).run(requests, seed);
      const Reference ref = naiveLocalGreedy(loaded.network, fabric, requests);
      for (std::size_t r = 0; r < requests.size(); ++r) {
        ASSERT_EQ(schedule.status[r] == CircuitStatus::Granted, ref.granted[r]) << spec << " request " << r;
      }
    }
  }
}

TEST(Schedulers, EveryGrantedSetIsConflictFreeAndEveryCircuitAValidPath) {
  const std::vector<std::string> schedulers{"level-wise", "level-wise:policy=random", "local-greedy", "local-random"};
  for (const std::string spec : {"ft:l=2,m=4,w=4", "ft:l=3,m=4,w=4", "ft:l=3,m=4,w=2", "ft:l=3,m=2,w=4",
                                 "ft:l=4,m=3,w=2", "kary-ntree:k=4,n=3", "gft2:n=4,m=3,r=5", "xgft:h=2,m=4.3,w=2.2"}) {
    const Fabric loaded = loadFabric(spec);
    const CircuitFabric fabric(loaded.network);
    std::vector<std::vector<SourceDestination>> patterns;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) patterns.push_back(randomPermutation(fabric.terminals(), seed));
    patterns.push_back(shiftPairs(fabric.terminals(), 5));
    patterns.push_back(allToAllPairs(fabric.terminals()));
    for (const std::string& base : schedulers) {
      for (const std::string options : {"", "order=request", "release-on-fail", "order=request,release-on-fail"}) {
        const std::string name =
            options.empty() ? base : base + (base.find(':') == std::string::npos ? ":" : ",") + options;
        const SchedulerConfig config = makeSchedulerConfig(name);
        for (const auto& requests : patterns) {
          LinkState state(fabric);
          CircuitSchedule schedule;
          CircuitScheduler(fabric, config).run(requests, 42, state, schedule);
          const CircuitCheck check = checkCircuits(fabric, requests, schedule);
          ASSERT_TRUE(check.ok) << spec << " " << name << ": " << check.problem;
          ASSERT_EQ(check.circuits, schedule.granted);
          std::size_t linksOfGranted = 0;
          for (std::size_t r = 0; r < requests.size(); ++r) {
            if (schedule.status[r] == CircuitStatus::Granted) linksOfGranted += schedule.ancestor[r];
            // Level-wise never meets a conflict on the way down (Theorem 2); local never
            // computes a common port.
            if (config.kind == SchedulerKind::LevelWise) {
              ASSERT_TRUE(schedule.status[r] == CircuitStatus::Granted ||
                          schedule.status[r] == CircuitStatus::NoCommonPort);
            } else {
              ASSERT_NE(schedule.status[r], CircuitStatus::NoCommonPort);
            }
          }
          ASSERT_EQ(check.channelsUsed, 2 * linksOfGranted);
          if (config.releaseOnFail) {
            // Exactly the granted circuits' links remain busy.
            ASSERT_EQ(state.busyUpLinks(), linksOfGranted) << spec << " " << name;
            ASSERT_EQ(state.busyDownLinks(), linksOfGranted) << spec << " " << name;
          } else {
            ASSERT_GE(state.busyUpLinks(), linksOfGranted);
          }
        }
      }
    }
  }
}

// A level with more than 64 links spans several 64-bit words of the link state: a policy's
// pick is a port that is idle, wherever its word. XGFT(2; 2, 2; 1, 70): the two leaf switches
// have 70 up links each; terminal 0's leaf (level-1 node 0) has ports 0..64 taken before, so
// every circuit 0 -> 2 leaves on one of ports 65..69, the first policy on 65, the random ones
// on each of them for some seed.
TEST(Schedulers, APickOverSeveralWordsIsAnIdlePort) {
  const Fabric loaded = loadFabric("xgft:h=2,m=2.2,w=1.70");
  const CircuitFabric fabric(loaded.network);
  ASSERT_EQ(fabric.upPorts(1), 70U);
  const std::vector<SourceDestination> requests{{0, 2}};
  for (const std::string name : {"level-wise", "level-wise:policy=random", "local-greedy", "local-random"}) {
    std::set<std::uint16_t> chosen;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      LinkState state(fabric);
      ASSERT_EQ(state.words(1), 2U);
      for (std::uint32_t port = 0; port <= 64; ++port) state.setUp(1, 0, port, true);
      CircuitSchedule schedule;
      CircuitScheduler(fabric, makeSchedulerConfig(name)).run(requests, seed, state, schedule);
      ASSERT_EQ(schedule.granted, 1U) << name << " seed " << seed;
      const std::uint16_t port = schedule.portsOf(0)[1];
      ASSERT_GE(port, 65U) << name << " seed " << seed;
      ASSERT_LE(port, 69U) << name << " seed " << seed;
      chosen.insert(port);
    }
    const std::set<std::uint16_t> expected = name.find("random") != std::string::npos
                                                 ? std::set<std::uint16_t>{65, 66, 67, 68, 69}
                                                 : std::set<std::uint16_t>{65};
    EXPECT_EQ(chosen, expected) << name;
  }
}

// The checker itself finds what it promises (schedule/circuits.h): a schedule of another
// request list, and two granted circuits on one channel, named with the circuit that had it.
TEST(Schedulers, TheCircuitCheckFindsASharedChannelAndAForeignSchedule) {
  const Fabric loaded = loadFabric("kary-ntree:k=2,n=2");
  const CircuitFabric fabric(loaded.network);
  const std::vector<SourceDestination> requests = {{0, 2}, {1, 3}};  // both leave kt-s0-0 upwards
  LinkState state(fabric);
  CircuitSchedule schedule;
  CircuitScheduler(fabric, makeSchedulerConfig("level-wise")).run(requests, 1, state, schedule);
  ASSERT_EQ(schedule.granted, 2U);
  const CircuitCheck valid = checkCircuits(fabric, requests, schedule);
  EXPECT_TRUE(valid.ok) << valid.problem;
  EXPECT_EQ(valid.circuits, 2U);
  EXPECT_EQ(valid.channelsUsed, 8U);  // 4 channels each: up to the root level and down

  CircuitSchedule shared = schedule;
  for (std::size_t k = 0; k < shared.levels; ++k) shared.ports[shared.levels + k] = shared.ports[k];
  const CircuitCheck conflict = checkCircuits(fabric, requests, shared);
  EXPECT_FALSE(conflict.ok);
  EXPECT_EQ(conflict.problem.substr(0, 30), "circuit 1 (kt-h1 -> kt-h3): ch") << conflict.problem;
  EXPECT_NE(conflict.problem.find("is already used by circuit 0"), std::string::npos) << conflict.problem;

  const std::vector<SourceDestination> more = {{0, 2}, {1, 3}, {2, 0}};
  const CircuitCheck foreign = checkCircuits(fabric, more, schedule);
  EXPECT_FALSE(foreign.ok);
  EXPECT_EQ(foreign.problem, "schedule has 2 requests, the request list 3");
}

TEST(Schedulers, WithoutReleaseLevelOrderAndRequestOrderDecideAlike) {
  // Level k's links are touched only at level k, in request order in both orders; so
  // without release (and without random draws) the two orders grant the same circuits on
  // the same ports. The generic (order=request) and fast (default) code paths are compared.
  for (const std::string spec : {"ft:l=3,m=4,w=4", "ft:l=4,m=3,w=2", "xgft:h=2,m=4.3,w=2.2"}) {
    const Fabric loaded = loadFabric(spec);
    const CircuitFabric fabric(loaded.network);
    for (const std::string name : {"level-wise", "local-greedy"}) {
      for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        auto requests = randomPermutation(fabric.terminals(), seed);
        const auto extra = shiftPairs(fabric.terminals(), static_cast<std::int64_t>(seed));
        requests.insert(requests.end(), extra.begin(), extra.end());
        const CircuitSchedule level = CircuitScheduler(fabric, makeSchedulerConfig(name)).run(requests, seed);
        const CircuitSchedule request =
            CircuitScheduler(fabric, makeSchedulerConfig(name + ":order=request")).run(requests, seed);
        ASSERT_EQ(level.status, request.status) << spec << " " << name;
        ASSERT_EQ(level.ancestor, request.ancestor) << spec << " " << name;
        for (std::size_t r = 0; r < requests.size(); ++r) {
          // Every request's common ancestor level, refused ones included (scheduler.h).
          ASSERT_EQ(level.ancestor[r], fabric.ancestorLevel(requests[r].source, requests[r].destination))
              << spec << " " << name << " " << r << " " << int(level.status[r]);
          if (level.status[r] != CircuitStatus::Granted) continue;
          const auto a = level.portsOf(r), b = request.portsOf(r);
          ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << spec << " " << name << " " << r;
        }
        // With release the level order still decides alike (lower levels are finished
        // when a request fails), so level order + release = level order + keep.
        const CircuitSchedule released =
            CircuitScheduler(fabric, makeSchedulerConfig(name + ":release-on-fail")).run(requests, seed);
        ASSERT_EQ(level.status, released.status) << spec << " " << name;
      }
    }
  }
}

TEST(Schedulers, GlobalInformationBeatsLocalOnPermutations) {
  // Ding §5 in miniature: FT(3,4) (64 nodes), 50 random permutations.
  const Network net = makeFatTreeFt(3, 4, 4);
  const CircuitFabric fabric(net);
  const DemandSampler sampler = [&](Rng& rng, std::vector<SourceDestination>& out) {
    sampleDingPermutation(rng, fabric.terminals(), out);
  };
  const auto levelWise = measureSchedulability(fabric, makeSchedulerConfig("level-wise"), 50, 9, sampler);
  const auto greedy = measureSchedulability(fabric, makeSchedulerConfig("local-greedy"), 50, 9, sampler);
  const auto random = measureSchedulability(fabric, makeSchedulerConfig("local-random"), 50, 9, sampler);
  EXPECT_GT(levelWise.ratioMean, greedy.ratioMean + 0.05);
  EXPECT_GT(levelWise.ratioMean, random.ratioMean + 0.05);
  EXPECT_EQ(levelWise.downConflict + levelWise.noUpPort, 0u);
  // Full fat-tree (m = w): a local scheduler always finds a free up port, every failure is
  // a down conflict.
  EXPECT_EQ(greedy.noUpPort, 0u);
  EXPECT_GT(greedy.downConflict, 0u);
  EXPECT_EQ(levelWise.samples, 50u);
  EXPECT_LE(levelWise.ratioMin, levelWise.ratioMean);
  EXPECT_GE(levelWise.ratioMax, levelWise.ratioMean);
}

TEST(Schedulers, ResultsDoNotDependOnTheThreadCount) {
  const Network net = makeFatTreeFt(3, 4, 4);
  const CircuitFabric fabric(net);
  const DemandSampler sampler = [&](Rng& rng, std::vector<SourceDestination>& out) {
    sampleDingPermutation(rng, fabric.terminals(), out);
  };
#ifdef ROUTELAB_HAVE_OPENMP
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
  const auto one = measureSchedulability(fabric, makeSchedulerConfig("local-random"), 16, 5, sampler);
#ifdef ROUTELAB_HAVE_OPENMP
  omp_set_num_threads(3);
#endif
  const auto three = measureSchedulability(fabric, makeSchedulerConfig("local-random"), 16, 5, sampler);
#ifdef ROUTELAB_HAVE_OPENMP
  omp_set_num_threads(before);
#endif
  EXPECT_EQ(one.ratios, three.ratios);
  const auto other = measureSchedulability(fabric, makeSchedulerConfig("local-random"), 16, 6, sampler);
  EXPECT_NE(one.ratios, other.ratios);
}

TEST(MultiRound, EveryRequestGrantedInConflictFreeRoundsAboveTheLoadBound) {
  const Network net = makeFatTreeFt(2, 4, 4);
  const CircuitFabric fabric(net);
  for (const std::string name : {"level-wise", "local-greedy", "local-random"}) {
    const auto config = makeSchedulerConfig(name);
    for (const auto& requests : {allToAllPairs(16), shiftPairs(16, 3), randomPermutation(16, 4)}) {
      const RoundsResult rounds = scheduleInRounds(fabric, config, requests, 11);
      ASSERT_EQ(rounds.roundOf.size(), requests.size());
      EXPECT_GE(rounds.rounds, rounds.bound.lowerBound());
      std::size_t total = 0;
      for (std::size_t g : rounds.grantedPerRound) total += g;
      EXPECT_EQ(total, requests.size());
      // Each round is itself conflict-free: reschedule its circuits alone with the ports
      // the rounds chose and check them on the cables.
      for (std::size_t round = 0; round < rounds.rounds; ++round) {
        std::vector<SourceDestination> members;
        for (std::size_t r = 0; r < requests.size(); ++r) {
          if (rounds.roundOf[r] == round) members.push_back(requests[r]);
        }
        CircuitSchedule replay;
        replay.levels = fabric.levels();
        for (std::size_t r = 0; r < requests.size(); ++r) {
          if (rounds.roundOf[r] != round) continue;
          replay.status.push_back(CircuitStatus::Granted);
          replay.ancestor.push_back(rounds.circuits.ancestor[r]);
          replay.failedLevel.push_back(0);
          const auto ports = rounds.circuits.portsOf(r);
          replay.ports.insert(replay.ports.end(), ports.begin(), ports.end());
          replay.ports.resize(replay.status.size() * replay.levels, 0);
        }
        replay.granted = members.size();
        const CircuitCheck check = checkCircuits(fabric, members, replay);
        ASSERT_TRUE(check.ok) << name << " round " << round << ": " << check.problem;
      }
    }
  }
  // All-to-all: every terminal link carries N-1 circuits, so at least 15 rounds.
  EXPECT_EQ(staticLoadBound(fabric, allToAllPairs(16)).terminalLinks, 15u);
  EXPECT_EQ(staticLoadBound(fabric, shiftPairs(16, 3)).lowerBound(), 1u);
  // A slimmed tree FT(2, 4, 2): 4 nodes per leaf share 2 up links -> shift by 4 needs 2.
  const Network slim = makeFatTreeFt(2, 4, 2);
  const CircuitFabric slimFabric(slim);
  const LoadBound bound = staticLoadBound(slimFabric, shiftPairs(16, 4));
  EXPECT_EQ(bound.switchCuts, 2u);
  EXPECT_EQ(bound.level, 1u);
  EXPECT_GE(scheduleInRounds(slimFabric, makeSchedulerConfig("level-wise"), shiftPairs(16, 4), 1).rounds, 2u);
}

// The static bound recomputed from its definition (experiment.h): a request crosses the
// level-k cut when its source and destination lie in different level-k subtrees; the bound at
// level k is the most circuits leaving or entering one subtree over the W_(k+1) links it has,
// rounded up; the level is the lowest reaching the largest. Random request lists (sources and
// destinations repeated), each also reversed: the bound cannot depend on the requests' order.
TEST(StaticLoadBound, IsTheLargestCutCountedFromItsDefinition) {
  for (const auto& [l, m, w] : {std::array<std::uint32_t, 3>{2, 4, 2}, {3, 4, 4}, {3, 4, 2}}) {
    const Network net = makeFatTreeFt(l, m, w);
    const CircuitFabric fabric(net);
    const std::uint32_t n = static_cast<std::uint32_t>(net.terminalCount());
    std::mt19937_64 rng(l * 100 + m * 10 + w);
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<SourceDestination> requests;
      const std::size_t count = 1 + rng() % (2 * n);
      while (requests.size() < count) {
        const auto s = static_cast<std::uint32_t>(rng() % n), d = static_cast<std::uint32_t>(rng() % n);
        if (s != d) requests.push_back({s, d});
      }
      std::vector<std::size_t> needed(fabric.levels(), 0);
      for (std::size_t k = 0; k < fabric.levels(); ++k) {
        std::map<std::uint32_t, std::size_t> out, in;
        for (const auto& [s, d] : requests) {
          if (fabric.group(k, s) == fabric.group(k, d)) continue;
          ++out[fabric.group(k, s)];
          ++in[fabric.group(k, d)];
        }
        std::size_t most = 0;
        for (const auto& [group, circuits] : out) most = std::max(most, circuits);
        for (const auto& [group, circuits] : in) most = std::max(most, circuits);
        needed[k] = (most + fabric.weight(k + 1) - 1) / fabric.weight(k + 1);
      }
      const std::size_t largest = *std::max_element(needed.begin(), needed.end());
      const auto level = static_cast<std::size_t>(std::find(needed.begin(), needed.end(), largest) - needed.begin());
      for (const bool reversed : {false, true}) {
        if (reversed) std::reverse(requests.begin(), requests.end());
        const LoadBound bound = staticLoadBound(fabric, requests);
        const std::string what = fmt::format("FT({}, {}, {}) trial {} reversed {}", l, m, w, trial, reversed);
        EXPECT_EQ(bound.terminalLinks, needed[0]) << what;
        EXPECT_EQ(bound.switchCuts, *std::max_element(needed.begin() + 1, needed.end())) << what;
        EXPECT_EQ(bound.lowerBound(), largest) << what;
        EXPECT_EQ(bound.level, level) << what;
      }
    }
  }
  // One request is one circuit on its source's terminal link.
  const Network slim = makeFatTreeFt(2, 4, 2);  // a CircuitFabric refers to its network
  const CircuitFabric fabric(slim);
  const std::vector<SourceDestination> one{{0, 15}};
  EXPECT_EQ(staticLoadBound(fabric, one).terminalLinks, 1U);
  EXPECT_EQ(staticLoadBound(fabric, one).lowerBound(), 1U);
  // A cut no request crosses needs no round: requests within one leaf load its terminal links
  // and no switch cut, and no requests at all load nothing.
  const std::vector<SourceDestination> withinLeaf{{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  const LoadBound local = staticLoadBound(fabric, withinLeaf);
  EXPECT_EQ(local.terminalLinks, 1U);
  EXPECT_EQ(local.switchCuts, 0U);
  EXPECT_EQ(local.level, 0U);
  const LoadBound none = staticLoadBound(fabric, std::vector<SourceDestination>{});
  EXPECT_EQ(none.terminalLinks, 0U);
  EXPECT_EQ(none.switchCuts, 0U);
  EXPECT_EQ(none.lowerBound(), 0U);
}

TEST(Export, GrantedPermutationAsARoutingResultWalksTheCircuits) {
  const Network net = makeFatTreeFt(3, 4, 4);
  const CircuitFabric fabric(net);
  const auto requests = randomPermutation(64, 3);
  const CircuitSchedule schedule = CircuitScheduler(fabric, makeSchedulerConfig("local-random")).run(requests, 3);
  ASSERT_LT(schedule.granted, requests.size());
  const RoutingResult routing = circuitsToRouting(fabric, requests, schedule, "local-random");
  EXPECT_EQ(routing.engine, "schedule:local-random");
  // It claims one path per pair, each a shortest one (route and verify report the claims),
  // and the routing checks confirm both on its tables.
  EXPECT_TRUE(routing.deterministic);
  EXPECT_TRUE(routing.minimal);
  const RoutingCheckReport checked = checkRouting(net, routing);
  EXPECT_TRUE(checked.deterministicOk);
  EXPECT_TRUE(checked.minimalOk);
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const NodeId source = net.terminalNode(requests[r].source);
    const Address address = routing.addressFor(source, net.terminalNode(requests[r].destination));
    const Path path = routing.path(net, source, address);
    if (schedule.status[r] == CircuitStatus::Granted) {
      ASSERT_EQ(path.status, PathStatus::Delivered);
      EXPECT_EQ(path.channels, fabric.circuitPath(requests[r], schedule.portsOf(r)));
    } else {
      EXPECT_NE(path.status, PathStatus::Delivered);
    }
  }
  // A scheduler grants at most one circuit per destination (they would share its delivery
  // link), so a scheduled set always fits a destination table.
  const std::vector<SourceDestination> twoToOne{{0, 32}, {4, 32}};
  const CircuitSchedule both = CircuitScheduler(fabric, makeSchedulerConfig("level-wise")).run(twoToOne, 1);
  ASSERT_EQ(both.granted, 1u);
  EXPECT_NO_THROW(circuitsToRouting(fabric, twoToOne, both, "level-wise"));
}

TEST(Export, CircuitsToOneDestinationOnDifferentPathsCannotShareADestinationTable) {
  // Circuits granted in different rounds (scheduleInRounds) may reach one destination on
  // different paths. Terminals 0 and 1 hang off the same leaf switch of FT(3,4): circuits
  // 0 -> 32 and 1 -> 32 that leave that leaf through different up ports need two entries
  // for destination 32 at one switch, which a destination-based table cannot hold.
  const Network net = makeFatTreeFt(3, 4, 4);
  const CircuitFabric fabric(net);
  const std::vector<SourceDestination> requests{{0, 32}, {1, 32}};
  ASSERT_EQ(fabric.ancestorLevel(0, 32), 3u);
  auto schedule = [&](std::uint16_t secondUpPort) {
    CircuitSchedule granted;
    granted.levels = fabric.levels();
    granted.status.assign(2, CircuitStatus::Granted);
    granted.ancestor.assign(2, 3);
    granted.failedLevel.assign(2, 0);
    granted.ports = {0, 0, 0, 0, secondUpPort, 0};  // level 0 (the terminal link), 1, 2
    granted.granted = 2;
    return granted;
  };
  // The same path twice: one entry per switch, both circuits walk it.
  const RoutingResult shared = circuitsToRouting(fabric, requests, schedule(0), "rounds");
  for (const auto& request : requests) {
    const NodeId source = net.terminalNode(request.source);
    const Path path = shared.path(net, source, shared.addressFor(source, net.terminalNode(request.destination)));
    EXPECT_EQ(path.status, PathStatus::Delivered);
  }
  // Different up ports at the shared leaf: refused, naming the destination and the switch.
  const NodeId leaf = net.target(fabric.circuitPath(requests[0], schedule(0).portsOf(0)).front());
  try {
    circuitsToRouting(fabric, requests, schedule(1), "rounds");
    FAIL() << "two circuits to one destination leaving one switch on different ports were exported";
  } catch (const AnalysisError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("circuits to " + net.name(net.terminalNode(32)) + " leave " + net.name(leaf)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("destination-based table cannot hold both"), std::string::npos) << message;
  }
}

TEST(Schedulers, ClearErrors) {
  const Fabric random = loadFabric("random:switches=8,links=12,terminals=1,seed=1");
  EXPECT_THROW(CircuitFabric{random.network}, UnsupportedTopology);
  const Network net = makeFatTreeFt(2, 2, 2);
  const CircuitFabric fabric(net);
  const CircuitScheduler scheduler(fabric, makeSchedulerConfig("level-wise"));
  ASSERT_EQ(fabric.terminals(), 4U);
  // Terminal indices at the limit (the fabric's count) and one below; the request is named.
  const auto refusal = [&](std::vector<SourceDestination> requests) {
    return test::thrownMessage<AnalysisError>([&] { scheduler.run(requests, 1); }, "scheduled");
  };
  EXPECT_EQ(refusal({{0, 3}, {4, 0}}),
            "circuit request 1 (4 -> 0): terminal index out of range (the fabric has 4 terminals)");
  EXPECT_EQ(refusal({{0, 4}}), "circuit request 0 (0 -> 4): terminal index out of range (the fabric has 4 terminals)");
  EXPECT_EQ(refusal({{3, 0}, {0, 3}}), "scheduled");
  EXPECT_EQ(refusal({{0, 1}, {1, 1}}), "circuit request 1: terminal 1 to itself is not a circuit");
  EXPECT_THROW(makeSchedulerConfig("level-wise:policy=best"), SpecError);
  EXPECT_THROW(makeSchedulerConfig("level-wise:order=random"), SpecError);
  EXPECT_THROW(makeSchedulerConfig("local-greedy:policy=first"), SpecError);
  EXPECT_THROW(makeSchedulerConfig("global"), SpecError);
  EXPECT_EQ(makeSchedulerConfig("level-wise").effective, "level-wise:policy=first,order=level,release-on-fail=false");
}

TEST(Demands, DemandSourceDrawsEachSpecAsTheTrafficModuleDefinesIt) {
  const Network net = makeFatTreeFt(3, 4, 4);
  // "permutation": Ding §5's random permutation, redrawn from each sample's Rng.
  const DemandSource ding(kDingPermutation, net, 1);
  EXPECT_EQ(ding.effectiveSpec(), "permutation");
  EXPECT_TRUE(ding.random());
  std::vector<SourceDestination> drawn, expected;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    Rng a(seed), b(seed);
    ding.draw(a, drawn);
    sampleDingPermutation(b, 64, expected);
    EXPECT_EQ(drawn, expected);
    EXPECT_TRUE(isPermutation(drawn, 64));
  }
  // A fixed pattern: every sample is the same, whatever the Rng.
  const DemandSource shift("shift:s=3", net, 1);
  EXPECT_FALSE(shift.random());
  EXPECT_EQ(shift.effectiveSpec(), "shift:s=3");
  Rng any(99);
  shift.draw(any, drawn);
  EXPECT_EQ(drawn, shiftPairs(64, 3));
  EXPECT_EQ(drawn, makePattern("shift:s=3", net, 5).pairs);
  // A random registry pattern: makePattern with the next draw of the sample's Rng as seed.
  const DemandSource random("random-permutation", net, 1);
  EXPECT_TRUE(random.random());
  Rng c(7), d(7);
  random.draw(c, drawn);
  EXPECT_EQ(drawn, makePattern("random-permutation", net, d()).pairs);
  EXPECT_THROW(DemandSource("shift:s=64", net, 1), SpecError);
  EXPECT_THROW(DemandSource("no-such-pattern", net, 1), SpecError);
}

TEST(Demands, ShiftAndAllToAllPairsAreTheRegistryPatterns) {
  const Network net = makeFatTreeFt(2, 4, 4);
  EXPECT_EQ(shiftPairs(16, 5), makePattern("shift:s=5", net, 1).pairs);
  EXPECT_EQ(shiftPairs(16, -11), makePattern("shift:s=5", net, 1).pairs);
  EXPECT_TRUE(shiftPairs(16, 32).empty());
  EXPECT_EQ(allToAllPairs(16), makePattern("all-to-all", net, 1).pairs);
  EXPECT_EQ(allToAllPairs(16).size(), 16u * 15u);
}

TEST(Experiment, AFailingSampleIsThrownAgainWithItsMessage) {
  const Network net = makeFatTreeFt(2, 4, 4);
  const CircuitFabric fabric(net);
  const SchedulerConfig config = makeSchedulerConfig("local-random");
  const DemandSource demands(kDingPermutation, net, 3);
  // Only sample 5 of 12 fails: its stream's first value is that of Rng(deriveSeed(3, 5)).
  const std::uint64_t fifth = Rng(deriveSeed(3, 5))();
  const DemandSampler sampler = [&](Rng& rng, std::vector<SourceDestination>& out) {
    Rng copy = rng;
    if (copy() == fifth) throw IoError("demand file 'd.csv' line 6 is unreadable");
    demands.draw(rng, out);
  };
  for (int threads : {1, 3}) {
#ifdef ROUTELAB_HAVE_OPENMP
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
#endif
    try {
      (void)measureSchedulability(fabric, config, 12, 3, sampler);
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const AnalysisError& e) {
      EXPECT_STREQ(e.what(), "demand file 'd.csv' line 6 is unreadable") << threads << " threads";
    }
#ifdef ROUTELAB_HAVE_OPENMP
    omp_set_num_threads(before);
#endif
  }
  // The samples before and after it schedule as without the failure.
  EXPECT_NO_THROW((void)measureSchedulability(fabric, config, 5, 3, sampler));
}

TEST(Experiment, OneSeedSchemeForTheStatisticsTheCheckedSampleAndTheRounds) {
  const Network net = makeFatTreeFt(2, 4, 4);
  const CircuitFabric fabric(net);
  const SchedulerConfig config = makeSchedulerConfig("local-random");
  const DemandSource demands(kDingPermutation, net, 3);
  const DemandSampler sampler = [&](Rng& rng, std::vector<SourceDestination>& out) { demands.draw(rng, out); };
  const ScheduleExperiment experiment = runScheduleExperiment(fabric, config, sampler, 6, 3, true);
  const SchedulabilityStats stats = measureSchedulability(fabric, config, 6, 3, sampler);
  EXPECT_EQ(experiment.stats.ratios, stats.ratios);
  // Sample s is Rng(deriveSeed(seed, s)): its demands, then its scheduler seed.
  std::vector<SourceDestination> sample;
  Rng rng(deriveSeed(3, 0));
  sampleDingPermutation(rng, 16, sample);
  EXPECT_EQ(experiment.firstDemands, sample);
  EXPECT_EQ(experiment.firstSchedulerSeed, rng());
  const CircuitSchedule again = CircuitScheduler(fabric, config).run(sample, experiment.firstSchedulerSeed);
  EXPECT_EQ(experiment.first.status, again.status);
  EXPECT_EQ(experiment.first.ports, again.ports);
  EXPECT_DOUBLE_EQ(experiment.first.ratio(), stats.ratios[0]);
  EXPECT_TRUE(experiment.firstCheck.ok);
  EXPECT_EQ(experiment.firstCheck.circuits, experiment.first.granted);
  // Rounds: one per sample, each from the same draw; the summary is over them.
  ASSERT_EQ(experiment.rounds.size(), 6u);
  std::size_t low = SIZE_MAX, high = 0;
  for (std::size_t s = 0; s < 6; ++s) {
    const std::uint64_t schedulerSeed = drawSample(sampler, 3, s, sample);
    const RoundsResult rounds = scheduleInRounds(fabric, config, sample, schedulerSeed);
    EXPECT_EQ(experiment.rounds[s].roundOf, rounds.roundOf);
    low = std::min(low, rounds.rounds);
    high = std::max(high, rounds.rounds);
  }
  EXPECT_EQ(experiment.roundsSummary.min, low);
  EXPECT_EQ(experiment.roundsSummary.max, high);
  EXPECT_GE(experiment.roundsSummary.mean, static_cast<double>(low));
  EXPECT_LE(experiment.roundsSummary.mean, static_cast<double>(high));
  EXPECT_TRUE(runScheduleExperiment(fabric, config, sampler, 2, 3, false).rounds.empty());
}

namespace routelab {
namespace {

// Every figure `routelab schedule` reports (docs/SCHEDULING.md, JSON `requests`, `ratio_*`,
// `failures`, `rounds`) recomputed from the schedules themselves: each sample redrawn
// (drawSample) and scheduled again, its ratio = granted statuses / requests, the mean, min,
// max and sample standard deviation (n - 1, two-pass) of the ratios, the failures counted by
// status, the rounds' mean, min and max.
TEST(Experiment, EveryReportedFigureRecomputedFromTheSchedules) {
  const Network net = makeFatTreeFt(2, 4, 4);
  const CircuitFabric fabric(net);
  const DemandSource demands(kDingPermutation, net, 5);
  const DemandSampler sampler = [&](Rng& rng, std::vector<SourceDestination>& out) { demands.draw(rng, out); };
  const std::size_t samples = 12;
  for (const char* spec : {"level-wise", "local-random", "local-greedy"}) {
    const SchedulerConfig config = makeSchedulerConfig(spec);
    const ScheduleExperiment experiment = runScheduleExperiment(fabric, config, sampler, samples, 5, true);
    const SchedulabilityStats& stats = experiment.stats;
    std::vector<double> ratios;
    std::size_t requests = 0, granted = 0, noCommon = 0, noUp = 0, down = 0, roundsSum = 0;
    std::size_t roundsMin = SIZE_MAX, roundsMax = 0;
    std::vector<SourceDestination> sample;
    for (std::size_t s = 0; s < samples; ++s) {
      const std::uint64_t schedulerSeed = drawSample(sampler, 5, s, sample);
      const CircuitSchedule schedule = CircuitScheduler(fabric, config).run(sample, schedulerSeed);
      std::size_t ok = 0;
      for (const CircuitStatus status : schedule.status) {
        ok += status == CircuitStatus::Granted;
        noCommon += status == CircuitStatus::NoCommonPort;
        noUp += status == CircuitStatus::NoUpPort;
        down += status == CircuitStatus::DownConflict;
      }
      requests += sample.size();
      granted += ok;
      ratios.push_back(static_cast<double>(ok) / static_cast<double>(sample.size()));
      const RoundsResult rounds = scheduleInRounds(fabric, config, sample, schedulerSeed);
      roundsSum += rounds.rounds;
      roundsMin = std::min(roundsMin, rounds.rounds);
      roundsMax = std::max(roundsMax, rounds.rounds);
    }
    double mean = 0;
    for (double r : ratios) mean += r / static_cast<double>(samples);
    double squares = 0;
    for (double r : ratios) squares += (r - mean) * (r - mean);
    const std::string what = spec;
    ASSERT_EQ(stats.ratios.size(), samples) << what;
    for (std::size_t s = 0; s < samples; ++s) EXPECT_DOUBLE_EQ(stats.ratios[s], ratios[s]) << what << " sample " << s;
    EXPECT_EQ(stats.samples, samples) << what;
    EXPECT_EQ(stats.requests, requests) << what;
    EXPECT_EQ(stats.granted, granted) << what;
    EXPECT_EQ(stats.noCommonPort, noCommon) << what;
    EXPECT_EQ(stats.noUpPort, noUp) << what;
    EXPECT_EQ(stats.downConflict, down) << what;
    EXPECT_NEAR(stats.ratioMean, mean, 1e-12) << what;
    EXPECT_EQ(stats.ratioMin, *std::min_element(ratios.begin(), ratios.end())) << what;
    EXPECT_EQ(stats.ratioMax, *std::max_element(ratios.begin(), ratios.end())) << what;
    EXPECT_NEAR(stats.ratioStddev, std::sqrt(squares / static_cast<double>(samples - 1)), 1e-9) << what;
    EXPECT_EQ(experiment.roundsSummary.min, roundsMin) << what;
    EXPECT_EQ(experiment.roundsSummary.max, roundsMax) << what;
    EXPECT_NEAR(experiment.roundsSummary.mean, static_cast<double>(roundsSum) / samples, 1e-12) << what;
    if (std::string(spec) != "level-wise") {
      EXPECT_GT(noUp + down, 0U) << what << ": a sample without failures checks no failure count";
      EXPECT_GT(squares, 0.0) << what << ": the ratios must vary for the deviation to mean anything";
    }
  }
}

}  // namespace
}  // namespace routelab
