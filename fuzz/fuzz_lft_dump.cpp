// libFuzzer target: OpenSM LFT dumps (io/lft_dump.h parseLftDump), read against the k4n2
// fixture fabric so that GUIDs and names in the seeds resolve.
#include "fuzz_common.h"
#include "io/lft_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace routelab;
  const Network& network = fuzz::fixtureNetwork();
  return fuzz::expectTypedErrorsOnly([&] {
    const RoutingResult routing = parseLftDump(fuzz::text(data, size), "fuzz.dump", network);
    // An accepted dump gives one table over the fabric's switches; every port in it is a
    // port of its switch (or kNoRoute).
    if (routing.tables.size() != 1 || routing.tables.front().switchCount() != network.switchCount()) __builtin_trap();
    const ForwardingTable& table = routing.tables.front();
    for (std::uint32_t s = 0; s < network.switchCount(); ++s) {
      for (Address a = 0; a < routing.addresses.count(); ++a) {
        const PortNumber port = table.port(s, a);
        if (port != kNoRoute && port > network.portCount(network.switchNode(s))) __builtin_trap();
      }
    }
  });
}
