// The export dispatch of request/route_export.h (routelab route --export, Python's
// Routing.export) and io/fabric_files.h writeFabricExports (topo --export, Fabric.export):
// each kind writes exactly what its writer writes for the loadable routing, an OpenSM dump
// re-exported is the OpenSM file byte for byte, and a refused request writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/fabric_files.h"
#include "io/lft_dump.h"
#include "io/lid_map.h"
#include "io/output.h"
#include "io/sl_table.h"
#include "request/route_export.h"
#include "request/route_request.h"
#include "request/verify_request.h"
#include "routing/interval_routing.h"
#include "routing/lmc_tables.h"
#include "test_support.h"

using namespace routelab;

namespace {

std::string scratch(const std::string& name) { return (test::scratchDir() / name).string(); }

RouteOutcome routed(const std::string& fabric, const std::string& engine) {
  return runRoute(RouteRequest::fromValues({{"fabric", fabric}, {"engine", engine}, {"no-checks", "true"}}));
}

template <class Writer>
std::string written(Writer writer) {
  std::ostringstream out;
  writer(out);
  return out.str();
}

std::string refusal(const RouteOutcome& o, const std::vector<ExportFile>& exports) {
  try {
    writeRouteExports(o.fabric, o.routing, o.engineName, exports);
  } catch (const Error& e) {
    return e.what();
  }
  return "written";
}

}  // namespace

TEST(RouteExport, KindsAreLftSlAndTheRegistersTheRowDeclares) {
  EXPECT_EQ(routeExportKinds(), (std::vector<std::string>{"lft", "sl", "fir", "ir"}));
  EXPECT_EQ(routeExportKindsOf(""), (std::vector<std::string>{"lft", "sl"}));
  for (const auto& row : engineRegistry().rows()) {
    std::vector<std::string> expected = {"lft", "sl"};
    for (const std::string kind : {"fir", "ir"}) {
      const auto& declared = engineRegisterExports(row.name);
      if (std::find(declared.begin(), declared.end(), kind) != declared.end()) expected.push_back(kind);
    }
    EXPECT_EQ(routeExportKindsOf(row.name), expected) << row.name;
  }
  EXPECT_EQ(routeExportKindsOf("ftree-adaptive"), (std::vector<std::string>{"lft", "sl", "ir"}));
  EXPECT_EQ(routeExportKindsOf("dmodk"), (std::vector<std::string>{"lft", "sl", "fir"}));
  EXPECT_THROW(routeExportKindsOf("no-such-engine"), SpecError);
}

TEST(RouteExport, EveryKindWritesItsWritersBytes) {
  const RouteOutcome o = routed("kary-ntree:k=2,n=3", "dmodk");
  const Network& net = o.fabric.network;
  const auto notes = writeRouteExports(o.fabric, o.routing, o.engineName,
                                       {{"lft", scratch("d.lft")}, {"sl", scratch("d.sl")}, {"fir", scratch("d.fir")}});
  EXPECT_TRUE(notes.lmcTables.empty());
  EXPECT_TRUE(notes.lids.empty());
  EXPECT_EQ(readFileText(scratch("d.lft")), written([&](std::ostream& out) { writeLftDump(net, o.routing, out); }));
  EXPECT_EQ(readFileText(scratch("d.sl")), written([&](std::ostream& out) { writeSlTable(net, o.routing, out); }));
  EXPECT_EQ(readFileText(scratch("d.fir")), written([&](std::ostream& out) {
              writeIntervalConfiguration(net, buildFirConfiguration(net), "dmodk", out);
            }));
  const RouteOutcome a = routed("kary-ntree:k=2,n=3", "ftree-adaptive");
  writeRouteExports(a.fabric, a.routing, a.engineName, {{"ir", scratch("a.ir")}});
  EXPECT_EQ(readFileText(scratch("a.ir")), written([&](std::ostream& out) {
              writeIntervalConfiguration(net, buildIrConfiguration(net), "ftree-adaptive", out);
            }));
}

