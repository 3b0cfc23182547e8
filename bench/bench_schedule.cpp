// Circuit scheduling speed (Ding et al. Table 1): the FPGA schedules all 4096 requests of a
// 3-level 16x16-switch fat-tree, FT(3,16,16), in 38.9 µs. Each iteration schedules one
// random permutation (cycling through 64 pre-drawn ones, seed 1) on an idle fabric: link
// state reset + scheduling, single thread.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "schedule/experiment.h"
#include "schedule/registry.h"
#include "topology/ft.h"
#include "traffic/pattern.h"

namespace {

void scheduleFatTree(benchmark::State& state, std::uint32_t levels, std::uint32_t width, const std::string& spec) {
  const routelab::Network network = routelab::makeFatTreeFt(levels, width, width);
  const routelab::CircuitFabric fabric(network);
  const routelab::CircuitScheduler scheduler(fabric, routelab::makeSchedulerConfig(spec));
  std::vector<std::vector<routelab::SourceDestination>> permutations(64);
  for (std::size_t p = 0; p < permutations.size(); ++p) {
    routelab::Rng rng(routelab::deriveSeed(1, p));
    routelab::sampleDingPermutation(rng, fabric.terminals(), permutations[p]);
  }
  routelab::LinkState links(fabric);
  routelab::CircuitSchedule out;
  std::size_t next = 0, requests = 0, granted = 0;
  for (auto _ : state) {
    const auto& requestsNow = permutations[next++ % permutations.size()];
    links.reset();
    scheduler.run(requestsNow, next, links, out);
    requests += out.requests();
    granted += out.granted;
    benchmark::DoNotOptimize(out.granted);
  }
  state.counters["requests_per_run"] = static_cast<double>(requests) / static_cast<double>(state.iterations());
  state.counters["ratio"] = static_cast<double>(granted) / static_cast<double>(requests);
  state.counters["ns_per_request"] =
      benchmark::Counter(static_cast<double>(requests), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK_CAPTURE(scheduleFatTree, ft_3_16_levelwise, 3, 16, std::string("level-wise"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(scheduleFatTree, ft_3_16_levelwise_request_order, 3, 16, std::string("level-wise:order=request"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(scheduleFatTree, ft_3_16_local_greedy, 3, 16, std::string("local-greedy"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(scheduleFatTree, ft_3_16_local_random, 3, 16, std::string("local-random"))
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(scheduleFatTree, ft_3_4_levelwise, 3, 4, std::string("level-wise"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(scheduleFatTree, ft_3_8_levelwise, 3, 8, std::string("level-wise"))->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
