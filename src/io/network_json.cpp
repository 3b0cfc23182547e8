// routelab JSON form of a network (schema "routelab-network", version 1; docs/FORMATS.md).
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "graph/builder.h"
#include "io/fabric_files.h"
#include "io/fabric_files_internal.h"

namespace routelab {

namespace {

constexpr const char* kSchema = "routelab-network";
constexpr int kVersion = 1;

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// Line numbers of the top-level keys and of the elements of top-level arrays, found by a
/// light scan of the text (nlohmann keeps no positions). O(text).
class JsonLines {
 public:
  explicit JsonLines(const std::string& text) {
    std::size_t line = 1, depth = 0, stringStart = 0, stringLine = 1;
    bool inString = false, escape = false, needValue = false;
    std::string lastString, currentKey;
    std::size_t lastStringLine = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (inString) {
        if (escape)
          escape = false;
        else if (c == '\\')
          escape = true;
        else if (c == '"') {
          inString = false;
          if (depth == 1) {
            lastString = text.substr(stringStart, i - stringStart);
            lastStringLine = stringLine;
          }
        } else if (c == '\n')
          ++line;
        continue;
      }
      if (c == '\n') {
        ++line;
        continue;
      }
      if (std::isspace(static_cast<unsigned char>(c))) continue;
      if (depth == 2 && needValue && c != ']') {
        elements_[currentKey].push_back(line);
        needValue = false;
      }
      switch (c) {
        case '"':
          inString = true;
          stringStart = i + 1;
          stringLine = line;
          break;
        case '{':
        case '[':
          ++depth;
          if (depth == 2 && c == '[') needValue = true;
          break;
        case '}':
        case ']':
          if (depth > 0) --depth;
          break;
        case ',':
          if (depth == 2) needValue = true;
          break;
        case ':':
          if (depth == 1) {
            currentKey = lastString;
            keys_[currentKey] = lastStringLine;
          }
          break;
        default: break;
      }
    }
  }
  std::size_t key(const std::string& name) const {
    const auto it = keys_.find(name);
    return it == keys_.end() ? 1 : it->second;
  }
  std::size_t element(const std::string& name, std::size_t index) const {
    const auto it = elements_.find(name);
    if (it == elements_.end() || index >= it->second.size()) return key(name);
    return it->second[index];
  }

 private:
  std::map<std::string, std::size_t> keys_;
  std::map<std::string, std::vector<std::size_t>> elements_;
};

std::size_t lineOfByte(const std::string& text, std::size_t byte) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

/// Reads members with checked types; failures are ParseErrors at `line`.
struct Field {
  const std::string& file;
  std::size_t line;
  std::string where;  // e.g. "nodes[3]"

  [[noreturn]] void fail(const std::string& what) const {
    throw ParseError(file, line, where.empty() ? what : where + ": " + what);
  }
  const Json& member(const Json& object, const char* key) const {
    if (!object.is_object()) fail("expected an object");
    const auto it = object.find(key);
    if (it == object.end()) fail(fmt::format("missing \"{}\"", key));
    return *it;
  }
  std::string string(const Json& object, const char* key) const {
    const Json& value = member(object, key);
    if (!value.is_string()) fail(fmt::format("\"{}\" must be a string", key));
    return value.get<std::string>();
  }
  std::uint64_t unsignedInteger(const Json& object, const char* key, std::uint64_t low, std::uint64_t high) const {
    const Json& value = member(object, key);
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
      fail(fmt::format("\"{}\" must be a non-negative integer", key));
    }
    const std::uint64_t number = value.get<std::uint64_t>();
    if (number < low || number > high) fail(fmt::format("\"{}\" = {} is out of range {}..{}", key, number, low, high));
    return number;
  }
  std::vector<std::uint32_t> unsignedList(const Json& object, const char* key) const {
    const Json& value = member(object, key);
    if (!value.is_array() || value.empty()) fail(fmt::format("\"{}\" must be a non-empty array", key));
    std::vector<std::uint32_t> out;
    for (const Json& item : value) {
      if (!item.is_number_unsigned() || item.get<std::uint64_t>() == 0 || item.get<std::uint64_t>() > 65535) {
        fail(fmt::format("\"{}\" must hold integers 1..65535", key));
      }
      out.push_back(item.get<std::uint32_t>());
    }
    return out;
  }
};