TEST(RouteExport, LayeredRoutingGetsALidPerTableAndTheFabricsOwnLids) {
  // LASH with its UpDown layer (two tables): LFT and SL of the LMC-merged routing.
  const RouteOutcome o = routed("random:switches=32,seed=3", "lash:max-layers=2");
  ASSERT_EQ(o.routing.tables.size(), 2u);
  const auto notes =
      writeRouteExports(o.fabric, o.routing, o.engineName, {{"sl", scratch("l.sl")}, {"lft", scratch("l.lft")}});
  EXPECT_EQ(notes.lmcTables, "2 tables on LMC 1 (LID offset t = table t; load the SL file with the LFT)");
  const RoutingResult merged = mergeTablesByLmc(o.fabric.network, o.routing);
  EXPECT_EQ(readFileText(scratch("l.lft")),
            written([&](std::ostream& out) { writeLftDump(o.fabric.network, merged, out); }));
  EXPECT_EQ(readFileText(scratch("l.sl")),
            written([&](std::ostream& out) { writeSlTable(o.fabric.network, merged, out); }));
  // A discovered fabric is exported on the LIDs its subnet manager gave it.
  const std::string dir = test::fixturesDir() + "/k4n2";
  const RouteOutcome d = routed("ibnetdiscover:" + dir + "/ibnetdiscover.txt", "minhop");
  ASSERT_FALSE(d.fabric.lids.empty());
  const auto lidNotes = writeRouteExports(d.fabric, d.routing, d.engineName, {{"lft", scratch("lids.lft")}});
  EXPECT_EQ(lidNotes.lids, "the fabric's own (from " + d.fabric.lids.source + ")");
  const RoutingResult relabelled = withFabricLids(d.fabric.network, d.routing, d.fabric.lids);
  EXPECT_EQ(readFileText(scratch("lids.lft")), written([&](std::ostream& out) {
              writeLftDump(d.fabric.network, relabelled, out, switchLids(d.fabric.network, d.fabric.lids));
            }));
}

