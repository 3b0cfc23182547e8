// The selection functions as components (sim/selection/): the registry's rows, each
// function's choice on hand-made requests, and the congestion-aware least-congested choice
// equal to the reference model packet by packet.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <tuple>
#include <vector>

#include "engines/registry.h"
#include "fabric/fabric.h"
#include "sim/arbitration/registry.h"
#include "sim/reference/reference_model.h"
#include "sim/selection/registry.h"
#include "sim/sim_json.h"
#include "sim/simulator.h"

namespace routelab {
namespace {

/// A request made by hand: per candidate its port, free VCs, queued packets and credits per VC.
struct FakeView {
  struct Candidate {
    PortNumber port = 1;
    std::uint64_t free = 0;
    std::array<std::uint32_t, 4> queued{}, credits{};
  };
  std::vector<Candidate> candidates;
  mutable Rng stream{7};
  std::uint64_t draw = 0;
  std::size_t size() const { return candidates.size(); }
  std::uint64_t freeVcs(std::size_t i) const { return candidates[i].free; }
  PortNumber port(std::size_t i) const { return candidates[i].port; }
  std::uint32_t queued(std::size_t i, std::uint32_t vc) const { return candidates[i].queued[vc]; }
  std::uint32_t credits(std::size_t i, std::uint32_t vc) const { return candidates[i].credits[vc]; }
  Rng& rng() const { return stream; }
  std::uint64_t packetDraw() const { return draw; }
};
static_assert(sim::SelectionView<FakeView>);

TEST(SelectionRegistry, EveryRowParsesToItsOwnFunction) {
  std::set<std::string> names;
  for (const auto& row : sim::selectionRegistry().rows()) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_FALSE(row.summary.empty()) << row.name;
    EXPECT_FALSE(row.reference.empty()) << row.name;
    EXPECT_EQ(parseSelection(row.name), row.factory);
    const sim::SelectionFunction function = sim::makeSelection(row.factory, sim::SelectionSetup{4, 2});
    EXPECT_EQ(function.index(), static_cast<std::size_t>(row.factory)) << row.name;
  }
  EXPECT_EQ(names.size(), std::variant_size_v<sim::SelectionFunction>);
  EXPECT_THROW(parseSelection("fastest"), SpecError);
}

TEST(Selection, EachFunctionChoosesByItsRule) {
  FakeView view;
  view.candidates.resize(3);
  view.candidates[0] = {5, 0b0000, {}, {}};                      // busy
  view.candidates[1] = {3, 0b1010, {2, 1, 0, 2}, {2, 0, 2, 2}};  // VC 1: 1 queued, next queue full
  view.candidates[2] = {2, 0b0100, {0, 0, 1, 0}, {2, 2, 2, 2}};  // VC 2: 1 queued, next queue empty
  const sim::SelectionSetup setup{4, 2};
  auto choice = [&](Selection id) {
    const sim::SelectionFunction function = sim::makeSelection(id, setup);
    const sim::SelectionChoice c = std::visit([&](const auto& f) { return f.choose(view); }, function);
    return std::pair{c.candidate, c.vc};
  };
  EXPECT_EQ(choice(Selection::Sadp), (std::pair<std::size_t, std::uint32_t>{1, 1}));       // first free
  EXPECT_EQ(choice(Selection::FirstFree), (std::pair<std::size_t, std::uint32_t>{2, 2}));  // lowest port
  // Candidate 1 VC 1 and candidate 2 VC 2 hold one packet each; VC 3 of candidate 1 two.
  EXPECT_EQ(choice(Selection::LeastOccupied), (std::pair<std::size_t, std::uint32_t>{1, 1}));
  // Counting the next input queue too: 1 + 2 taken slots against 1 + 0.
  EXPECT_EQ(choice(Selection::LeastCongested), (std::pair<std::size_t, std::uint32_t>{2, 2}));
  view.draw = 3;  // 3 mod 3: candidate 0, busy: the oblivious choice waits
  EXPECT_FALSE(
      std::visit([&](const auto& f) { return f.choose(view); }, sim::makeSelection(Selection::Oblivious, setup))
          .chosen());
  view.draw = 4;  // candidate 1, its lowest free VC
  EXPECT_EQ(choice(Selection::Oblivious), (std::pair<std::size_t, std::uint32_t>{1, 1}));
  std::set<std::pair<std::size_t, std::uint32_t>> drawn;  // random: every free choice, none other
  for (int i = 0; i < 200; ++i) drawn.insert(choice(Selection::Random));
  EXPECT_EQ(drawn, (std::set<std::pair<std::size_t, std::uint32_t>>{{1, 1}, {1, 3}, {2, 2}}));
  view.candidates[1].free = view.candidates[2].free = 0;
  for (const auto& row : sim::selectionRegistry().rows()) {
    EXPECT_EQ(choice(row.factory).first, sim::SelectionChoice::kNone) << row.name << ": nothing is free";
  }
}

std::vector<PacketRecord> sortedRecords(std::vector<PacketRecord> records) {
  std::sort(records.begin(), records.end(), [](const PacketRecord& a, const PacketRecord& b) {
    return std::tie(a.source, a.destination, a.sequence) < std::tie(b.source, b.destination, b.sequence);
  });
  return records;
}

// The congestion-aware choice reads credits: equal to the reference model packet by packet,
// every arbitration, grouped and not; and it is a different function from least-occupied
// (some packet's times differ).
TEST(Selection, LeastCongestedHasTheReferenceModelsTimes) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  RoutingContext context;
  context.seed = 1;
  const RoutingResult routing = runEngine("ftree-adaptive", fabric.network, context);
  bool differs = false;
  for (std::uint32_t flits : {8U}) {
    for (std::uint64_t seed : {1, 2, 3}) {
      SimConfig config;
      config.load = 0.8;
      config.warmupCycles = 1;
      config.measureCycles = 599;
      config.drainAll = true;
      config.recordPackets = true;
      config.checkInvariants = true;
      config.seed = seed;
      config.packetFlits = flits;
      config.vcs = 2;
      config.selection = Selection::LeastCongested;
      config.grouping = seed == 2 ? SimConfig::Grouping::Always : SimConfig::Grouping::Never;
      config.arbitration =
          std::array{Arbitration::RoundRobin, Arbitration::Age, Arbitration::SwitchRoundRobin}[seed - 1];
      const std::vector<PacketRecord> engine = sortedRecords(simulate(fabric.network, routing, config).packets);
      const std::vector<PacketRecord> reference = sim::referenceSimulate(fabric.network, routing, config, 200000);
      ASSERT_GT(engine.size(), 200U);
      ASSERT_EQ(engine, reference) << fmt::format("flits {} seed {}", flits, seed);
      config.selection = Selection::LeastOccupied;
      differs = differs || sortedRecords(simulate(fabric.network, routing, config).packets) != engine;
    }
  }
  EXPECT_TRUE(differs) << "least-congested chose as least-occupied on every packet";
}

}  // namespace
}  // namespace routelab

