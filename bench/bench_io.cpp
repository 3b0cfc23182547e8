// Fabric files: writing and reading ibsim net and routelab JSON text, and recognising
// the fat-tree in an imported fabric, for k-ary n-trees up to 65,536 terminals.
#include <benchmark/benchmark.h>

#include <sstream>

#include "io/fabric_files.h"
#include "topology/recognize.h"
#include "topology/xgft.h"

namespace {

routelab::Network tree(const benchmark::State& state) {
  return routelab::makeKaryNtree(static_cast<std::uint32_t>(state.range(0)),
                                 static_cast<std::uint32_t>(state.range(1)));
}

std::string netText(const routelab::Network& network) {
  std::ostringstream out;
  routelab::writeIbsimNet(network, out);
  return out.str();
}

std::string jsonText(const routelab::Network& network) {
  std::ostringstream out;
  routelab::writeNetworkJson(network, out);
  return out.str();
}

}  // namespace

static void BM_WriteNet(benchmark::State& state) {
  const routelab::Network network = tree(state);
  std::size_t bytes = 0;
  for (auto _ : state) bytes = netText(network).size();
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
}
BENCHMARK(BM_WriteNet)->Args({16, 3})->Args({16, 4})->Unit(benchmark::kMillisecond);

static void BM_ReadNet(benchmark::State& state) {
  const std::string text = netText(tree(state));
  for (auto _ : state) benchmark::DoNotOptimize(routelab::parseFabricText(text, "bench.net").channelCount());
  state.SetBytesProcessed(static_cast<std::int64_t>(text.size() * state.iterations()));
}
BENCHMARK(BM_ReadNet)->Args({16, 3})->Args({16, 4})->Unit(benchmark::kMillisecond);

static void BM_WriteJson(benchmark::State& state) {
  const routelab::Network network = tree(state);
  std::size_t bytes = 0;
  for (auto _ : state) bytes = jsonText(network).size();
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
}
BENCHMARK(BM_WriteJson)->Args({16, 3})->Args({16, 4})->Unit(benchmark::kMillisecond);

static void BM_ReadJson(benchmark::State& state) {
  const std::string text = jsonText(tree(state));
  for (auto _ : state) benchmark::DoNotOptimize(routelab::parseFabricText(text, "bench.json").channelCount());
  state.SetBytesProcessed(static_cast<std::int64_t>(text.size() * state.iterations()));
}
BENCHMARK(BM_ReadJson)->Args({16, 3})->Args({16, 4})->Unit(benchmark::kMillisecond);

static void BM_RecognizeFatTree(benchmark::State& state) {
  const routelab::Network imported = routelab::parseFabricText(netText(tree(state)), "bench.net");
  for (auto _ : state) benchmark::DoNotOptimize(routelab::recognizeFatTree(imported).has_value());
}
BENCHMARK(BM_RecognizeFatTree)->Args({16, 3})->Args({16, 4})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