std::uint64_t parseGuid(const Json& value, const Field& field) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (!value.is_string()) field.fail("\"guid\" must be a string \"0x...\" or an integer");
  const std::string text = value.get<std::string>();
  std::uint64_t guid = 0;
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* begin = text.data() + (hex ? 2 : 0);
  const auto [end, error] = std::from_chars(begin, text.data() + text.size(), guid, hex ? 16 : 10);
  if (error != std::errc() || end != text.data() + text.size() || begin == end) {
    field.fail(fmt::format("bad \"guid\" '{}'", text));
  }
  return guid;
}

/// The parsed document; malformed JSON is a ParseError naming the line.
Json parseJsonDocument(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& error) {
    // nlohmann's message is "[json.exception.parse_error.101] parse error at line L, column C: ..."
    std::string what = error.what();
    if (const std::size_t colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    throw ParseError(file, lineOfByte(text, error.byte == 0 ? 0 : error.byte - 1), "invalid JSON: " + what);
  } catch (const Json::exception& error) {
    // Valid syntax the reader cannot represent, e.g. "[json.exception.out_of_range.406]
    // number overflow parsing '1E400'": the line is that of the token it names.
    std::string what = error.what();
    if (const std::size_t bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    std::size_t line = 1;
    const std::size_t open = what.find('\''), close = what.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
      if (at != std::string::npos) line = lineOfByte(text, at);
    }
    throw ParseError(file, line, "invalid JSON: " + what);
  }
}

/// XGFT labels: {"family", "m", "w"} at the top (node labels are read with the nodes);
/// null without "xgft".
std::shared_ptr<XgftLabels> readXgftHeader(const Json& root, const Json& nodes, const Field& xgftField) {
  if (!root.contains("xgft")) return nullptr;
  const Json& xgft = root["xgft"];
  auto labels = std::make_shared<XgftLabels>();
  labels->family = xgftField.string(xgft, "family");
  labels->params.m = xgftField.unsignedList(xgft, "m");
  labels->params.w = xgftField.unsignedList(xgft, "w");
  if (labels->params.m.size() != labels->params.w.size() || labels->params.m.size() > 254) {
    xgftField.fail("\"m\" and \"w\" must have the same length (the height, at most 254)");
  }
  labels->nodesAt.resize(labels->params.height() + 1);
  for (std::size_t level = 0; level <= labels->params.height(); ++level) {
    std::uint64_t count = 1;  // nodesAtLevel(level), bounded so that it cannot overflow
    for (std::size_t position = 1; position <= labels->params.height(); ++position) {
      count *= labels->params.base(level, position);
      if (count > nodes.size()) {
        xgftField.fail(fmt::format("{} has more nodes at level {} than the file has nodes ({})", labels->params.str(),
                                   level, nodes.size()));
      }
    }
    labels->nodesAt[level].assign(count, NodeId{});
  }
  return labels;
}

/// Node `id`'s {"level", "index"} label.
void readNodeLabel(const Json& node, const Field& field, const std::string& kind, NodeId id, XgftLabels& labels) {
  const Json& label = field.member(node, "xgft");
  const Field labelField{field.file, field.line, field.where + ".xgft"};
  const auto level = labelField.unsignedInteger(label, "level", 0, labels.params.height());
  const auto index = labelField.unsignedInteger(label, "index", 0, labels.nodesAt[level].size() - 1);
  if (labels.nodesAt[level][index].valid())
    labelField.fail(fmt::format("level {} index {} is given twice", level, index));
  if ((level == 0) != (kind == "terminal")) labelField.fail("level 0 holds exactly the terminals");
  labels.nodesAt[level][index] = id;
  labels.level.push_back(static_cast<std::uint8_t>(level));
  labels.indexInLevel.push_back(static_cast<std::uint32_t>(index));
}