TEST(RouteExport, AnImportedOpenSmDumpExportsAsTheOpenSmFile) {
  std::size_t compared = 0;
  for (const std::string name : {"k4n2", "rnd16_s1"}) {
    const std::string dir = test::fixturesDir() + "/" + name;
    for (const std::string dump : {"lfts.minhop.dump", "lfts.updn.dump"}) {
      if (!std::filesystem::exists(dir + "/" + dump)) continue;
      const RouteOutcome o = routed("net:" + dir + "/topology.net", "file:" + dir + "/" + dump);
      ASSERT_EQ(o.engineName, "file");
      writeRouteExports(o.fabric, o.routing, o.engineName, {{"lft", scratch("osm.lft")}});
      EXPECT_EQ(readFileText(scratch("osm.lft")), readFileText(dir + "/" + dump)) << dir << "/" << dump;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 4u);
}

TEST(RouteExport, RefusalsNameTheKindAndTheAllowedOnesAndWriteNothing) {
  const RouteOutcome o = routed("kary-ntree:k=2,n=3", "dmodk");
  const std::string lft = scratch("refused.lft"), other = scratch("refused.other");
  EXPECT_EQ(refusal(o, {{"lft", lft}, {"csv", other}}), "export: unknown kind 'csv' (lft, sl, fir, ir)");
  EXPECT_EQ(refusal(o, {{"lft", lft}, {"ir", other}}),
            "export ir: the IR registers describe ftree-adaptive (Gómez §3.1); the engine is 'dmodk', which "
            "exports lft, sl, fir");
  const RouteOutcome minhop = routed("kary-ntree:k=2,n=3", "minhop");
  EXPECT_EQ(refusal(minhop, {{"fir", other}}),
            "export fir: the FIR registers describe ftree-deterministic, dmodk (Gómez §4.1); the engine is "
            "'minhop', which exports lft, sl");
  EXPECT_EQ(refusal(minhop, {{"fir", other}}).find("a routing built"), std::string::npos);
  RoutingResult python = minhop.routing;  // a routing built outside the registry
  EXPECT_NE(refusal(RouteOutcome{minhop.fabric, python, "", "", {}}, {{"ir", other}})
                .find("; a routing built outside the registry exports lft, sl"),
            std::string::npos);
  const RouteOutcome lmc = runRoute(RouteRequest::fromValues(
      {{"fabric", "kary-ntree:k=2,n=3"}, {"engine", "ftree-deterministic"}, {"lmc", "1"}, {"no-checks", "true"}}));
  EXPECT_EQ(refusal(lmc, {{"lft", lft}, {"fir", other}}),
            "export fir: the registers route one address per terminal (lmc 0, no switch addresses)");
  const RouteOutcome switches = runRoute(RouteRequest::fromValues({{"fabric", "kary-ntree:k=2,n=3"},
                                                                   {"engine", "ftree-adaptive"},
                                                                   {"switch-addresses", "true"},
                                                                   {"no-checks", "true"}}));
  EXPECT_EQ(refusal(switches, {{"ir", other}}),
            "export ir: the registers route one address per terminal (lmc 0, no switch addresses)");
  const RouteOutcome escape = routed("random:switches=32,seed=3", "escape");
  EXPECT_NE(refusal(escape, {{"lft", lft}, {"sl", other}}).find("escape routing changes layer inside the fabric"),
            std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(lft));
  EXPECT_FALSE(std::filesystem::exists(other));
}

TEST(FabricExport, EveryFormatWritesItsWritersBytesAndAnUnknownOneNothing) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Network& net = fabric.network;
  EXPECT_EQ(fabricExportKinds(), (std::vector<std::string>{"net", "dot", "json"}));
  writeFabricExports(net, {{"net", scratch("f.net")}, {"dot", scratch("f.dot")}, {"json", scratch("f.json")}});
  EXPECT_EQ(readFileText(scratch("f.net")), written([&](std::ostream& out) { writeIbsimNet(net, out); }));
  EXPECT_EQ(readFileText(scratch("f.dot")), written([&](std::ostream& out) { writeDot(net, out); }));
  EXPECT_EQ(readFileText(scratch("f.json")), written([&](std::ostream& out) { writeNetworkJson(net, out); }));
  EXPECT_EQ(test::thrownMessage<SpecError>([&] {
              writeFabricExports(net, {{"net", scratch("g.net")}, {"xml", scratch("g.xml")}});
            }),
            "export: unknown format 'xml' (net, dot, json)");
  EXPECT_FALSE(std::filesystem::exists(scratch("g.net")));
  EXPECT_FALSE(std::filesystem::exists(scratch("g.xml")));
}

TEST(RouteRequestParts, ContextEngineRowAndLidMapAreTheRequests) {
  const RouteRequest r = RouteRequest::fromValues({{"fabric", "kary-ntree:k=2,n=3"},
                                                   {"engine", "lash:max-layers=2"},
                                                   {"lmc", "2"},
                                                   {"switch-addresses", "true"},
                                                   {"seed", "9"},
                                                   {"lid-map", test::fixturesDir() + "/k4n2/guid2lid"}});
  const RoutingContext context = r.context();
  EXPECT_EQ(context.addressesPerTerminal, 4u);
  EXPECT_TRUE(context.routeSwitches);
  EXPECT_EQ(context.seed, 9u);
  EXPECT_EQ(routeEngineRow(r.engine), "lash");
  EXPECT_EQ(routeEngineRow("file:/some/lfts.dump"), "file");
  // A path is taken whole, whatever it holds (',' and '=' would split an engine's options).
  EXPECT_EQ(routeEngineRow("file:/runs/a,,b=/=lfts.dump"), "file");
  EXPECT_FALSE(routeLidMap(r).empty());
  EXPECT_TRUE(routeLidMap(RouteRequest::fromValues({{"fabric", "x"}, {"engine", "dmodk"}})).empty());
  // The checks' JSON is the `checks` of route's JSON.
  const RouteOutcome o = runRoute(RouteRequest::fromValues({{"fabric", "kary-ntree:k=2,n=3"}, {"engine", "dmodk"}}));
  ASSERT_TRUE(o.checks.has_value());
  const nlohmann::json checks = routeChecksJson(*o.checks);
  EXPECT_EQ(checks, routeResultJson(RouteRequest::fromValues({{"fabric", "kary-ntree:k=2,n=3"}, {"engine", "dmodk"}}),
                                    o)["checks"]);
  EXPECT_EQ(checks["terminal_pairs_delivered"], 8 * 7);
  EXPECT_TRUE(checks["passed"]);
}

