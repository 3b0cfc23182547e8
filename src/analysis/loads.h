// routelab/analysis/loads.h — link loads of one communication pattern under a routing.
//
// Nienaber et al. 2011 §II: SDSET_R(l) is the set of SD pairs of pattern P routed through
// link l; its size is the load of l, and ML_R^P = max over links of the load. Here "link"
// is a directed channel and every channel counts, terminal links included (a hot spot
// shows up on the channel into the hot terminal).
//
// Nienaber's measure is for single-path routings. Adaptive and multipath routings are
// measured under a load model (analysis/split.h): first-path (preferred candidates, path 0),
// even-split (each pair's unit divided equally over its allowed routes, hop by hop) or
// best-split (the least maximum load any split over the allowed routes achieves, with a
// certified lower bound). For single-path routings all three give the same integer loads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/split.h"
#include "graph/network.h"
#include "routing/routing_result.h"
#include "traffic/pattern.h"

namespace routelab {

/// On fat-trees (XGFT labels known), per switch level: how many ascending channels each
/// switch uses, over the switches of that level that send anything upwards (Gómez 2007
/// §5.2.1: under bit-reversal the deterministic routing sends everything a leaf switch
/// forwards up through one ascending channel).
struct AscendingUsage {
  std::size_t level = 0;  ///< switch level (1 = leaf switches)
  std::size_t switchesSendingUp = 0;
  std::size_t minChannelsPerSwitch = 0;
  std::size_t maxChannelsPerSwitch = 0;
  std::size_t availablePerSwitch = 0;  ///< max up-degree among those switches
};

struct LinkLoads {
  LoadModel model = LoadModel::FirstPath;
  std::vector<double> load;       ///< per channel id
  double maxLoad = 0;             ///< ML (best-split: of the best split found, an upper bound)
  double lowerBound = 0;          ///< best-split: certified lower bound on ML; otherwise == maxLoad
  ChannelId maxChannel;           ///< smallest channel id with load == ML (invalid if no pairs)
  std::size_t channelsAtMax = 0;  ///< channels with load == ML (0 if no pairs)
  std::size_t pairs = 0;
  std::vector<AscendingUsage> ascending;  ///< per level with up-going load (fat-trees only)
};

/// Loads of every channel for `pattern` under `routing`. O(|P| x hops) (even-split: x
/// candidates; best-split: x solver iterations). Throws AnalysisError naming the pair when a pair is not delivered or
/// the pattern does not match the fabric's terminal count.
LinkLoads patternLoads(const Network& network, const RoutingResult& routing, const TrafficPattern& pattern,
                       LoadModel model = LoadModel::FirstPath, const BestSplitOptions& bestSplit = {});

}  // namespace routelab
