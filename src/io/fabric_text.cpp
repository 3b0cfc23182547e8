// Readers of the text fabric formats: ibsim `net` files, `ibnetdiscover` output and
// `ibnetdiscover -p` output (grammar: docs/FORMATS.md; the rules follow ibsim 0.10's
// parser, sim_net.c, and the output of infiniband-diags 44 ibnetdiscover).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "graph/builder.h"
#include "io/fabric_files.h"
#include "io/fabric_files_internal.h"
#include "io/output.h"

namespace routelab {

namespace {

constexpr std::uint64_t kIbsimCaGuidBase = 0x100000;
constexpr std::uint64_t kIbsimSwitchGuidBase = 0x200000;
constexpr std::uint32_t kMaxPortNumber = 254;

bool isBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  s = trimLeft(s);
  while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
  return s;
}

using detail::excerpt;

/// Splits into lines (line i of the result is line i+1 of the file); '\r' before '\n' is dropped.
std::vector<std::string_view> splitLines(const std::string& text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

/// Rejects binary content: a NUL byte or any control character other than tab/CR/LF/FF.
void rejectBinary(const std::string& text, const std::string& file) {
  std::size_t line = 1;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      ++line;
    } else if (u < 0x20 && c != '\t' && c != '\r' && c != '\f') {
      throw ParseError(file, line, fmt::format("binary data (byte 0x{:02x}); not a text fabric file", u));
    }
  }
}

/// Parses "0x1a2b" (hex) or "123" (decimal), as ibsim's strtoull(.., 0); nullopt if malformed.
std::optional<std::uint64_t> parseInteger(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s.size() > 16) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (error != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

/// A cursor over one line; every failure is a ParseError naming the file and line.
class LineCursor {
 public:
  LineCursor(std::string_view text, const std::string& file, std::size_t line)
      : rest_(text), file_(&file), line_(line) {}

  [[noreturn]] void fail(const std::string& what) const { throw ParseError(*file_, line_, what); }
  std::string_view rest() const { return rest_; }
  bool atEnd() const { return rest_.empty(); }
  void skipBlanks() { rest_ = trimLeft(rest_); }
  void advance(std::size_t count) { rest_.remove_prefix(std::min(count, rest_.size())); }
  bool peek(char c) const { return !rest_.empty() && rest_.front() == c; }
  bool consume(char c) {
    if (!peek(c)) return false;
    rest_.remove_prefix(1);
    return true;
  }
  void expect(char c, const std::string& what) {
    if (!consume(c)) fail(fmt::format("expected {} but found '{}'", what, excerpt(rest_)));
  }

  /// Unsigned decimal number of at most 9 digits; nullopt if there is no digit.
  std::optional<std::uint32_t> number() {
    std::size_t digits = 0;
    while (digits < rest_.size() && rest_[digits] >= '0' && rest_[digits] <= '9') ++digits;
    if (digits == 0) return std::nullopt;
    if (digits > 9) fail(fmt::format("number '{}' is too large", excerpt(rest_.substr(0, digits))));
    std::uint32_t value = 0;
    std::from_chars(rest_.data(), rest_.data() + digits, value);
    rest_.remove_prefix(digits);
    return value;
  }

  /// Whitespace-delimited token (may be empty at the end of the line).
  std::string_view token() {
    skipBlanks();
    std::size_t end = 0;
    while (end < rest_.size() && !isBlank(rest_[end])) ++end;
    const std::string_view out = rest_.substr(0, end);
    rest_.remove_prefix(end);
    return out;
  }

  /// `"text"`; `what` names the field in messages.
  std::string quoted(const std::string& what) {
    if (!consume('"')) fail(fmt::format("expected the quoted {} but found '{}'", what, excerpt(rest_)));
    const std::size_t close = rest_.find('"');
    if (close == std::string_view::npos) fail(fmt::format("missing closing quote of the {}", what));
    std::string value(rest_.substr(0, close));
    rest_.remove_prefix(close + 1);
    return value;
  }

  /// `(hex)` as ibnetdiscover prints after CA port numbers; skipped.
  void skipParenthesisedGuid() {
    if (!consume('(')) return;
    const std::size_t close = rest_.find(')');
    if (close == std::string_view::npos) fail("missing ')' after the port GUID");
    const std::string_view digits = rest_.substr(0, close);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(),
                                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
      fail(fmt::format("bad port GUID '({})'", excerpt(digits)));
    }
    rest_.remove_prefix(close + 1);
  }

 private:
  std::string_view rest_;
  const std::string* file_;
  std::size_t line_;
};

