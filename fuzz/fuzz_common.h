// Shared pieces of the libFuzzer targets (docs/RELIABILITY.md, "Fuzzing").
//
// Every target feeds the input to one of the library's parse-from-text entry points. The
// typed errors of core/errors.h are the expected answer to malformed input; anything else
// (a crash, another exception, a sanitizer report, a hang, a huge allocation) is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.h"
#include "graph/network.h"
#include "io/fabric_files.h"

#ifndef ROUTELAB_FUZZ_FIXTURE_DIR
#error "ROUTELAB_FUZZ_FIXTURE_DIR must name tests/data/opensm/k4n2 (fuzz/CMakeLists.txt)"
#endif

namespace routelab::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// The fabric the LFT, SL and pattern inputs are read against: the 4-ary 2-tree fixture
/// (tests/data/opensm/k4n2, real ibnetdiscover output), loaded once.
inline const Network& fixtureNetwork() {
  static const Network network = readFabricFile(std::string(ROUTELAB_FUZZ_FIXTURE_DIR) + "/ibnetdiscover.txt");
  return network;
}

/// The invariants every accepted network keeps (graph/network.h): each channel leaves its
/// source through a port in 1..portCount that maps back to it, and its reverse starts where
/// it ends. A violation traps, so the fuzzer reports the input.
inline void checkNetwork(const Network& network) {
  for (std::size_t i = 0; i < network.channelCount(); ++i) {
    const ChannelId c(static_cast<std::uint32_t>(i));
    const NodeId from = network.source(c);
    const PortNumber port = network.sourcePort(c);
    if (port == 0 || port > network.portCount(from) || network.channelAt(from, port) != c) __builtin_trap();
    if (network.source(Network::reverse(c)) != network.target(c)) __builtin_trap();
  }
  if (network.terminalCount() + network.switchCount() != network.nodeCount()) __builtin_trap();
}

/// Run `body`; the library's typed errors are fine, everything else propagates (an escaping
/// exception aborts the fuzzer, which reports it as a crash with the input).
template <class Body>
int expectTypedErrorsOnly(Body&& body) {
  try {
    body();
  } catch (const routelab::Error&) {
  }
  return 0;
}

}  // namespace routelab::fuzz