// verify --lid-map: the routing is verified on the map's LIDs (every terminal's first address
// has the LID the map gives its port GUID); a map without LIDs is refused by name.
TEST(VerifyRequestParts, ALidMapGivesTheRoutingItsLidsAndAnEmptyOneIsRefused) {
  const std::string dir = test::fixturesDir() + "/k4n2";
  // The ibsim net file has GUIDs but no LIDs: without the map, routelab numbers the addresses.
  const std::string fabric = "net:" + dir + "/topology.net";
  const VerifyOutcome out =
      runVerify(VerifyRequest::fromValues({{"fabric", fabric}, {"engine", "minhop"}, {"lid-map", dir + "/guid2lid"}}));
  ASSERT_FALSE(out.fabric.lids.empty());
  const VerifyOutcome without = runVerify(VerifyRequest::fromValues({{"fabric", fabric}, {"engine", "minhop"}}));
  EXPECT_TRUE(without.fabric.lids.empty());
  const LidMap map = readGuid2Lid(dir + "/guid2lid");
  std::size_t checked = 0, differs = 0;
  for (NodeId t : out.fabric.network.terminals()) {
    const LidMap::Entry* entry = map.find(out.fabric.network, t);
    ASSERT_NE(entry, nullptr) << out.fabric.network.name(t);
    EXPECT_EQ(out.routing.addresses.lid(out.routing.addresses.base(t)), entry->lid) << out.fabric.network.name(t);
    differs += without.routing.addresses.lid(without.routing.addresses.base(t)) != entry->lid ? 1 : 0;
    ++checked;
  }
  EXPECT_EQ(checked, 16u);
  EXPECT_GT(differs, 0u);  // the map's LIDs are not the ones routelab would number
  EXPECT_TRUE(out.result.connected);

  const std::string empty = ::testing::TempDir() + "empty.guid2lid";
  { std::ofstream(empty) << "# no LIDs here\n"; }
  EXPECT_EQ(test::thrownMessage<SpecError>([&] {
              runVerify(VerifyRequest::fromValues({{"fabric", fabric}, {"engine", "minhop"}, {"lid-map", empty}}));
            }),
            "--lid-map " + empty + ": no LIDs in the file");
}

