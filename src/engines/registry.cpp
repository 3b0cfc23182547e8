#include "engines/registry.h"

#include "engines/families.h"

namespace routelab {

const Registry<EngineFactory>& engineRegistry() {
  static const Registry<EngineFactory> registry("routing engine", [] {
    std::vector<RegistryRow<EngineFactory>> rows;
    for (auto family : {fatTreeEngineRows(), irregularEngineRows(), tableEngineRows()}) {
      rows.insert(rows.end(), family.begin(), family.end());
    }
    return rows;
  }());
  return registry;
}

const std::vector<std::string>& engineRegisterExports(const std::string& engine) {
  static const std::vector<EngineRegisterExports> declared = [] {
    std::vector<EngineRegisterExports> out = fatTreeEngineRegisterExports();
    for (const auto& entry : out) engineRegistry().find(entry.engine);  // names a row
    return out;
  }();
  static const std::vector<std::string> none;
  engineRegistry().find(engine);
  for (const auto& entry : declared) {
    if (entry.engine == engine) return entry.formats;
  }
  return none;
}

RoutingResult runEngine(const std::string& engineSpec, const Network& network, const RoutingContext& context) {
  const ComponentSpec spec = parseComponentOrFile(engineSpec);  // `file:PATH` keeps its path verbatim
  const auto& row = engineRegistry().find(spec.name);
  const Options options(spec.name, row.options, spec);
  RoutingResult result = row.factory(options)(network, context);
  result.engine = options.effective();
  for (ForwardingTable& table : result.tables) table.compact();  // (where it pays: see compact())
  return result;
}

}  // namespace routelab
