// routelab/io/fabric_files.h — real fabric files: ibsim `net`, `ibnetdiscover` output,
// routelab JSON, Graphviz DOT. Formats: shared/fixtures/opensm/README.md and docs/FORMATS.md.
//
// Readers throw ParseError("<file>:<line>: <what>") on malformed input and TopologyError
// for inconsistent fabrics (asymmetric links, ports used twice); they never return a
// partial network.
#pragma once

#include <iosfwd>
#include <string>

#include "graph/network.h"

namespace routelab {

enum class FabricFormat { Auto, IbsimNet, Ibnetdiscover, Json };

/// Read a fabric file; `Auto` detects the format from the content.
Network readFabricFile(const std::string& path, FabricFormat format = FabricFormat::Auto);
/// Parse from text (`name` is used in messages).
Network parseFabricText(const std::string& text, const std::string& name, FabricFormat format = FabricFormat::Auto);

/// ibsim net file that ibsim and OpenSM accept (terminals first, then switches).
void writeIbsimNet(const Network& network, std::ostream& out);
/// routelab JSON form (docs/FORMATS.md).
void writeNetworkJson(const Network& network, std::ostream& out);
/// Graphviz DOT (undirected, one edge per cable, labelled with ports).
void writeDot(const Network& network, std::ostream& out);

}  // namespace routelab