PortNumber checkedPort(std::optional<std::uint32_t> value, LineCursor& cursor, const char* which) {
  if (!value) cursor.fail(fmt::format("bad {} port number at '{}'", which, excerpt(cursor.rest())));
  if (*value == 0) {
    cursor.fail(fmt::format("{} port 0 is the switch's management port and cannot be cabled (ports are 1..N)", which));
  }
  if (*value > kMaxPortNumber) {
    cursor.fail(fmt::format("{} port {} is out of range (nodes have at most {} ports)", which, *value, kMaxPortNumber));
  }
  return static_cast<PortNumber>(*value);
}

// ---- net / ibnetdiscover ----------------------------------------------------------------

struct RawLink {
  PortNumber port = 0;
  std::string remoteId;
  PortNumber remotePort = 0;
  std::size_t line = 0;
};

struct RawNode {
  NodeKind kind = NodeKind::Switch;
  std::string id;
  std::string description;
  PortNumber ports = 0;
  std::uint64_t guid = 0;
  std::size_t line = 0;
  std::vector<RawLink> links;
};

/// The NodeDescription of a header, as ibsim's parse_node_desc reads it: `# "text" ...`, or
/// `# text` up to " enhanced port ", " base port ", " lid " or " lmc ". Empty without '#'.
std::string headerDescription(LineCursor& cursor) {
  cursor.skipBlanks();
  if (cursor.atEnd()) return {};
  if (!cursor.consume('#')) {
    cursor.fail(fmt::format("unexpected text '{}' after the node id (expected '# \"NodeDescription\"')",
                            excerpt(cursor.rest())));
  }
  cursor.skipBlanks();
  if (cursor.peek('"')) return cursor.quoted("NodeDescription");
  const std::string_view rest = cursor.rest();
  std::size_t end = rest.size();
  for (std::string_view stop : {" enhanced port ", " base port ", " lid ", " lmc "}) {
    end = std::min(end, rest.find(stop));
  }
  return std::string(trim(rest.substr(0, end)));
}

/// `[port](guid)? "remote"[rport]?(guid)? (opt=value)* (# ...)?`
RawLink parsePortLine(LineCursor& cursor, std::size_t line) {
  RawLink link;
  link.line = line;
  cursor.expect('[', "'['");
  link.port = checkedPort(cursor.number(), cursor, "local");
  cursor.expect(']', "']' after the port number");
  cursor.skipParenthesisedGuid();
  cursor.skipBlanks();
  link.remoteId = cursor.quoted("remote node id");
  if (link.remoteId.empty()) cursor.fail("empty remote node id");
  if (link.remoteId.find('@') != std::string::npos) cursor.fail("ibsim port aliases ('@') are not supported");
  if (cursor.consume('[')) {
    link.remotePort = checkedPort(cursor.number(), cursor, "remote");
    cursor.expect(']', "']' after the remote port number");
  } else {
    link.remotePort = 1;  // ibsim's default when the remote port is omitted
  }
  cursor.skipParenthesisedGuid();
  cursor.skipBlanks();
  // ibsim port options w=<width> s=<speed> e=<extended speed>, then an optional comment.
  while (!cursor.atEnd() && !cursor.peek('#')) {
    const std::string_view token = cursor.token();
    const std::size_t equals = token.find('=');
    if (equals == std::string_view::npos || equals == 0 || !parseInteger(token.substr(equals + 1))) {
      cursor.fail(fmt::format("unexpected text '{}' after the remote port", excerpt(token)));
    }
    cursor.skipBlanks();
  }
  return link;
}

/// The S-/H- GUID id of ibnetdiscover ("S-0000000000200003"), if `id` is one.
std::optional<std::uint64_t> guidOfId(const std::string& id) {
  if (id.size() < 3 || (id[0] != 'S' && id[0] != 'H' && id[0] != 'R') || id[1] != '-') return std::nullopt;
  return parseInteger("0x" + id.substr(2));
}

