// Writers of ibsim net files and Graphviz DOT (formats: docs/FORMATS.md).
#include "io/fabric_files.h"
#include "io/fabric_files_internal.h"

#include <ostream>
#include <string>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"

namespace routelab {

namespace {

constexpr std::uint64_t kIbsimCaGuidBase = 0x100000;
constexpr std::uint64_t kIbsimSwitchGuidBase = 0x200000;
/// ibsim's NODEIDLEN is 65 bytes with the terminating NUL; NodeDescription is 64 bytes.
constexpr std::size_t kMaxIbsimName = 64;

/// The name is quoted escaped (detail::excerpt): a control byte, a NUL included, cannot cut or
/// garble the message.
void checkIbsimName(const std::string& name) {
  if (name.size() > kMaxIbsimName) {
    throw TopologyError(
        fmt::format("cannot write node '{}' to an ibsim net file: names are limited to {} bytes (this one has {})",
                    detail::excerpt(name, kMaxIbsimName), kMaxIbsimName, name.size()));
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto u = static_cast<unsigned char>(name[i]);
    if (u == '"' || u == '#' || u == '@' || u < 0x20 || u == 0x7f) {
      throw TopologyError(fmt::format(
          "cannot write node '{}' to an ibsim net file: '\"', '#', '@' and control characters are reserved (byte {} "
          "is '{}')",
          detail::excerpt(name, kMaxIbsimName), i + 1, detail::excerpt(name.substr(i, 1))));
    }
  }
}

/// One-line text for a comment: control characters become '?'.
std::string commentText(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  return out;
}

std::string dotQuoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

void writeIbsimNet(const Network& network, std::ostream& out) {
  std::unordered_set<std::uint64_t> guids;
  std::size_t ports = 0;
  for (std::size_t i = 0; i < network.nodeCount(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    checkIbsimName(network.name(node));
    if (!guids.insert(network.guid(node)).second) {
      throw TopologyError(fmt::format("cannot write an ibsim net file: GUID 0x{:016x} of '{}' is used twice",
                                      network.guid(node), network.name(node)));
    }
    ports += network.portCount(node) + (network.isSwitch(node) ? 1 : 0);
  }
  out << "# ibsim net file written by routelab\n";
  if (!network.origin().empty()) out << "# origin: " << commentText(network.origin()) << '\n';
  if (network.xgft()) out << "# structure: " << network.xgft()->params.str() << '\n';
  out << fmt::format("# totals: {} switches, {} CAs, {} links, {} ports (switch port 0 included)\n",
                     network.switchCount(), network.terminalCount(), network.linkCount(), ports);
  out << fmt::format("# ibsim needs -S >= {} -N >= {} -P >= {} beyond its defaults (256/2048/13312)\n",
                     network.switchCount(), network.nodeCount(), ports);
  out << "# record: <Hca|Switch> <ports> \"<node id>\" # \"<NodeDescription>\", then [<port>] \"<remote id>\"[<remote "
         "port>]\n";
  out << "# GUIDs as ibsim assigns them in file order, set by caguid=/switchguid= lines where they differ\n\n";

  // ibsim 0.10 assigns CA GUIDs from 0x100000 (each CA reserving ports+1 GUIDs) and
  // switch GUIDs from 0x200000 (one each) in file order; `caguid=`/`switchguid=` reset them.
  std::uint64_t nextCa = kIbsimCaGuidBase, nextSwitch = kIbsimSwitchGuidBase;
  auto writeNode = [&](NodeId node) {
    const bool isSwitch = network.isSwitch(node);
    std::uint64_t& next = isSwitch ? nextSwitch : nextCa;
    const std::uint64_t guid = network.guid(node);
    if (guid != next) out << fmt::format("{}=0x{:x}\n", isSwitch ? "switchguid" : "caguid", guid);
    next = guid + (isSwitch ? 1 : network.portCount(node) + 1ULL);
    out << fmt::format("{}\t{} \"{}\"\t\t# \"{}\"\n", isSwitch ? "Switch" : "Hca", network.portCount(node),
                       network.name(node), network.name(node));
    for (ChannelId channel : network.outChannels(node)) {
      out << fmt::format("[{}]\t\"{}\"[{}]\n", network.sourcePort(channel), network.name(network.target(channel)),
                         network.targetPort(channel));
    }
    out << '\n';
  };
  for (NodeId terminal : network.terminals()) writeNode(terminal);
  for (NodeId switchNode : network.switches()) writeNode(switchNode);
}

void writeDot(const Network& network, std::ostream& out) {
  out << "// Graphviz DOT written by routelab: one edge per cable, ports as tail/head labels\n";
  if (!network.origin().empty()) out << "// origin: " << commentText(network.origin()) << '\n';
  out << "graph routelab {\n";
  out << "  graph [rankdir=BT, splines=true, overlap=false];\n";
  out << "  node [shape=box, style=filled, fillcolor=lightsteelblue];\n";
  for (std::size_t i = 0; i < network.nodeCount(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    out << "  " << dotQuoted(network.name(node));
    if (network.isTerminal(node)) out << " [shape=ellipse, fillcolor=khaki]";
    out << fmt::format(" // guid 0x{:016x}, {} ports\n", network.guid(node), network.portCount(node));
  }
  if (const XgftLabels* labels = network.xgft()) {
    for (std::size_t level = 0; level < labels->nodesAt.size(); ++level) {
      out << "  { rank=same; // level " << level << '\n';
      for (NodeId node : labels->nodesAt[level]) out << "    " << dotQuoted(network.name(node)) << ";\n";
      out << "  }\n";
    }
  }
  for (std::size_t link = 0; link < network.linkCount(); ++link) {
    const ChannelId channel = ChannelId::fromIndex(2 * link);
    out << fmt::format(
        "  {} -- {} [taillabel=\"{}\", headlabel=\"{}\"];\n", dotQuoted(network.name(network.source(channel))),
        dotQuoted(network.name(network.target(channel))), network.sourcePort(channel), network.targetPort(channel));
  }
  out << "}\n";
}

const std::vector<std::string>& fabricExportKinds() {
  static const std::vector<std::string> kinds = {"net", "dot", "json"};
  return kinds;
}

void writeFabricExports(const Network& network, const std::vector<ExportFile>& exports) {
  requireExportKinds(exports, fabricExportKinds(), "format");
  std::vector<OutputFile> files;
  for (const ExportFile& e : exports) {
    const std::string kind = e.kind;
    files.push_back({e.path, [&network, kind](std::ostream& out) {
                       if (kind == "net")
                         writeIbsimNet(network, out);
                       else if (kind == "dot")
                         writeDot(network, out);
                       else
                         writeNetworkJson(network, out);
                     }});
  }
  writeFilesAtomically(files);
}

}  // namespace routelab