/// Adds "nodes" to `builder` (and their labels); returns the id of every name.
std::unordered_map<std::string, NodeId> addJsonNodes(const Json& nodes, const JsonLines& lines, const std::string& file,
                                                     NetworkBuilder& builder, XgftLabels* labels) {
  std::unordered_map<std::string, NodeId> byName;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Field field{file, lines.element("nodes", i), fmt::format("nodes[{}]", i)};
    const Json& node = nodes[i];
    const std::string name = field.string(node, "name");
    if (name.empty()) field.fail("empty \"name\"");
    const std::string kind = field.string(node, "kind");
    if (kind != "switch" && kind != "terminal")
      field.fail(fmt::format("\"kind\" must be \"switch\" or \"terminal\", not \"{}\"", kind));
    const auto ports = static_cast<PortNumber>(field.unsignedInteger(node, "ports", 1, 254));
    const std::uint64_t guid = node.contains("guid") ? parseGuid(node["guid"], field) : 0;
    if (byName.count(name)) field.fail(fmt::format("two nodes are named \"{}\"", name));
    const NodeId id = builder.addNode(kind == "switch" ? NodeKind::Switch : NodeKind::Terminal, name, ports, guid);
    byName.emplace(name, id);
    if (labels) readNodeLabel(node, field, kind, id, *labels);
  }
  if (labels) {
    const Field xgftField{file, lines.key("xgft"), "xgft"};
    for (std::size_t level = 0; level < labels->nodesAt.size(); ++level) {
      for (std::size_t index = 0; index < labels->nodesAt[level].size(); ++index) {
        if (!labels->nodesAt[level][index].valid()) {
          xgftField.fail(fmt::format("no node has level {} index {}", level, index));
        }
      }
    }
  }
  return byName;
}

void addJsonCables(const Json& cables, const JsonLines& lines, const std::string& file,
                   const std::unordered_map<std::string, NodeId>& byName, NetworkBuilder& builder) {
  std::map<std::pair<std::uint32_t, PortNumber>, std::size_t> portLine;  // (node, port) -> line of its cable
  for (std::size_t i = 0; i < cables.size(); ++i) {
    const Field field{file, lines.element("cables", i), fmt::format("cables[{}]", i)};
    const Json& cable = cables[i];
    const std::string a = field.string(cable, "a"), b = field.string(cable, "b");
    const auto portA = static_cast<PortNumber>(field.unsignedInteger(cable, "a_port", 1, 254));
    const auto portB = static_cast<PortNumber>(field.unsignedInteger(cable, "b_port", 1, 254));
    const auto nodeA = byName.find(a), nodeB = byName.find(b);
    if (nodeA == byName.end()) field.fail(fmt::format("unknown node \"{}\"", a));
    if (nodeB == byName.end()) field.fail(fmt::format("unknown node \"{}\"", b));
    if (a == b && portA == portB) field.fail(fmt::format("port {} of \"{}\" is cabled to itself", portA, a));
    // Checked here (not left to the builder) so that messages name the line; the cable
    // keeps the direction it is written in, so a round trip reproduces the file.
    for (const auto& [node, port] : {std::pair{nodeA->second, portA}, std::pair{nodeB->second, portB}}) {
      if (port > builder.portCount(node)) {
        field.fail(
            fmt::format("port {} of \"{}\" is out of range 1..{}", port, builder.name(node), builder.portCount(node)));
      }
      if (const auto [it, inserted] = portLine.emplace(std::pair{node.value, port}, field.line); !inserted) {
        field.fail(
            fmt::format("port {}[{}] is used by two cables (also at line {})", builder.name(node), port, it->second));
      }
    }
    builder.connect(nodeA->second, portA, nodeB->second, portB);
  }
}

/// The optional "counts" must match the network read (catches truncated or hand-edited files).
void checkJsonCounts(const Json& root, const JsonLines& lines, const std::string& file, const Network& network) {
  if (!root.contains("counts")) return;
  const Field countsField{file, lines.key("counts"), "counts"};
  const Json& counts = root["counts"];
  const std::pair<const char*, std::size_t> expected[] = {
      {"terminals", network.terminalCount()}, {"switches", network.switchCount()}, {"cables", network.linkCount()}};
  for (const auto& [key, actual] : expected) {
    const std::uint64_t stated = countsField.unsignedInteger(counts, key, 0, UINT64_MAX);
    if (stated != actual) countsField.fail(fmt::format("\"{}\" says {} but the file has {}", key, stated, actual));
  }
}

}  // namespace

