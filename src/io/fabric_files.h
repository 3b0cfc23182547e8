// routelab/io/fabric_files.h — real fabric files: ibsim `net`, `ibnetdiscover` output
// (plain and `-p`), routelab JSON, Graphviz DOT. Formats field by field: docs/FORMATS.md
// and tests/data/opensm/README.md.
//
// Readers contract:
//   * they throw ParseError("<file>:<line>: <what>") on malformed text, TopologyError
//     ("<file>:<line>: ...") for inconsistent fabrics (asymmetric links, a port listed
//     twice, a port out of range) and IoError for files that cannot be read; they never
//     return a partial network;
//   * canonical node order: all terminals, then all switches; within a kind in file order
//     for ibsim net and JSON files, in ascending node GUID for ibnetdiscover output (ibsim
//     assigns GUIDs in net-file order, so this reproduces the order of the generator that
//     wrote the net file the fabric was simulated from);
//   * GUIDs: net files follow ibsim 0.10 (CA GUIDs 0x100000 + ..., each CA reserving
//     ports+1 GUIDs; switches 0x200000 + i; `switchguid=`/`caguid=` lines reset the next
//     GUID); ibnetdiscover output takes them from `switchguid=`/`caguid=` or the S-/H- ids;
//   * node names: net files the quoted node id; ibnetdiscover the NodeDescription when it
//     is unique in the file, else the S-/H- id.
// Linear time and memory in the size of the file.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "graph/network.h"
#include "io/output.h"

namespace routelab {

enum class FabricFormat {
  Auto,                ///< detect from the content (detectFabricFormat)
  IbsimNet,            ///< ibsim `net` file
  Ibnetdiscover,       ///< `ibnetdiscover` output (same grammar as net, GUID ids)
  IbnetdiscoverPorts,  ///< `ibnetdiscover -p` output (one line per port end)
  Json,                ///< routelab JSON (docs/FORMATS.md)
};

/// "net", "ibnetdiscover", "ibnetdiscover-p", "json" ("auto" for Auto).
const char* fabricFormatName(FabricFormat format);

/// Guess the format of `text`: JSON if it starts with '{'; ibsim net if it starts with the
/// banner of writeIbsimNet; ibnetdiscover if it has ibnetdiscover's "# Topology file:"
/// banner or its first record uses an S-/H- GUID id; `ibnetdiscover -p` if the first
/// content line starts with "CA " or "SW "; otherwise ibsim net. Never throws; text that
/// is no fabric at all is reported by the reader.
FabricFormat detectFabricFormat(const std::string& text);

/// Read a fabric file (gzip-compressed files are accepted); `Auto` detects the format.
Network readFabricFile(const std::string& path, FabricFormat format = FabricFormat::Auto);
/// Parse from text (`name` is the file name used in messages).
Network parseFabricText(const std::string& text, const std::string& name, FabricFormat format = FabricFormat::Auto);

/// ibsim net file that ibsim and OpenSM accept: terminals first, then switches (each in
/// node-id order), node name as id and NodeDescription, `caguid=`/`switchguid=` lines
/// wherever ibsim's own assignment would give another GUID than the network's, so the
/// simulated fabric keeps our GUIDs. Throws TopologyError for names ibsim cannot take
/// (containing '"', '#', '@', control characters, or longer than 63 bytes).
void writeIbsimNet(const Network& network, std::ostream& out);
/// routelab JSON form (docs/FORMATS.md): nodes with kind/name/guid/ports, cables with both
/// ends, origin, and the XGFT labels when present (a JSON round trip keeps them). Text is
/// written as UTF-8 as it is (a name or path reads and greps as the user typed it), and bytes
/// that are not UTF-8 (a NodeDescription cut inside a character) become U+FFFD: never an error.
void writeNetworkJson(const Network& network, std::ostream& out);
/// Graphviz DOT (undirected, one edge per cable, ports as tail/head labels; fat-trees are
/// drawn level by level).
void writeDot(const Network& network, std::ostream& out);

/// The fabric files an export writes: "net" (writeIbsimNet), "dot" (writeDot), "json"
/// (writeNetworkJson) — what `routelab topo --export` and Python's `Fabric.export` offer.
const std::vector<std::string>& fabricExportKinds();
/// Writes the fabric in every requested format, all or nothing (writeFilesAtomically).
/// Throws SpecError "export: unknown format 'KIND' (net, dot, json)" before writing
/// anything, IoError for a file that cannot be written.
void writeFabricExports(const Network& network, const std::vector<ExportFile>& exports);

}  // namespace routelab