// Each key of route's `checks` JSON reads its own member of the report: every count set to a
// value of its own, the two claims' verdicts and `passed` apart, a descending and an ascending
// stage (docs/ROUTING.md "Checks").
TEST(RouteChecksJson, EveryKeyReadsItsOwnMember) {
  RoutingCheckReport c;
  c.pairs = 101;
  c.delivered = 102;
  c.terminalPairs = 103;
  c.terminalPairsDelivered = 104;
  c.managementPairs = 105;
  c.managementPairsDelivered = 106;
  c.noRoute = 107;
  c.loops = 108;
  c.deadPorts = 109;
  c.noAddress = 110;
  c.nonMinimalPaths = 111;
  c.nonMinimalCandidates = 112;
  c.badCandidates = 113;
  c.candidateCycles = 114;
  c.incompleteChoices = 115;
  c.entries = 116;
  c.multiCandidateEntries = 117;
  c.maxHops = 118;
  c.meanHops = 2.5;
  c.deterministicOk = false;
  c.minimalOk = true;
  c.ok = true;
  c.failures = {"first", "second"};
  StageCount up;
  up.lowerLevel = 0;
  up.ascending = true;
  up.channels = 8;
  up.minPaths = 3;
  up.maxPaths = 5;
  up.meanPaths = 4.25;
  StageCount down = up;
  down.ascending = false;
  down.channels = 9;
  c.stages = {up, down};
  const nlohmann::json j = routeChecksJson(c);
  const nlohmann::json expected = {
      {"passed", true},
      {"pairs", 101},
      {"delivered", 102},
      {"terminal_pairs", 103},
      {"terminal_pairs_delivered", 104},
      {"management_pairs", 105},
      {"management_pairs_delivered", 106},
      {"no_route", 107},
      {"loops", 108},
      {"dead_ports", 109},
      {"no_address", 110},
      {"non_minimal_paths", 111},
      {"non_minimal_candidates", 112},
      {"bad_candidates", 113},
      {"candidate_cycles", 114},
      {"incomplete_choices", 115},
      {"entries", 116},
      {"multi_candidate_entries", 117},
      {"deterministic_ok", false},
      {"minimal_ok", true},
      {"max_hops", 118},
      {"mean_hops", 2.5},
      {"stages",
       {{{"level", 0}, {"direction", "up"}, {"channels", 8}, {"min_paths", 3}, {"max_paths", 5}, {"mean_paths", 4.25}},
        {{"level", 1},
         {"direction", "down"},
         {"channels", 9},
         {"min_paths", 3},
         {"max_paths", 5},
         {"mean_paths", 4.25}}}},
      {"failures", {"first", "second"}}};
  EXPECT_EQ(j, expected) << j.dump(1);
  c.ok = false;
  EXPECT_EQ(routeChecksJson(c)["passed"], false);
}

