// routelab/sim/channel_state.h — the fast engine's state per channel, per (channel, VC) and
// per switch (sim/engine.h). Laid out for the memory system (a 4096-terminal fabric's state
// does not fit in the caches): what one step of a packet reads of a channel is in one cache
// line, and the queues of one channel lie side by side (Engine's channel records).
#pragma once

#include <cstdint>

#include "core/random.h"

namespace routelab::sim {

/// A cycle that never comes.
inline constexpr std::uint64_t kNeverCycle = ~std::uint64_t{0};

/// A channel's link (sender side), crossbar input (receiver side) and crossbar output (the
/// sending switch): the first cache line of its record.
struct alignas(64) ChannelState {
  std::uint64_t linkBusy = 0;            ///< the link is busy until (sender side)
  std::uint64_t linkWake = kNeverCycle;  ///< last cycle a link wake was scheduled for
  std::uint64_t crossbarInBusy = 0;      ///< its crossbar input (at the target switch) is busy until
  std::uint64_t outBusy = 0;             ///< the crossbar output into it (at the source switch) is busy until
  std::uint64_t outFreeVcs = 0;          ///< bit v: the output queue of VC v has a free slot
  std::uint64_t readyVcs = 0;            ///< bit v: the front packet of input queue v finished its routing delay
  std::uint32_t sourceIndex = 0;         ///< switch or terminal index of its source
  std::uint32_t targetIndex = 0;         ///< switch or terminal index of its target
  std::uint8_t linkNextVc = 0;           ///< round-robin start of the link (output queues)
  std::uint8_t inputNextVc = 0;          ///< round-robin start of the crossbar input (input queues)
  std::uint8_t sourceIsSwitch = 0;
  std::uint8_t targetIsSwitch = 0;
  std::uint8_t portBit = 0;      ///< its input port at the target switch, mod 64 (SwitchState::readyInputs)
  std::uint8_t lastGrantVc = 0;  ///< the output VC of the latest grant into it (at outBusy - flits)
  std::uint16_t outQueued = 0;   ///< packets in its output queues (all VCs; vcs x slots <= 65535)
};
static_assert(sizeof(ChannelState) == 64);
/// A (channel, VC): its input queue at the receiver, its output queue and credits at the
/// sender; the queues' packet rings and the lazy credits' cycles follow it in the record.
struct alignas(4) VcState {
  std::uint16_t inHead = 0, inSize = 0;    ///< input queue (at the target)
  std::uint16_t outHead = 0, outSize = 0;  ///< output queue (at the source)
  std::uint16_t credits = 0;               ///< sender side: credits counted (CreditFlow::available: and arrived)
  std::uint16_t creditsComing = 0;         ///< credits on their way back (sim/credit_flow.h: lazy credits)
};
/// A switch: which inputs can send, its wake, its ports, its allocator's pointer and stream.
struct alignas(64) SwitchState {
  std::uint64_t readyInputs = 0;     ///< bit p: input port p has a ready VC and an idle crossbar input (radix <= 64)
  std::uint64_t wake = kNeverCycle;  ///< last cycle a wake was scheduled for
  std::uint32_t portBegin = 0;       ///< its input channels: inPorts_[portBegin, +ports)
  std::uint32_t exitBegin = 0;       ///< its ports' exits: exits_[exitBegin + port - 1], port 1..portCount
  std::uint16_t ports = 0;           ///< connected ports (input channels)
  std::uint16_t nextInputPort = 0;   ///< round-robin start of the allocator
  std::uint16_t portCount = 0;       ///< hardware ports (Network::portCount)
  Rng rng{0};                        ///< the random selection function's stream
};
static_assert(sizeof(SwitchState) == 64);

}  // namespace routelab::sim
