#include "fabric/fabric.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "io/fabric_files.h"
#include "io/output.h"
#include "topology/recognize.h"

namespace routelab {

Fabric loadFabric(const std::string& text) {
  const Spec spec = parseSpec(text, {"file", "net", "ibnetdiscover", "json"});
  Fabric fabric;
  const std::string& name = spec.base.name;
  if (name == "file" || name == "net" || name == "ibnetdiscover" || name == "json") {
    const FabricFormat format = name == "net"             ? FabricFormat::IbsimNet
                                : name == "ibnetdiscover" ? FabricFormat::Ibnetdiscover
                                : name == "json"          ? FabricFormat::Json
                                                          : FabricFormat::Auto;
    const std::string& path = spec.base.positional;
    const std::string content = readFileText(path);  // refuses devices
    const FabricFormat detected = format == FabricFormat::Auto ? detectFabricFormat(content) : format;
    fabric.network = parseFabricText(content, path, detected);
    if (detected == FabricFormat::Ibnetdiscover) fabric.lids = parseIbnetdiscoverLids(content, path);
    // Imported fat-trees get their XGFT labels so that the fat-tree engines apply.
    if (!fabric.network.xgft()) {
      if (auto recognized = recognizeFatTree(fabric.network)) fabric.network = std::move(*recognized);
    }
    fabric.spec = name + ":" + spec.base.positional;
  } else {
    // A path given without its format prefix: say how a fabric file is named.
    if (!topologyRegistry().contains(name) && name.find_first_of("/.") != std::string::npos) {
      throw SpecError(
          fmt::format("unknown topology '{}': a fabric file is given as file:PATH (or net:PATH, "
                      "ibnetdiscover:PATH, json:PATH), e.g. file:{}",
                      name, name));
    }
    const auto& row = topologyRegistry().find(name);
    const Options options(name, row.options, spec.base);
    fabric.network = row.factory(options);
    fabric.spec = options.effective();
  }
  for (const ComponentSpec& modifierSpec : spec.modifiers) {
    const auto& row = modifierRegistry().find(modifierSpec.name);
    const Options options(modifierSpec.name, row.options, modifierSpec);
    ModifierReport report;
    report.modifier = options.effectiveModifier();  // re-parses after '+' (tested)
    fabric.network = row.factory(fabric.network, options, report);
    fabric.spec += "+" + report.modifier;
    fabric.modifiers.push_back(std::move(report));
  }
  fabric.network = fabric.network.withOrigin(fabric.spec);
  return fabric;
}

}  // namespace routelab