// Each key of verify's JSON reads its own member (docs/VERIFY.md "--format json"): every count
// a value of its own, optional values present and absent (null), failures with and without
// LIDs, and the exit code of each verdict (5 disconnected or looping, 4 deadlock-prone, 0).
TEST(VerifyResultJson, EveryKeyReadsItsOwnMember) {
  VerifyOutcome o;
  o.fabric.spec = "kary-ntree:k=2,n=2";
  VerifyResult& r = o.result;
  r.engine = "lash:max-layers=3";
  r.switchTraffic = true;
  r.connected = true;
  r.loopFree = true;
  r.deadlockFree = false;
  r.layers = 5;
  r.layersUsed = 2;
  r.highestLayer = 1;
  r.method = "Dally-Seitz";
  r.escapeLayer = 4;
  r.dependencies = {11, 12, 13};
  r.cyclicLayers = {3};
  r.cycleLayer = 3;
  r.cycleChannels = {"a[1] -> b[2]", "b[2] -> a[1]"};
  r.sources = 21;
  r.destinations = 22;
  r.routes = 23;
  r.delivered = 24;
  r.noRoute = 25;
  r.loops = 26;
  r.deadPorts = 27;
  r.noAddress = 28;
  r.unroutedSwitchPairs = 29;
  r.escapeFailures = 30;
  r.failures = {{"h0", "h1", 5, 0, 1, "no route", "s0"}};
  r.unroutedSwitchExamples = {{"s0", "s1", 0, 9, 0, "loop", ""}};
  r.escapeFailureExamples = {{"h2", "h3", 7, 8, 2, "dead port", "s1[3]"}};
  const VerifyRequest request = VerifyRequest::fromValues(
      {{"fabric", o.fabric.spec}, {"engine", "lash"}, {"seed", "17"}, {"lmc", "2"}, {"sl", "pairs.sl"}});
  const nlohmann::json j = verifyResultJson(request, o);
  const nlohmann::json expected = {{"spec", "kary-ntree:k=2,n=2"},
                                   {"engine", "lash:max-layers=3"},
                                   {"sl_file", "pairs.sl"},
                                   {"switch_traffic", true},
                                   {"seed", 17},
                                   {"lmc", 2},
                                   {"connected", true},
                                   {"loop_free", true},
                                   {"deadlock_free", false},
                                   {"passed", false},
                                   {"exit_code", 4},
                                   {"layers", 5},
                                   {"layers_used", 2},
                                   {"highest_layer", 1},
                                   {"method", "Dally-Seitz"},
                                   {"escape_layer", 4},
                                   {"dependencies", {11, 12, 13}},
                                   {"cyclic_layers", {3}},
                                   {"cycle_layer", 3},
                                   {"cycle", {"a[1] -> b[2]", "b[2] -> a[1]"}},
                                   {"counts",
                                    {{"sources", 21},
                                     {"destinations", 22},
                                     {"routes", 23},
                                     {"delivered", 24},
                                     {"no_route", 25},
                                     {"loops", 26},
                                     {"dead_ports", 27},
                                     {"no_address", 28},
                                     {"unrouted_switch_pairs", 29},
                                     {"escape_failures", 30}}},
                                   {"failures",
                                    {{{"source", "h0"},
                                      {"source_lid", 5},
                                      {"destination", "h1"},
                                      {"destination_lid", nullptr},
                                      {"layer", 1},
                                      {"status", "no route"},
                                      {"stopped_at", "s0"}}}},
                                   {"unrouted_switch_pair_examples",
                                    {{{"source", "s0"},
                                      {"source_lid", nullptr},
                                      {"destination", "s1"},
                                      {"destination_lid", 9},
                                      {"layer", 0},
                                      {"status", "loop"},
                                      {"stopped_at", nullptr}}}},
                                   {"escape_failure_examples",
                                    {{{"source", "h2"},
                                      {"source_lid", 7},
                                      {"destination", "h3"},
                                      {"destination_lid", 8},
                                      {"layer", 2},
                                      {"status", "dead port"},
                                      {"stopped_at", "s1[3]"}}}}};
  EXPECT_EQ(j, expected) << j.dump(1);

  // Absent values are null; the verdict's exit code follows the first failed property.
  r.highestLayer = -1;
  r.escapeLayer = -1;
  r.cycleLayer.reset();
  const nlohmann::json bare = verifyResultJson(VerifyRequest::fromValues({{"fabric", "x"}, {"engine", "lash"}}), o);
  for (const char* key : {"sl_file", "highest_layer", "escape_layer", "cycle_layer", "cycle"}) {
    EXPECT_TRUE(bare[key].is_null()) << key;
  }
  r.deadlockFree = true;
  EXPECT_EQ(verifyResultJson(request, o)["exit_code"], 0);
  EXPECT_EQ(verifyResultJson(request, o)["passed"], true);
  r.loopFree = false;
  EXPECT_EQ(verifyResultJson(request, o)["exit_code"], 5);
  r.loopFree = true;
  r.connected = false;
  EXPECT_EQ(verifyResultJson(request, o)["exit_code"], 5);
  r.connected = true;
  r.deadlockFree = false;
  r.loopFree = false;
  EXPECT_EQ(verifyResultJson(request, o)["exit_code"], 5);  // a loop outranks a deadlock
}

