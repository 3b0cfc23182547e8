// libFuzzer target: fabric files, format Auto (io/fabric_files.h parseFabricText).
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace routelab;
  return fuzz::expectTypedErrorsOnly([&] {
    const Network network = parseFabricText(fuzz::text(data, size), "fuzz", FabricFormat::Auto);
    fuzz::checkNetwork(network);
  });
}