std::string leadingKeyword(std::string_view line) {
  std::size_t end = 0;
  while (end < line.size() && std::isalpha(static_cast<unsigned char>(line[end]))) ++end;
  return std::string(line.substr(0, end));
}

/// The records of a net / ibnetdiscover file, read line by line with ibsim's GUID
/// assignment (sim_net.c new_node/parse_guidbase).
class NetRecordReader {
 public:
  NetRecordReader(const std::string& file, bool ibnetdiscover) : file_(file), ibnetdiscover_(ibnetdiscover) {}

  void readLine(std::string_view line, std::size_t lineNumber) {
    LineCursor cursor(line, file_, lineNumber);
    if (inRecord_) {
      if (!line.empty() && line.front() == '#') return;  // comments inside a record
      if (!line.empty() && line.front() == '[') {
        nodes_.back().links.push_back(parsePortLine(cursor, lineNumber));
        return;
      }
      if (!line.empty() && line.front() == '@') cursor.fail("ibsim port aliases ('@') are not supported");
      inRecord_ = false;  // a blank (or any other) line ends the record
    }
    if (line.empty() || line.front() == '#') return;
    if (line.front() == '[') cursor.fail("port line outside a node record (no 'Switch' or 'Ca' header above it)");

    const std::string keyword = leadingKeyword(line);
    if (keyword == "Switch" || keyword == "Hca" || keyword == "Ca") {
      readHeader(cursor, keyword, line, lineNumber);
    } else if (keyword == "switchguid" || keyword == "caguid" || keyword == "hcaguids") {
      readGuidBase(cursor, keyword, line);
    } else if (keyword == "vendid" || keyword == "devid" || keyword == "sysimgguid" || keyword == "width" ||
               keyword == "speed" || keyword == "extspeed" || keyword == "pdebug") {
      // Attributes ibsim accepts that do not change the cabling.
      const std::size_t equals = line.find('=');
      if (equals == std::string_view::npos) cursor.fail(fmt::format("'{}' needs '='", keyword));
      if (!parseInteger(trim(line.substr(equals + 1)))) {
        cursor.fail(fmt::format("bad value '{}' for '{}'", excerpt(trim(line.substr(equals + 1))), keyword));
      }
    } else if (keyword == "Rt" || keyword == "rtguid") {
      cursor.fail("routers ('Rt' records) are not supported");
    } else if (keyword == "include" || keyword == "module" || keyword == "do") {
      cursor.fail(fmt::format("ibsim '{}' lines are not supported; give the fabric as one file", keyword));
    } else {
      cursor.fail(fmt::format("unexpected line '{}' (expected a 'Switch', 'Hca' or 'Ca' record)", excerpt(line)));
    }
  }

  std::vector<RawNode>& nodes() { return nodes_; }
  const std::unordered_map<std::string, std::size_t>& byId() const { return byId_; }

 private:
  /// `Switch|Hca|Ca <ports> "id" # "description"`.
  void readHeader(LineCursor& cursor, const std::string& keyword, std::string_view line, std::size_t lineNumber) {
    cursor.advance(keyword.size());
    if (!cursor.atEnd() && !isBlank(cursor.rest().front())) {
      cursor.fail(fmt::format("unknown record type '{}'", excerpt(line)));
    }
    RawNode node;
    node.kind = keyword == "Switch" ? NodeKind::Switch : NodeKind::Terminal;
    node.line = lineNumber;
    cursor.skipBlanks();
    const std::optional<std::uint32_t> ports = cursor.number();
    if (!ports) {
      cursor.fail(
          fmt::format("expected the number of ports after '{}' but found '{}'", keyword, excerpt(cursor.rest())));
    }
    if (*ports == 0 || *ports > kMaxPortNumber) {
      cursor.fail(fmt::format("number of ports {} is out of range 1..{}", *ports, kMaxPortNumber));
    }
    node.ports = static_cast<PortNumber>(*ports);
    cursor.skipBlanks();
    if (cursor.atEnd()) cursor.fail(fmt::format("truncated '{}' header: missing the quoted node id", keyword));
    node.id = cursor.quoted("node id");
    if (node.id.empty()) cursor.fail("empty node id");
    if (node.id.find('#') != std::string::npos || node.id.find('@') != std::string::npos) {
      cursor.fail(fmt::format("bad node id \"{}\": '#' and '@' are reserved by ibsim", excerpt(node.id)));
    }
    node.description = headerDescription(cursor);
    const int kindSlot = node.kind == NodeKind::Switch ? 0 : 1;
    std::optional<std::uint64_t> idGuid = ibnetdiscover_ ? guidOfId(node.id) : std::nullopt;
    node.guid = (ibnetdiscover_ && !guidLineSinceRecord_ && idGuid) ? *idGuid : nextGuid_[kindSlot];
    nextGuid_[kindSlot] = node.guid + (node.kind == NodeKind::Switch ? 1 : node.ports + 1ULL);
    guidLineSinceRecord_ = false;
    if (const auto [it, inserted] = byId_.emplace(node.id, nodes_.size()); !inserted) {
      cursor.fail(
          fmt::format("node id \"{}\" is defined twice (first at line {})", excerpt(node.id), nodes_[it->second].line));
    }
    nodes_.push_back(std::move(node));
    inRecord_ = true;
  }

