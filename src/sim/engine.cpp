// The fast engine's two instantiations (sim/memory_policy.h) and the choice between them.
// The member definitions are in the headers below, included here only: one translation unit
// holds the whole engine, so that its hot path inlines across them.
#include "sim/engine.h"
#include "sim/engine_checks.h"
#include "sim/engine_hop.h"
#include "sim/engine_routing.h"
#include "sim/engine_run.h"
#include "sim/engine_setup.h"

namespace routelab::sim {

bool streams(const Network& network, const RoutingSemantics& semantics, const SimConfig& config) {
  const std::uint64_t keys = std::uint64_t{network.switchCount()} + network.terminalCount();
  if (keys >= Engine<Streaming>::ownerLimit() || config.grouping == SimConfig::Grouping::Never) return false;
  if (config.grouping == SimConfig::Grouping::Always) return true;  // (the tests' way to check it on small fabrics)
  const auto layers = static_cast<std::uint32_t>(semantics.routing().layerCount());
  ChannelStore records;
  records.layOut(static_cast<std::uint32_t>(network.channelCount()), config.vcs == 0 ? layers : config.vcs,
                 config.bufferPackets, 0);
  return records.bytes() > (std::size_t{1} << 21);
}
template class Engine<CacheResident>;
template class Engine<Streaming>;

}  // namespace routelab::sim
