// Routing speed: the fat-tree engines on the 16-ary 3-tree (4096 terminals, 768 switches;
// target < 50 ms, OpenSM 3.3.23 needs 1.8-2.3 s for its min-hop family on the same fabric,
// docs/REFERENCE.md), Nienaber's engines on large T(n+m, r), the checks, IR/FIR
// register builds and the LFT writer/reader. Results: docs/PERFORMANCE.md ("## routing").
#include <benchmark/benchmark.h>

#include <sstream>

#include "engines/fattree/fat_tree.h"
#include "io/lft_dump.h"
#include "routing/checks.h"
#include "routing/interval_routing.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

const Network& k16n3() {
  static const Network network = makeKaryNtree(16, 3);
  return network;
}

template <RoutingResult (*Route)(const Network&, const RoutingContext&)>
void routeFabric(benchmark::State& state, const Network& network, std::uint32_t paths = 1) {
  RoutingContext context;
  context.addressesPerTerminal = paths;
  std::size_t bytes = 0;
  for (auto _ : state) {
    RoutingResult result = Route(network, context);
    bytes = result.table().memoryBytes();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["table_bytes"] = static_cast<double>(bytes);
  state.counters["entries/s"] = benchmark::Counter(
      static_cast<double>(network.switchCount()) * static_cast<double>(network.terminalCount() * paths),
      benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

static void BM_K16n3_FtreeDeterministic(benchmark::State& s) { routeFabric<&routeFtreeDeterministic>(s, k16n3()); }
static void BM_K16n3_FtreeAdaptive(benchmark::State& s) { routeFabric<&routeFtreeAdaptive>(s, k16n3()); }
static void BM_K16n3_Dmodk(benchmark::State& s) { routeFabric<&routeDmodk>(s, k16n3()); }
static void BM_K16n3_DmodkLmc2(benchmark::State& s) { routeFabric<&routeDmodk>(s, k16n3(), 4); }
BENCHMARK(BM_K16n3_FtreeDeterministic)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_K16n3_FtreeAdaptive)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_K16n3_Dmodk)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_K16n3_DmodkLmc2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Issue 13: the 16-ary 4-tree (65,536 terminals, 16,384 switches, 1.07 G entries = 1 GiB);
// target < 2 s CPU on one core (run with OMP_NUM_THREADS=1). Every iteration allocates and
// first-touches the whole table, as a `routelab route` process does.
static void BM_K16n4_FtreeDeterministic(benchmark::State& s) {
  static const Network network = makeKaryNtree(16, 4);
  routeFabric<&routeFtreeDeterministic>(s, network);
}
BENCHMARK(BM_K16n4_FtreeDeterministic)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->Iterations(3);

// S-mod-k is source-based: on the 16-ary 3-tree it needs 256 addresses per terminal
// (805 MB of tables), so it is measured on the 16-ary 2-tree and on T(32+32, 64).
static void BM_K16n2_Smodk(benchmark::State& s) {
  static const Network network = makeKaryNtree(16, 2);
  routeFabric<&routeSmodk>(s, network);
}
BENCHMARK(BM_K16n2_Smodk)->Unit(benchmark::kMillisecond)->UseRealTime();

static const Network& gft32() {
  static const Network network = makeGft2(32, 32, 64);  // 2048 terminals, 96 switches
  return network;
}
static const Network& gft24() {
  static const Network network = makeGft2(24, 24, 48);  // 1152 terminals; sqrt(24) is not an integer
  return network;
}
static void BM_T32_32_64_Smodk(benchmark::State& s) { routeFabric<&routeSmodk>(s, gft32()); }
static void BM_T32_32_64_Opt(benchmark::State& s) { routeFabric<&routeOpt>(s, gft32()); }
static void BM_T32_32_64_OptBalanced(benchmark::State& s) { routeFabric<&routeOptBalanced>(s, gft32()); }
static void BM_T24_24_48_OptBalanced(benchmark::State& s) { routeFabric<&routeOptBalanced>(s, gft24()); }
BENCHMARK(BM_T32_32_64_Smodk)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_T32_32_64_Opt)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_T32_32_64_OptBalanced)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_T24_24_48_OptBalanced)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_K16n3_Checks(benchmark::State& state) {
  const RoutingResult routing = routeFtreeDeterministic(k16n3(), {});
  for (auto _ : state) {
    const RoutingCheckReport report = checkRouting(k16n3(), routing);
    benchmark::DoNotOptimize(report.delivered);
  }
  state.counters["pairs"] = 4096.0 * 4095.0;
}
BENCHMARK(BM_K16n3_Checks)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_K16n3_FirBuildAndVerify(benchmark::State& state) {
  const RoutingResult routing = routeFtreeDeterministic(k16n3(), {});
  for (auto _ : state) {
    const IntervalConfiguration fir = buildFirConfiguration(k16n3());
    benchmark::DoNotOptimize(countRegisterDisagreements(k16n3(), fir, routing));
  }
}
BENCHMARK(BM_K16n3_FirBuildAndVerify)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_K16n3_LftWriteRead(benchmark::State& state) {
  const RoutingResult routing = routeFtreeDeterministic(k16n3(), {});
  std::size_t size = 0;
  for (auto _ : state) {
    std::ostringstream out;
    writeLftDump(k16n3(), routing, out);
    const RoutingResult back = parseLftDump(out.str(), "bench", k16n3());
    size = out.str().size();
    benchmark::DoNotOptimize(back.addresses.count());
  }
  state.counters["dump_bytes"] = static_cast<double>(size);
}
BENCHMARK(BM_K16n3_LftWriteRead)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