  /// `switchguid|caguid|hcaguids = GUID` (absolute) or `+ offset` (relative to the base).
  void readGuidBase(LineCursor& cursor, const std::string& keyword, std::string_view line) {
    const int kindSlot = keyword == "switchguid" ? 0 : 1;
    const std::size_t sign = line.find_first_of("=+");
    if (sign == std::string_view::npos) cursor.fail(fmt::format("'{}' needs '=' or '+'", keyword));
    std::string_view value = trim(line.substr(sign + 1));
    value = value.substr(0, value.find_first_of("( \t"));  // "0x200003(200003)"
    const std::optional<std::uint64_t> guid = parseInteger(value);
    if (!guid) cursor.fail(fmt::format("bad GUID '{}' in '{}'", excerpt(value), keyword));
    if (line[sign] == '+') {
      nextGuid_[kindSlot] = baseGuid_[kindSlot] + *guid;
    } else {
      baseGuid_[kindSlot] = *guid;
      nextGuid_[kindSlot] = *guid;
    }
    guidLineSinceRecord_ = true;
  }

  const std::string& file_;
  bool ibnetdiscover_;
  std::vector<RawNode> nodes_;
  std::unordered_map<std::string, std::size_t> byId_;
  // ibsim's GUID counters: next GUID per kind and the absolute base that '+' assignments
  // are relative to.
  std::uint64_t nextGuid_[2] = {kIbsimSwitchGuidBase, kIbsimCaGuidBase};
  std::uint64_t baseGuid_[2] = {kIbsimSwitchGuidBase, kIbsimCaGuidBase};
  bool guidLineSinceRecord_ = false;
  bool inRecord_ = false;
};

/// Names: net files use the node id; ibnetdiscover the NodeDescription when it is unique
/// and not some other node's id, else the S-/H- id.
std::vector<std::string> netNodeNames(const std::vector<RawNode>& nodes,
                                      const std::unordered_map<std::string, std::size_t>& byId, bool ibnetdiscover) {
  std::vector<std::string> names(nodes.size());
  if (!ibnetdiscover) {
    for (std::size_t i = 0; i < nodes.size(); ++i) names[i] = nodes[i].id;
    return names;
  }
  std::unordered_map<std::string, std::size_t> descriptionCount;
  for (const RawNode& node : nodes) ++descriptionCount[node.description];
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string& description = nodes[i].description;
    const auto owner = byId.find(description);
    const bool usable =
        !description.empty() && descriptionCount[description] == 1 && (owner == byId.end() || owner->second == i);
    names[i] = usable ? description : nodes[i].id;
  }
  return names;
}

/// GUIDs are unique (ibsim refuses duplicates too).
void requireUniqueGuids(const std::vector<RawNode>& nodes, const std::string& file) {
  std::unordered_map<std::uint64_t, std::size_t> byGuid;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (const auto [it, inserted] = byGuid.emplace(nodes[i].guid, i); !inserted) {
      throw ParseError(file, nodes[i].line,
                       fmt::format("GUID 0x{:016x} of \"{}\" is also the GUID of \"{}\" (line {})", nodes[i].guid,
                                   nodes[i].id, nodes[it->second].id, nodes[it->second].line));
    }
  }
}