namespace routelab {
namespace {

// The reference model in the library (sim/reference/): compareWithReference runs both models
// and finds them equal packet by packet on every arbitration; what the reference model does
// not model is refused, not approximated.
TEST(ReferenceModel, ComparisonFindsBothModelsEqualAndRefusesWhatItDoesNotModel) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  RoutingContext context;
  context.seed = 1;
  const RoutingResult routing = runEngine("ftree-adaptive", fabric.network, context);
  SimConfig config;
  config.load = 0.6;
  config.warmupCycles = 100;
  config.measureCycles = 400;
  config.selection = Selection::Random;
  for (const auto& row : sim::arbitrationRegistry().rows()) {
    config.arbitration = row.factory;
    const sim::ModelComparison comparison =
        sim::compareWithReference(fabric.network, routing, config, sim::referenceLimit(config));
    EXPECT_TRUE(comparison.equal) << row.name << ": " << comparison.difference;
    EXPECT_GT(comparison.packets, 100U) << row.name;
  }
  config.injection = Injection::Poisson;
  EXPECT_THROW(sim::referenceSimulate(fabric.network, routing, config, 1000), SpecError);
  config.injection = Injection::Bernoulli;
  config.warmupCycles = 0;
  EXPECT_THROW(sim::referenceSimulate(fabric.network, routing, config, 1000), SpecError);
}

// The comparison itself reports a difference: in each field of one packet's record in turn
// (named with both records), in the number of packets, and not in the order the lists come in.
TEST(ReferenceModel, ComparisonReportsTheFirstPacketThatDiffersInAnyField) {
  std::vector<PacketRecord> records;
  for (std::uint32_t source = 0; source < 3; ++source) {
    for (std::uint64_t sequence = 0; sequence < 2; ++sequence) {
      records.push_back({source, 2 - source, sequence, 10 * source + sequence, 11 * source + sequence + 1,
                         12 * source + sequence + 5, 12 * source + sequence + 6, 3});
    }
  }
  const std::vector<PacketRecord> shuffled(records.rbegin(), records.rend());
  const sim::ModelComparison same = sim::comparePacketRecords(shuffled, records);
  EXPECT_TRUE(same.equal);
  EXPECT_EQ(same.difference, "");
  EXPECT_EQ(same.packets, records.size());

  const std::array<std::uint64_t PacketRecord::*, 5> fields = {&PacketRecord::sequence, &PacketRecord::generated,
                                                               &PacketRecord::injected, &PacketRecord::delivered,
                                                               &PacketRecord::released};
  for (const auto field : fields) {
    std::vector<PacketRecord> engine = records;
    engine[3].*field += 1000;
    const sim::ModelComparison differs = sim::comparePacketRecords(engine, records);
    EXPECT_FALSE(differs.equal);
    EXPECT_NE(differs.difference.find("packet 1 -> 1 #"), std::string::npos) << differs.difference;
  }
  std::vector<PacketRecord> engine = records;
  engine[5].hops = 4;
  sim::ModelComparison differs = sim::comparePacketRecords(engine, records);
  EXPECT_FALSE(differs.equal);
  EXPECT_EQ(differs.difference,
            "packet 2 -> 0 #1: engine generated 21 injected 24 delivered 30 released 31 hops 4; reference packet "
            "2 -> 0 #1: generated 21 injected 24 delivered 30 released 31 hops 3");
  engine = records;
  engine[0].destination = 1;  // another pair: the first record in order that differs is named
  differs = sim::comparePacketRecords(engine, records);
  EXPECT_FALSE(differs.equal);
  EXPECT_EQ(differs.difference.substr(0, 17), "packet 0 -> 1 #0:") << differs.difference;

  engine = records;
  engine.pop_back();
  differs = sim::comparePacketRecords(engine, records);
  EXPECT_FALSE(differs.equal);
  EXPECT_EQ(differs.difference, "the engine released 5 packets, the reference model 6");
  differs = sim::comparePacketRecords(records, engine);
  EXPECT_FALSE(differs.equal);
  EXPECT_EQ(differs.packets, 5U);
  EXPECT_EQ(differs.difference, "the engine released 6 packets, the reference model 5");
}

}  // namespace
}  // namespace routelab