namespace detail {

Network parseNetworkJson(const std::string& text, const std::string& file) {
  const Json root = parseJsonDocument(text, file);
  const JsonLines lines(text);
  const Field top{file, 1, {}};
  if (!root.is_object()) top.fail("the JSON document must be an object with \"format\": \"routelab-network\"");
  const Field formatField{file, lines.key("format"), {}};
  if (formatField.string(root, "format") != kSchema) {
    formatField.fail(fmt::format("\"format\" must be \"{}\"", kSchema));
  }
  const Field versionField{file, lines.key("version"), {}};
  if (versionField.unsignedInteger(root, "version", 0, 1U << 30) != kVersion) {
    versionField.fail(fmt::format("unsupported \"version\" (this routelab reads version {})", kVersion));
  }
  const Field nodesField{file, lines.key("nodes"), {}};
  const Json& nodes = nodesField.member(root, "nodes");
  if (!nodes.is_array() || nodes.empty()) nodesField.fail("\"nodes\" must be a non-empty array");
  const Field cablesField{file, lines.key("cables"), {}};
  const Json& cables = cablesField.member(root, "cables");
  if (!cables.is_array()) cablesField.fail("\"cables\" must be an array");

  const Field xgftField{file, lines.key("xgft"), "xgft"};
  std::shared_ptr<XgftLabels> labels = readXgftHeader(root, nodes, xgftField);
  NetworkBuilder builder;
  builder.reserve(nodes.size(), cables.size());
  const auto byName = addJsonNodes(nodes, lines, file, builder, labels.get());
  addJsonCables(cables, lines, file, byName, builder);
  if (root.contains("origin") && root["origin"].is_string()) builder.setOrigin(root["origin"].get<std::string>());
  Network network = builder.build();
  checkJsonCounts(root, lines, file, network);
  if (labels) {
    try {
      checkXgftLabels(network, *labels);
    } catch (const TopologyError& error) {
      xgftField.fail(error.what());
    }
    network = network.withXgft(std::move(labels));
  }
  return network;
}

}  // namespace detail

void writeNetworkJson(const Network& network, std::ostream& out) {
  const XgftLabels* labels = network.xgft();
  // One node / cable per line so that messages about an element name a useful line.
  out << "{\n";
  out << "  \"format\": " << Json(kSchema).dump() << ",\n";
  out << "  \"version\": " << kVersion << ",\n";
  out << "  \"origin\": " << Json(network.origin()).dump(-1, ' ', false, Json::error_handler_t::replace) << ",\n";
  out << "  \"counts\": "
      << OrderedJson{{"terminals", network.terminalCount()},
                     {"switches", network.switchCount()},
                     {"cables", network.linkCount()}}
             .dump()
      << ",\n";
  if (labels) {
    out << "  \"xgft\": "
        << OrderedJson{{"family", labels->family},
                       {"m", labels->params.m},
                       {"w", labels->params.w},
                       {"params", labels->params.str()}}
               .dump()
        << ",\n";
  }
  out << "  \"nodes\": [\n";
  for (std::size_t i = 0; i < network.nodeCount(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    OrderedJson entry{{"name", network.name(node)},
                      {"kind", network.isSwitch(node) ? "switch" : "terminal"},
                      {"guid", fmt::format("0x{:016x}", network.guid(node))},
                      {"ports", network.portCount(node)}};
    if (labels) entry["xgft"] = OrderedJson{{"level", labels->level[i]}, {"index", labels->indexInLevel[i]}};
    out << "    " << entry.dump(-1, ' ', false, Json::error_handler_t::replace)
        << (i + 1 < network.nodeCount() ? ",\n" : "\n");
  }
  out << "  ],\n";
  out << "  \"cables\": [\n";
  for (std::size_t link = 0; link < network.linkCount(); ++link) {
    const ChannelId channel = ChannelId::fromIndex(2 * link);
    const OrderedJson entry{{"a", network.name(network.source(channel))},
                            {"a_port", network.sourcePort(channel)},
                            {"b", network.name(network.target(channel))},
                            {"b_port", network.targetPort(channel)}};
    out << "    " << entry.dump(-1, ' ', false, Json::error_handler_t::replace)
        << (link + 1 < network.linkCount() ? ",\n" : "\n");
  }
  out << "  ]\n";
  out << "}\n";
}

}  // namespace routelab