/// The network of the records, in canonical order: terminals, then switches; file order
/// (net) or ascending GUID (ibnetdiscover).
Network buildNetNetwork(const std::vector<RawNode>& nodes, const std::unordered_map<std::string, std::size_t>& byId,
                        const std::vector<std::string>& names, const std::string& file, bool ibnetdiscover) {
  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const bool terminalA = nodes[a].kind == NodeKind::Terminal, terminalB = nodes[b].kind == NodeKind::Terminal;
    if (terminalA != terminalB) return terminalA;
    return ibnetdiscover && nodes[a].guid < nodes[b].guid;
  });

  NetworkBuilder builder;
  std::size_t halves = 0;
  for (const RawNode& node : nodes) halves += node.links.size();
  builder.reserve(nodes.size(), halves / 2);
  std::vector<NodeId> idOf(nodes.size());
  for (std::size_t i : order) idOf[i] = builder.addNode(nodes[i].kind, names[i], nodes[i].ports, nodes[i].guid);
  for (std::size_t i = 0; i < nodes.size(); ++i) {  // file order: errors name the first offending line
    for (const RawLink& link : nodes[i].links) {
      const auto remote = byId.find(link.remoteId);
      if (remote == byId.end()) {
        throw ParseError(file, link.line,
                         fmt::format("unknown remote node \"{}\" (no record has this id)", excerpt(link.remoteId)));
      }
      if (remote->second == i && link.remotePort == link.port) {
        throw ParseError(file, link.line, fmt::format("port {} of \"{}\" is cabled to itself", link.port, nodes[i].id));
      }
      builder.addHalfLink(idOf[i], link.port, idOf[remote->second], link.remotePort,
                          fmt::format("{}:{}", file, link.line));
    }
  }
  builder.setOrigin(fmt::format("{}:{}", ibnetdiscover ? "ibnetdiscover" : "net", file));
  return builder.build();
}

}  // namespace

namespace detail {

std::string excerpt(std::string_view s, std::size_t limit) {
  std::string out;
  for (char c : s.substr(0, limit)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u >= 0x7f) ? fmt::format("\\x{:02x}", u) : std::string(1, c);
  }
  if (s.size() > limit) out += "...";
  return out;
}

}  // namespace detail

namespace detail {

Network parseNetText(const std::string& text, const std::string& file, bool ibnetdiscover) {
  rejectBinary(text, file);
  const std::vector<std::string_view> lines = splitLines(text);
  NetRecordReader reader(file, ibnetdiscover);
  for (std::size_t index = 0; index < lines.size(); ++index) reader.readLine(trim(lines[index]), index + 1);
  const std::vector<RawNode>& nodes = reader.nodes();
  if (nodes.empty()) {
    throw ParseError(file, std::max<std::size_t>(1, lines.size()),
                     "no 'Switch', 'Hca' or 'Ca' records: empty or not a fabric file");
  }
  requireUniqueGuids(nodes, file);
  return buildNetNetwork(nodes, reader.byId(), netNodeNames(nodes, reader.byId(), ibnetdiscover), file, ibnetdiscover);
}

}  // namespace detail

// ---- ibnetdiscover -p --------------------------------------------------------------------

