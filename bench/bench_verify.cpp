// Verifying routings (verify/verify.h) and the incremental channel dependency graph
// (cdg/cdg.h). Targets: issue 4, verify a 4096-terminal fabric's routing in under 1 s;
// issue 13, BM_VerifyKaryNtree16x3Adaptive under 0.5 s and BM_VerifyKaryNtree16x4Dmodk
// (65,536 terminals) well under 25 s, single-threaded (OMP_NUM_THREADS=1).
// The routing is computed once outside the timed loop; each iteration is one complete
// verifyRouting() (traversal of every (address, layer), dependency graph, cycle search).
#include <benchmark/benchmark.h>

#include "cdg/cdg.h"
#include "core/random.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "verify/verify.h"

namespace {

void verifyBenchmark(benchmark::State& state, const char* spec, const char* engine) {
  const routelab::Fabric fabric = routelab::loadFabric(spec);
  const routelab::RoutingResult routing = routelab::runEngine(engine, fabric.network);
  routelab::VerifyResult result;
  for (auto _ : state) {
    result = routelab::verifyRouting(fabric.network, routing);
    benchmark::DoNotOptimize(result.deadlockFree);
  }
  state.counters["terminals"] = static_cast<double>(fabric.network.terminalCount());
  state.counters["routes"] = static_cast<double>(result.routes);
  state.counters["dependencies"] = static_cast<double>(result.dependencies.empty() ? 0 : result.dependencies[0]);
  state.counters["deadlock_free"] = result.deadlockFree ? 1 : 0;
  state.SetLabel(std::string(spec) + " " + engine);
}

}  // namespace

// 16-ary 3-tree: 4096 terminals, 768 switches.
static void BM_VerifyKaryNtree16x3Dmodk(benchmark::State& state) {
  verifyBenchmark(state, "kary-ntree:k=16,n=3", "dmodk");
}
BENCHMARK(BM_VerifyKaryNtree16x3Dmodk)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_VerifyKaryNtree16x3Adaptive(benchmark::State& state) {
  verifyBenchmark(state, "kary-ntree:k=16,n=3", "ftree-adaptive");
}
BENCHMARK(BM_VerifyKaryNtree16x3Adaptive)->Unit(benchmark::kMillisecond)->UseRealTime();

// Issue 13: 16-ary 4-tree, 65,536 terminals, 16,384 switches, D-mod-k (1.07 G table
// entries; the routing alone takes seconds and 1.1 GB, so one iteration). Target: the whole
// `routelab verify kary-ntree:k=16,n=4 --engine dmodk` under 25 s CPU single-threaded.
static void BM_VerifyKaryNtree16x4Dmodk(benchmark::State& state) {
  verifyBenchmark(state, "kary-ntree:k=16,n=4", "dmodk");
}
BENCHMARK(BM_VerifyKaryNtree16x4Dmodk)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// Random irregular fabric, 1024 switches x 4 terminals = 4096 terminals, minhop (cyclic).
static void BM_VerifyRandom1024Minhop(benchmark::State& state) {
  verifyBenchmark(state, "random:switches=1024,terminals=4,radix=16,seed=1", "minhop");
}
BENCHMARK(BM_VerifyRandom1024Minhop)->Unit(benchmark::kMillisecond)->UseRealTime();

static void BM_VerifyRandom1024Updown(benchmark::State& state) {
  verifyBenchmark(state, "random:switches=1024,terminals=4,radix=16,seed=1", "updown");
}
BENCHMARK(BM_VerifyRandom1024Updown)->Unit(benchmark::kMillisecond)->UseRealTime();

// Incremental CDG: LASH-like placement of every terminal pair's minhop path into the first
// layer that stays acyclic (tryAddPath, Pearce-Kelly), 128-switch random fabric.
static void BM_CdgTryAddPathLashLike(benchmark::State& state) {
  const routelab::Fabric fabric = routelab::loadFabric("random:switches=128,seed=1");
  const routelab::Network& net = fabric.network;
  const routelab::RoutingResult routing = routelab::runEngine("minhop", net);
  std::vector<std::vector<routelab::ChannelId>> paths;
  for (routelab::NodeId s : net.terminals()) {
    for (routelab::NodeId d : net.terminals()) {
      if (s != d) paths.push_back(routing.path(net, s, routing.addressFor(s, d)).channels);
    }
  }
  std::size_t layers = 0;
  for (auto _ : state) {
    routelab::ChannelDependencyGraph cdg(net, 1);
    for (const auto& path : paths) {
      std::size_t layer = 0;
      while (!cdg.tryAddPath(routelab::LayerId::fromIndex(layer), path)) {
        if (++layer == cdg.layerCount()) cdg.addLayer();
      }
    }
    layers = cdg.layerCount();
    benchmark::DoNotOptimize(layers);
  }
  state.counters["paths"] = static_cast<double>(paths.size());
  state.counters["layers"] = static_cast<double>(layers);
}
BENCHMARK(BM_CdgTryAddPathLashLike)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
