// routelab/analysis/table_walks.h — first-path loads of sampled and shift patterns by
// walking the tables pair by pair, without storing every pair's path.
//
// PairPaths (paths.h) stores the path of all N(N-1) pairs: 4 bytes per hop, seconds and
// hundreds of MB at 4096 terminals, before the first sample. A sample of Nienaber's metrics
// touches only N/2 or N pairs, so walking each of its pairs (routePair) costs less whenever
// few samples are drawn (`routelab compare`). As a load source of the sampler (sampling.h)
// it gives the first-path numbers of the stored paths (the ML of a sample: max(1, largest
// switch-to-switch channel load), summarised by its histogram), bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/sampling.h"
#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

/// The routing's first paths, walked per sample, as a load source (integral).
std::unique_ptr<LoadSource> tableWalkSource(const Network& network, const RoutingResult& routing);

/// ABB / AFPB / ADB under the first-path model: sampleLoads over tableWalkSource. Throws
/// AnalysisError (pattern impossible on this terminal count, a pair not delivered) and
/// SpecError (bad options) as sampleBandwidth does.
SampledBandwidth sampleByWalks(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                               const SamplingOptions& options);

struct ShiftLoads {
  std::vector<std::uint32_t> maxLoads;       ///< per shift, in the order given
  std::vector<std::uint64_t> channelTotals;  ///< per channel: pairs of all the shifts through it
  std::uint64_t hops = 0;                    ///< channels of all their paths, terminal channels included
  std::uint64_t pairs = 0;
  friend bool operator==(const ShiftLoads&, const ShiftLoads&) = default;
};
/// First-path ML of the shift pattern i -> (i + s) mod N for each s of `shifts`, and the
/// paths through every channel summed over those shifts (terminal channels included). With
/// every shift s = 1..N-1 the totals are the all-pairs path counts of analysis/stages.h.
ShiftLoads shiftLoads(const Network& network, const RoutingResult& routing, const std::vector<std::int64_t>& shifts,
                      int threads = 0);

}  // namespace routelab