namespace {

struct PortEnd {
  bool isSwitch = false;
  PortNumber port = 0;
  std::uint64_t nodeGuid = 0;
};
struct PortListNode {
  bool isSwitch = false;
  std::uint64_t guid = 0;
  std::string description;
  PortNumber ports = 0;
  std::size_t line = 0;
};
struct PortListHalf {
  PortEnd local, remote;
  std::size_t line = 0;
};
using PortListNodes = std::map<std::pair<bool, std::uint64_t>, PortListNode>;  // (isSwitch, node GUID)

/// `<CA|SW> <lid> <port> <port guid>`; a CA's node GUID is its port GUID minus the port
/// number (the ibsim and ConnectX convention), a switch's port GUID is its node GUID.
PortEnd readPortEnd(LineCursor& cursor, const char* which) {
  PortEnd end;
  const std::string_view type = cursor.token();
  if (type == "SW")
    end.isSwitch = true;
  else if (type != "CA") {
    cursor.fail(fmt::format("expected the {} node type CA or SW but found '{}'", which, excerpt(type)));
  }
  cursor.skipBlanks();
  if (!cursor.number()) cursor.fail(fmt::format("bad {} LID at '{}'", which, excerpt(cursor.rest())));
  cursor.skipBlanks();
  end.port = checkedPort(cursor.number(), cursor, which);
  const std::string_view guidText = cursor.token();
  const std::optional<std::uint64_t> guid = guidText.starts_with("0x") ? parseInteger(guidText) : std::nullopt;
  if (!guid) cursor.fail(fmt::format("bad {} port GUID '{}'", which, excerpt(guidText)));
  // A CA's node GUID is its port GUID minus the port number; 0 is no GUID in InfiniBand (and
  // the builder's "assign ibsim's default"), so a port GUID not above its port number is refused.
  if (!end.isSwitch && *guid <= end.port) {
    cursor.fail(fmt::format("bad {} port GUID '{}': a CA's port GUID is its node GUID (not 0) plus the port number {}",
                            which, excerpt(guidText), end.port));
  }
  end.nodeGuid = end.isSwitch ? *guid : *guid - end.port;
  return end;
}

void notePortListNode(PortListNodes& nodes, const PortEnd& end, const std::string& description, std::size_t line) {
  PortListNode& node = nodes[{end.isSwitch, end.nodeGuid}];
  if (node.line == 0) {
    node.isSwitch = end.isSwitch;
    node.guid = end.nodeGuid;
    node.line = line;
  }
  if (node.description.empty()) node.description = description;
  node.ports = std::max(node.ports, end.port);
}

/// A port line split into its fields and its descriptions: "( 'a' - 'b' )" for connected
/// ports, "'a'" for down ports.
struct PortListLine {
  std::string_view fields;
  std::string localDescription, remoteDescription;
};

PortListLine splitPortListLine(std::string_view line, const std::string& file, std::size_t lineNumber) {
  PortListLine out;
  out.fields = line;
  if (const std::size_t open = line.find("( '"); open != std::string_view::npos) {
    const std::string_view tail = line.substr(open + 3);
    const std::size_t separator = tail.find("' - '");
    const std::size_t close = tail.rfind("' )");
    if (separator == std::string_view::npos || close == std::string_view::npos || close < separator) {
      throw ParseError(file, lineNumber, fmt::format("malformed descriptions '{}'", excerpt(line.substr(open))));
    }
    out.localDescription = std::string(tail.substr(0, separator));
    out.remoteDescription = std::string(tail.substr(separator + 5, close - separator - 5));
    out.fields = line.substr(0, open);
  } else if (const std::size_t quote = line.find('\''); quote != std::string_view::npos) {
    const std::size_t close = line.rfind('\'');
    if (close == quote) throw ParseError(file, lineNumber, "missing closing quote of the NodeDescription");
    out.localDescription = std::string(line.substr(quote + 1, close - quote - 1));
    out.fields = line.substr(0, quote);
  }
  return out;
}

/// Terminals first, each kind by ascending GUID; a node is named by its description when
/// that is unique, else S-/H-<GUID>.
Network buildPortListNetwork(const PortListNodes& nodes, const std::vector<PortListHalf>& halves,
                             const std::string& file) {
  std::unordered_map<std::string, std::size_t> descriptionCount;
  for (const auto& [key, node] : nodes) ++descriptionCount[node.description];
  NetworkBuilder builder;
  builder.reserve(nodes.size(), halves.size() / 2);
  std::map<std::pair<bool, std::uint64_t>, NodeId> idOf;
  for (bool switches : {false, true}) {
    for (const auto& [key, node] : nodes) {
      if (node.isSwitch != switches) continue;
      const bool unique = !node.description.empty() && descriptionCount[node.description] == 1;
      const std::string name = unique ? node.description : fmt::format("{}-{:016x}", switches ? 'S' : 'H', node.guid);
      idOf[key] = builder.addNode(switches ? NodeKind::Switch : NodeKind::Terminal, name, node.ports, node.guid);
    }
  }
  for (const PortListHalf& half : halves) {
    const NodeId a = idOf.at({half.local.isSwitch, half.local.nodeGuid});
    const NodeId b = idOf.at({half.remote.isSwitch, half.remote.nodeGuid});
    if (a == b && half.local.port == half.remote.port) {
      throw ParseError(file, half.line, fmt::format("port {} is cabled to itself", half.local.port));
    }
    builder.addHalfLink(a, half.local.port, b, half.remote.port, fmt::format("{}:{}", file, half.line));
  }
  builder.setOrigin("ibnetdiscover-p:" + file);
  return builder.build();
}

}  // namespace