// Each key of route's JSON besides `checks` recounted from the routing it describes
// (docs/ROUTING.md "routelab route"): the request's echo, the claims, the addresses (count,
// per terminal, source classes, switch addresses, lowest and highest LID), the tables and the
// engine's statistics — for a multipath routing with switch addresses, a source-dependent one and
// one read back from an LFT dump (its addresses laid out block by block, AddressMap::fromBlocks).
TEST(RouteResultJson, EveryKeyIsRecountedFromTheRouting) {
  const std::string dump = scratch("recounted.lft");
  {
    const RouteOutcome dmodk = routed("kary-ntree:k=2,n=3", "dmodk");
    writeRouteExports(dmodk.fabric, dmodk.routing, dmodk.engineName, {{"lft", dump}});
  }
  for (const auto& [engine, lmc, switches] :
       {std::tuple{std::string("ftree-deterministic"), 1, true}, std::tuple{std::string("smodk"), 0, false},
        std::tuple{"file:" + dump, 0, false}}) {
    const RouteRequest request = RouteRequest::fromValues({{"fabric", "kary-ntree:k=2,n=3"},
                                                           {"engine", engine},
                                                           {"lmc", std::to_string(lmc)},
                                                           {"switch-addresses", switches ? "true" : "false"},
                                                           {"seed", "9"},
                                                           {"no-checks", "true"}});
    const RouteOutcome o = runRoute(request);
    const RoutingResult& r = o.routing;
    const Network& net = o.fabric.network;
    const nlohmann::json j = routeResultJson(request, o);
    EXPECT_EQ(j.at("spec"), "kary-ntree:k=2,n=3") << engine;
    EXPECT_EQ(j.at("engine"), r.engine) << engine;
    EXPECT_EQ(j.at("reference"), o.reference) << engine;
    EXPECT_FALSE(o.reference.empty()) << engine;
    EXPECT_EQ(j.at("seed"), 9) << engine;
    EXPECT_EQ(j.at("lmc"), lmc) << engine;
    EXPECT_EQ(j.at("switch_addresses"), switches) << engine;
    EXPECT_EQ(j.at("deterministic"), r.deterministic) << engine;
    EXPECT_EQ(j.at("minimal_claimed"), r.minimal) << engine;
    std::size_t switchOwners = 0;
    for (std::size_t i = 0; i < net.nodeCount(); ++i) {
      const NodeId n = NodeId::fromIndex(i);
      switchOwners += net.isSwitch(n) && r.addresses.hasAddresses(n) ? 1 : 0;
    }
    std::uint32_t low = UINT32_MAX, high = 0;
    for (Address a = 0; a < r.addresses.count(); ++a) {
      low = std::min(low, r.addresses.lid(a));
      high = std::max(high, r.addresses.lid(a));
    }
    const std::uint32_t perTerminal = r.addresses.blockSize(net.terminalNode(0));
    EXPECT_EQ(j.at("addresses"), nlohmann::json({{"count", r.addresses.count()},
                                                 {"per_terminal", perTerminal},
                                                 {"source_classes", r.sourceClasses},
                                                 {"switch_addresses", switchOwners},
                                                 {"min_lid", low},
                                                 {"max_lid", high}}))
        << engine;
    EXPECT_EQ(switchOwners, switches ? net.switchCount() : 0u) << engine;
    EXPECT_EQ(perTerminal, engine == "smodk" ? r.sourceClasses : 1u << lmc) << engine;
    std::size_t memory = 0;
    for (const ForwardingTable& t : r.tables) memory += t.memoryBytes();
    EXPECT_EQ(j.at("tables"), nlohmann::json({{"count", r.tables.size()},
                                              {"switches", net.switchCount()},
                                              {"memory_bytes", memory},
                                              {"layers", r.layerCount()}}))
        << engine;
    ASSERT_EQ(j.at("stats").size(), r.stats.size()) << engine;
    for (const auto& [key, value] : r.stats) {
      const nlohmann::json& shown = j.at("stats").at(key);
      EXPECT_EQ(shown.is_string() ? shown.get<std::string>() : shown.dump(), value) << engine << " " << key;
    }
    EXPECT_TRUE(j.at("checks").is_null()) << engine;
  }
}
