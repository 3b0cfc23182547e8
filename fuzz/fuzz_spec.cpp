// libFuzzer target: fabric spec strings (core/options.h parseSpec, Options validation
// against the topology, modifier and pattern registries). Generators are not run (their
// size limits have their own tests); modifiers are applied to the small k4n2 fixture and
// patterns drawn on it, since both parse node names, ports and counts from the spec.
#include "fuzz_common.h"
#include "topology/registry.h"
#include "traffic/pattern.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace routelab;
  const Network& network = fuzz::fixtureNetwork();
  const std::string text = fuzz::text(data, size);
  fuzz::expectTypedErrorsOnly([&] {
    const Spec spec = parseSpec(text, {"file", "net", "ibnetdiscover", "json"});
    // The grammar round-trips: re-serialising and parsing again gives the same spec.
    if (parseSpec(spec.str(), {"file", "net", "ibnetdiscover", "json"}).str() != spec.str()) __builtin_trap();
    if (topologyRegistry().contains(spec.base.name)) {
      const auto& row = topologyRegistry().find(spec.base.name);
      const Options options(spec.base.name, row.options, spec.base);
      (void)options.effective();
    }
    Network current = network;
    for (const ComponentSpec& modifierSpec : spec.modifiers) {
      const auto& row = modifierRegistry().find(modifierSpec.name);
      const Options options(modifierSpec.name, row.options, modifierSpec);
      ModifierReport report;
      current = row.factory(current, options, report);
      fuzz::checkNetwork(current);
    }
  });
  fuzz::expectTypedErrorsOnly([&] {
    if (text.rfind("file:", 0) == 0) return;  // pattern files have their own target
    const TrafficPattern pattern = makePattern(text, network, 1);
    for (const auto& pair : pattern.pairs) {
      if (pair.source >= network.terminalCount() || pair.destination >= network.terminalCount()) __builtin_trap();
    }
  });
  return 0;
}
