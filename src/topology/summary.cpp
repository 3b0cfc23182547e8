#include "topology/summary.h"

#include "graph/algorithms.h"

namespace routelab {

NetworkSummary summarize(const Network& network) {
  NetworkSummary s;
  s.terminals = network.terminalCount();
  s.switches = network.switchCount();
  s.links = network.linkCount();
  s.channels = network.channelCount();
  for (NodeId sw : network.switches()) {
    ++s.radixHistogram[network.portCount(sw)];
    ++s.degreeHistogram[static_cast<std::uint32_t>(network.degree(sw))];
    for (ChannelId c : network.outChannels(sw)) {
      if (network.isSwitch(network.target(c)) && c.value < Network::reverse(c).value) ++s.switchLinks;
    }
  }
  s.components = componentCount(connectedComponents(network));
  s.connected = s.components <= 1;
  if (const XgftLabels* labels = network.xgft()) {
    // XGFT: two terminals differing at position l meet at level l, 2l channels apart.
    for (std::size_t l = 1; l <= labels->params.height(); ++l) {
      if (labels->params.m[l - 1] > 1) s.diameter = static_cast<std::uint32_t>(2 * l);
    }
  } else {
    const std::uint32_t diameter = terminalDiameter(network);
    s.diameter = diameter == kUnreachable ? 0 : diameter;
  }
  if (const XgftLabels* labels = network.xgft()) {
    const XgftParams& p = labels->params;
    s.xgft = p.str();
    s.levels = p.height();
    for (std::size_t l = 1; l <= p.height(); ++l) s.switchesPerLevel.push_back(p.nodesAtLevel(l));
    const std::uint32_t mh = p.m.back();
    if (mh % 2 == 0) {
      // Nodes of level l in the half x_h < m_h / 2: half of them (x_h is an m-digit below h).
      std::size_t best = SIZE_MAX;
      for (std::size_t l = 0; l < p.height(); ++l) {
        const std::size_t half = p.nodesAtLevel(l) / 2;
        best = std::min(best, half * p.upPorts(l));
      }
      s.bisectionWidth = best;
    }
  }
  return s;
}

}  // namespace routelab
