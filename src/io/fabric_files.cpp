#include "io/fabric_files.h"

#include "core/errors.h"

namespace routelab {

Network readFabricFile(const std::string& path, FabricFormat) { throw IoError("file import not implemented yet: " + path); }
Network parseFabricText(const std::string&, const std::string& name, FabricFormat) {
  throw IoError("file import not implemented yet: " + name);
}
void writeIbsimNet(const Network&, std::ostream&) { throw IoError("net export not implemented yet"); }
void writeNetworkJson(const Network&, std::ostream&) { throw IoError("json export not implemented yet"); }
void writeDot(const Network&, std::ostream&) { throw IoError("dot export not implemented yet"); }

}  // namespace routelab