namespace detail {

Network parsePortListText(const std::string& text, const std::string& file) {
  rejectBinary(text, file);
  const std::vector<std::string_view> lines = splitLines(text);
  PortListNodes nodes;
  std::vector<PortListHalf> halves;
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::size_t lineNumber = index + 1;
    const std::string_view line = trim(lines[index]);
    if (line.empty() || line.front() == '#') continue;
    const PortListLine parts = splitPortListLine(line, file, lineNumber);
    LineCursor cursor(parts.fields, file, lineNumber);
    const PortEnd local = readPortEnd(cursor, "local");
    cursor.token();  // width, e.g. "4x"
    cursor.token();  // speed, e.g. "SDR"
    notePortListNode(nodes, local, parts.localDescription, lineNumber);
    cursor.skipBlanks();
    if (cursor.atEnd()) continue;  // a port that is down
    if (!cursor.consume('-')) cursor.fail(fmt::format("unexpected text '{}'", excerpt(cursor.rest())));
    const PortEnd remote = readPortEnd(cursor, "remote");
    cursor.skipBlanks();
    if (!cursor.atEnd()) cursor.fail(fmt::format("unexpected text '{}'", excerpt(cursor.rest())));
    notePortListNode(nodes, remote, parts.remoteDescription, lineNumber);
    halves.push_back({local, remote, lineNumber});
  }
  if (nodes.empty()) {
    throw ParseError(file, std::max<std::size_t>(1, lines.size()),
                     "no port lines: empty or not ibnetdiscover -p output");
  }
  return buildPortListNetwork(nodes, halves, file);
}

}  // namespace detail

// ---- detection and dispatch --------------------------------------------------------------

const char* fabricFormatName(FabricFormat format) {
  switch (format) {
    case FabricFormat::Auto: return "auto";
    case FabricFormat::IbsimNet: return "net";
    case FabricFormat::Ibnetdiscover: return "ibnetdiscover";
    case FabricFormat::IbnetdiscoverPorts: return "ibnetdiscover-p";
    case FabricFormat::Json: return "json";
  }
  return "unknown";
}

FabricFormat detectFabricFormat(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  if (start < text.size() && text[start] == '{') return FabricFormat::Json;
  if (text.starts_with("# ibsim net file written by routelab")) return FabricFormat::IbsimNet;
  if (text.find("# Topology file:") != std::string::npos) return FabricFormat::Ibnetdiscover;
  for (std::string_view line : splitLines(text)) {
    line = trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("CA ") || line.starts_with("SW ")) return FabricFormat::IbnetdiscoverPorts;
    const std::string keyword = leadingKeyword(line);
    if (keyword == "Switch" || keyword == "Hca" || keyword == "Ca") {
      const std::size_t quote = line.find('"');
      const bool guidId = quote != std::string_view::npos && line.size() > quote + 3 &&
                          (line[quote + 1] == 'S' || line[quote + 1] == 'H') && line[quote + 2] == '-' &&
                          guidOfId(std::string(line.substr(quote + 1, line.find('"', quote + 1) - quote - 1)));
      return guidId ? FabricFormat::Ibnetdiscover : FabricFormat::IbsimNet;
    }
  }
  return FabricFormat::IbsimNet;
}

Network parseFabricText(const std::string& text, const std::string& name, FabricFormat format) {
  if (format == FabricFormat::Auto) format = detectFabricFormat(text);
  switch (format) {
    case FabricFormat::Json: return detail::parseNetworkJson(text, name);
    case FabricFormat::IbnetdiscoverPorts: return detail::parsePortListText(text, name);
    case FabricFormat::Ibnetdiscover: return detail::parseNetText(text, name, true);
    case FabricFormat::IbsimNet:
    case FabricFormat::Auto: break;
  }
  return detail::parseNetText(text, name, false);
}

Network readFabricFile(const std::string& path, FabricFormat format) {
  return parseFabricText(readFileText(path), path, format);  // readFileText refuses devices
}

}  // namespace routelab
