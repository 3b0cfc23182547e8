// routelab/routing/interval_routing.h — the interval-routing register configurations of
// Gómez et al. 2007: IR for ftree-adaptive (§3.1, Figs. 1–2) and FIR for
// ftree-deterministic (§4.1, Figs. 3–4), the routers that decide from nothing but those
// registers, and their text export (format in docs/ROUTING.md).
//
// Port labels are the paper's: label = hardware port - 1, so descending links are 0..k-1 and
// ascending links k..2k-1 (graph/xgft_labels.h port mapping).
//
// IR (any XGFT): destinations are terminal numbers 0..N-1 (Gómez's node numbers
// p_{n-1}..p_0 read in base k; on an XGFT the level-0 index). Descending link j of a switch
// covers the contiguous block of its subtree's nodes whose digit at the switch's stage is j
// (FI = <o_{n-2}..o_s, j, 0..0>, LI = <o_{n-2}..o_s, j, k-1..k-1>); every ascending link
// covers the cyclic complement FI = (LI_{link k-1} + 1) mod N, LI = (FI_{link 0} - 1 + N) mod N.
//
// FIR (k-ary n-trees): destinations are FIR addresses — the node's components each stored in
// b = ceil(log2 k) bits (for k a power of two, the node number itself). Ascending link L at
// stage s: MR selects the b bits of component s, FI = LI = (L - k) << (s b), RRR has the k
// descending bits set (descending links take precedence, §4.1); descending links: IR's
// interval (in FIR addresses), MR all ones, RRR 0. A port is returned when the masked address
// lies in its cyclic interval and no port its RRR prefers is also eligible.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

/// One output port's registers. `mask` and `priority` are FIR-only (IR: all ones / 0).
struct IntervalPortRegisters {
  PortNumber port = 0;
  std::uint32_t label = 0;  ///< paper label = port - 1
  bool up = false;
  std::uint64_t first = 0, last = 0;  ///< FI, LI: cyclic interval [FI, LI]
  std::uint64_t mask = 0;             ///< MR
  std::uint64_t priority = 0;         ///< RRR: bit j set = the port labelled j goes first
};

struct IntervalSwitchRegisters {
  NodeId node;
  std::size_t stage = 0;                     ///< Gómez stage = XGFT level - 1
  std::vector<IntervalPortRegisters> ports;  ///< connected ports, increasing port number
};

struct IntervalConfiguration {
  bool flexible = false;                          ///< FIR (else IR)
  std::uint64_t destinations = 0;                 ///< N (IR: addresses 0..N-1)
  std::uint32_t bitsPerDigit = 0;                 ///< FIR: b
  std::uint32_t addressBits = 0;                  ///< FIR: n b
  std::vector<IntervalSwitchRegisters> switches;  ///< by switch index
};

/// True when `value` lies in the cyclic interval [first, last].
constexpr bool inCyclicInterval(std::uint64_t value, std::uint64_t first, std::uint64_t last) {
  return first <= last ? (first <= value && value <= last) : (value >= first || value <= last);
}

/// IR registers of every switch (Gómez §3.1). Any XGFT; UnsupportedTopology otherwise.
/// O(ports).
IntervalConfiguration buildIrConfiguration(const Network& network);
/// FIR registers of every switch (Gómez §4.1). k-ary n-trees only (XGFT(n; k..k; 1,k..k));
/// UnsupportedTopology otherwise. O(ports).
IntervalConfiguration buildFirConfiguration(const Network& network);

/// The register address of terminal `terminal` (IR: its number; FIR: components in b bits).
std::uint64_t intervalAddress(const Network& network, const IntervalConfiguration& configuration, NodeId terminal);

/// The routers: the ports (increasing) the registers of `registers` allow for `address`.
/// IR: every port whose interval contains the address. FIR: additionally drop ports that
/// an eligible port takes precedence over (RRR). O(ports); `out` is cleared first.
void routeByRegisters(const IntervalConfiguration& configuration, const IntervalSwitchRegisters& registers,
                      std::uint64_t address, std::vector<PortNumber>& out);

/// Number of (switch, terminal) pairs where the register router and `routing`'s table
/// (base address of the terminal) disagree: IR compares the candidate sets, FIR the single
/// port. O(S · N · ports).
std::uint64_t countRegisterDisagreements(const Network& network, const IntervalConfiguration& configuration,
                                         const RoutingResult& routing);

/// Text export, one block per switch (docs/ROUTING.md, "Register export").
void writeIntervalConfiguration(const Network& network, const IntervalConfiguration& configuration,
                                const std::string& engine, std::ostream& out);

}  // namespace routelab
