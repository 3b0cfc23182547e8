// libFuzzer target: pattern files (traffic/pattern.h parsePatternText) on the k4n2 fixture's
// 16 terminals.
#include "fuzz_common.h"
#include "traffic/pattern.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace routelab;
  const Network& network = fuzz::fixtureNetwork();
  return fuzz::expectTypedErrorsOnly([&] {
    const TrafficPattern pattern = parsePatternText(fuzz::text(data, size), "fuzz.pattern", network);
    for (const auto& pair : pattern.pairs) {
      if (pair.source >= network.terminalCount() || pair.destination >= network.terminalCount() ||
          pair.source == pair.destination) {
        __builtin_trap();
      }
    }
  });
}
