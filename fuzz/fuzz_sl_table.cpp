// libFuzzer target: per-pair SL / path-SL / VL tables (io/sl_table.h parseSlTable and
// applySlTable), applied to the k4n2 fixture's LASH routing (lfts.lash.dump).
#include "fuzz_common.h"
#include "io/lft_dump.h"
#include "io/sl_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace routelab;
  const Network& network = fuzz::fixtureNetwork();
  static const RoutingResult routing = readLftDump(std::string(ROUTELAB_FUZZ_FIXTURE_DIR) + "/lfts.lash.dump", network);
  const bool switchPairs = size > 0 && (data[0] & 1) != 0;
  return fuzz::expectTypedErrorsOnly([&] {
    const SlTable table = parseSlTable(fuzz::text(data, size), "fuzz.sl");
    for (const auto& entry : table.entries) {
      if (entry.sl > 15 || entry.slid == 0 || entry.dlid == 0) __builtin_trap();
    }
    const RoutingResult layered = applySlTable(network, routing, table, switchPairs);
    if (layered.layerCount() > 16) __builtin_trap();
  });
}
