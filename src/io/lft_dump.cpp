#include "io/lft_dump.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "core/errors.h"
#include "io/output.h"

namespace routelab {

namespace {

constexpr std::uint32_t kMaxUnicastLid = 0xBFFF;

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

/// Unsigned number in `base` at the start of `s`; advances `s`. nullopt if none.
std::optional<std::uint64_t> number(std::string_view& s, int base) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (error != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

/// One LFT entry: at switch `switchIndex`, LID `lid` leaves through `port`.
struct LftEntry {
  std::uint32_t switchIndex;
  std::uint32_t lid;
  PortNumber port;
  std::size_t line;
};

/// The state of reading a dump line by line: switch blocks, their entries and the node of
/// every LID named in them.
struct Parser {
  const std::string& name;
  const Network& network;
  std::size_t line = 0;
  std::unordered_map<std::uint64_t, NodeId> byPortGuid;  // switch GUIDs, CA node GUID + port
  std::unordered_map<std::uint64_t, NodeId> bySwitchGuid;
  std::vector<LftEntry> entries;
  std::map<std::uint32_t, NodeId> nodeOfLid;
  std::vector<std::uint8_t> switchSeen;
  std::uint32_t currentSwitch = UINT32_MAX;
  std::uint32_t blockLastLid = kMaxUnicastLid;
  std::size_t blocks = 0, unknownLids = 0;

  [[noreturn]] void fail(const std::string& what) const { throw ParseError(name, line, what); }

  Parser(const std::string& n, const Network& net) : name(n), network(net), switchSeen(net.switchCount(), 0) {
    for (NodeId s : network.switches()) {
      bySwitchGuid.emplace(network.guid(s), s);
      byPortGuid.emplace(network.guid(s), s);
    }
    for (NodeId t : network.terminals()) {
      for (PortNumber p = 1; p <= network.portCount(t); ++p) byPortGuid.emplace(network.guid(t) + p, t);
    }
  }

  NodeId resolve(std::string_view type, std::uint64_t portGuid, const std::string& description) const {
    const bool wantSwitch = type == "Switch";
    if (auto it = byPortGuid.find(portGuid); it != byPortGuid.end() && network.isSwitch(it->second) == wantSwitch) {
      return it->second;
    }
    if (auto node = network.findNode(description); node && network.isSwitch(*node) == wantSwitch) return *node;
    fail(fmt::format("{} '{}' (portguid 0x{:016x}) is not in the network", type, description, portGuid));
  }

  void bindLid(std::uint32_t lid, NodeId node) {
    if (lid == 0 || lid > kMaxUnicastLid) fail(fmt::format("LID {} is not a unicast LID", lid));
    const auto [it, inserted] = nodeOfLid.emplace(lid, node);
    if (!inserted && it->second != node) {
      fail(fmt::format("LID {} belongs to '{}' and to '{}'", lid, network.name(it->second), network.name(node)));
    }
  }

  /// One line of the dump (right-trimmed, not empty).
  void readLine(std::string_view s) {
    if (consume(s, "Unicast lids [")) {
      readSwitchHeader(s);
    } else if (s.substr(0, 2) == "0x") {
      s.remove_prefix(2);
      readEntry(s);
    } else {
      std::string_view rest = s;
      if (number(rest, 10) && rest == " lids dumped") return;
      fail(fmt::format("unrecognized line '{}'", s.substr(0, 60)));
    }
  }

  /// After "Unicast lids [": `0-<max>] of switch Lid <lid> guid 0x<guid> ('<desc>'):`
  void readSwitchHeader(std::string_view s) {
    const auto first = number(s, 10);
    const bool dash = first && consume(s, "-");
    const auto last = dash ? number(s, 10) : std::nullopt;
    if (!last || !consume(s, "] of switch Lid ")) {
      fail("malformed switch header (expected \"Unicast lids [0-N] of switch Lid L guid 0xG ('name'):\")");
    }
    if (*first != 0 || *last > kMaxUnicastLid) {
      fail(fmt::format("switch header range [{}-{}] is not [0-N] with N <= {} (the last unicast LID)", *first, *last,
                       kMaxUnicastLid));
    }
    blockLastLid = static_cast<std::uint32_t>(*last);
    const auto lid = number(s, 10);
    if (!lid || !consume(s, " guid 0x")) fail("malformed switch header: LID or guid missing");
    if (*lid > kMaxUnicastLid) fail(fmt::format("switch LID {} is not a unicast LID (1..{})", *lid, kMaxUnicastLid));
    const auto guid = number(s, 16);
    if (!guid || !consume(s, " ('") || s.size() < 3 || s.substr(s.size() - 3) != "'):") {
      fail("malformed switch header: guid or ('name'): missing");
    }
    const std::string description(s.substr(0, s.size() - 3));
    NodeId node;
    if (auto it = bySwitchGuid.find(*guid); it != bySwitchGuid.end()) {
      node = it->second;
    } else if (auto byName = network.findNode(description); byName && network.isSwitch(*byName)) {
      node = *byName;
    } else {
      fail(fmt::format("switch '{}' (guid 0x{:016x}) is not in the network", description, *guid));
    }
    currentSwitch = network.switchIndex(node);
    if (switchSeen[currentSwitch]) fail(fmt::format("second block for switch '{}'", network.name(node)));
    switchSeen[currentSwitch] = 1;
    ++blocks;
    if (*lid != 0) bindLid(static_cast<std::uint32_t>(*lid), node);
  }

  /// After "0x": `<lid> <port> # <type> portguid 0x<guid>: '<desc>'` or
  /// `<lid> <port> # unknown node and type`.
  void readEntry(std::string_view s) {
    const auto lid = number(s, 16);
    if (!lid || !consume(s, " ")) fail("malformed entry (expected \"0xLLLL PPP # ...\")");
    if (*lid == 0 || *lid > kMaxUnicastLid) {
      fail(fmt::format("LID 0x{:x} is not a unicast LID (1..0x{:x})", *lid, kMaxUnicastLid));
    }
    if (currentSwitch != UINT32_MAX && *lid > blockLastLid) {
      fail(fmt::format("LID {} is beyond the block's range [0-{}]", *lid, blockLastLid));
    }
    const auto port = number(s, 10);
    if (!port || !consume(s, " # ")) fail("malformed entry: port or '#' missing");
    if (currentSwitch == UINT32_MAX) fail("entry before the first \"Unicast lids\" switch header");
    const NodeId sw = network.switchNode(currentSwitch);
    if (*port > network.portCount(sw)) {
      fail(
          fmt::format("port {} is beyond the {} ports of switch '{}'", *port, network.portCount(sw), network.name(sw)));
    }
    if (s == "unknown node and type") {
      ++unknownLids;
      return;
    }
    const std::size_t typeEnd = s.find(" portguid 0x");
    if (typeEnd == std::string_view::npos) fail("malformed entry: 'portguid 0x' missing");
    const std::string_view type = s.substr(0, typeEnd);
    if (type != "Channel Adapter" && type != "Switch" && type != "Router") {
      fail(fmt::format("unknown node type '{}'", type));
    }
    s.remove_prefix(typeEnd + 12);
    const auto guid = number(s, 16);
    if (!guid || !consume(s, ": '") || s.empty() || s.back() != '\'') {
      fail("malformed entry: portguid or ': 'name'' missing");
    }
    const std::string description(s.substr(0, s.size() - 1));
    const NodeId destination = resolve(type == "Router" ? "Channel Adapter" : type, *guid, description);
    bindLid(static_cast<std::uint32_t>(*lid), destination);
    entries.push_back({currentSwitch, static_cast<std::uint32_t>(*lid), static_cast<PortNumber>(*port), line});
  }
};

/// The routing the dump describes. Addresses: nodes in order of their first LID, each
/// node's LIDs ascending.
RoutingResult lftRouting(const Parser& parser) {
  const Network& network = parser.network;
  std::map<NodeId, std::vector<std::uint32_t>> lidsOfNode;
  for (const auto& [lid, node] : parser.nodeOfLid) lidsOfNode[node].push_back(lid);
  std::vector<std::pair<std::uint32_t, NodeId>> order;
  for (const auto& [node, lids] : lidsOfNode) order.emplace_back(lids.front(), node);
  std::sort(order.begin(), order.end());
  std::vector<std::pair<NodeId, std::uint32_t>> addressBlocks;
  std::vector<std::uint32_t> lids;
  std::unordered_map<std::uint32_t, Address> addressOfLid;
  for (const auto& [firstLid, node] : order) {
    const auto& nodeLids = lidsOfNode[node];
    addressBlocks.emplace_back(node, static_cast<std::uint32_t>(nodeLids.size()));
    for (std::uint32_t lid : nodeLids) {
      addressOfLid.emplace(lid, static_cast<Address>(lids.size()));
      lids.push_back(lid);
    }
  }
  RoutingResult result;
  result.addresses = AddressMap::fromBlocks(network, std::move(addressBlocks), std::move(lids));
  result.tables.emplace_back(network.switchCount(), result.addresses.count());
  for (const LftEntry& e : parser.entries) result.tables.front().set(e.switchIndex, addressOfLid.at(e.lid), e.port);
  result.deterministic = true;
  result.minimal = false;
  std::size_t withoutLid = 0;
  for (NodeId t : network.terminals()) withoutLid += result.addresses.hasAddresses(t) ? 0 : 1;
  result.stats.emplace_back("lft_file", parser.name);
  result.stats.emplace_back("switch_blocks", std::to_string(parser.blocks));
  result.stats.emplace_back("entries", std::to_string(parser.entries.size()));
  result.stats.emplace_back("terminals_without_lid", std::to_string(withoutLid));
  result.stats.emplace_back("switches_without_block", std::to_string(network.switchCount() - parser.blocks));
  if (parser.unknownLids) result.stats.emplace_back("unknown_lid_entries", std::to_string(parser.unknownLids));
  return result;
}

}  // namespace

RoutingResult parseLftDump(const std::string& text, const std::string& name, const Network& network) {
  Parser parser(name, network);
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string_view s = trimRight(std::string_view(text).substr(begin, end - begin));
    begin = end + 1;
    ++parser.line;
    if (!s.empty()) parser.readLine(s);
  }
  if (parser.blocks == 0) {
    throw ParseError(name, parser.line, "no \"Unicast lids\" switch block: not an OpenSM LFT dump");
  }
  return lftRouting(parser);
}

RoutingResult readLftDump(const std::string& path, const Network& network) {
  return parseLftDump(readFileText(path), path, network);
}

void validateLftExport(const RoutingResult& routing) {
  if (routing.tables.size() != 1) {
    throw RoutingError(fmt::format("an LFT dump holds one forwarding table; this routing has {} (one per layer group)",
                                   routing.tables.size()));
  }
  std::uint32_t maxLid = 0;
  for (Address a = 0; a < routing.addresses.count(); ++a) maxLid = std::max(maxLid, routing.addresses.lid(a));
  if (maxLid > kMaxUnicastLid) {
    throw RoutingError(fmt::format("{} addresses need LIDs up to {}; InfiniBand unicast LIDs end at {}",
                                   routing.addresses.count(), maxLid, kMaxUnicastLid));
  }
}

void writeLftDump(const Network& network, const RoutingResult& routing, std::ostream& out,
                  std::span<const std::uint32_t> switchLids) {
  validateLftExport(routing);
  const AddressMap& addresses = routing.addresses;
  const ForwardingTable& table = routing.tables.front();
  std::uint32_t maxLid = 0;
  std::vector<Address> addressOfLid;
  for (Address a = 0; a < addresses.count(); ++a) maxLid = std::max(maxLid, addresses.lid(a));
  addressOfLid.assign(maxLid + 1, UINT32_MAX);
  for (Address a = 0; a < addresses.count(); ++a) addressOfLid[addresses.lid(a)] = a;
  // Per address: "<type> portguid 0x<guid>: '<desc>'" (built once).
  std::vector<std::string> describe(addresses.count());
  for (Address a = 0; a < addresses.count(); ++a) {
    const NodeId node = addresses.owner(a);
    std::uint64_t portGuid = network.guid(node);
    if (network.isTerminal(node)) {
      const ChannelId inject = network.injectionChannel(node);
      portGuid += inject.valid() ? network.sourcePort(inject) : 1;
    }
    describe[a] = fmt::format("{} portguid 0x{:016x}: '{}'", network.isSwitch(node) ? "Switch" : "Channel Adapter",
                              portGuid, network.name(node));
  }
  std::vector<NodeId> switches(network.switches().begin(), network.switches().end());
  std::stable_sort(switches.begin(), switches.end(),
                   [&](NodeId x, NodeId y) { return network.guid(x) < network.guid(y); });
  fmt::memory_buffer buffer;
  for (NodeId sw : switches) {
    const std::uint32_t s = network.switchIndex(sw);
    std::uint32_t ownLid = addresses.hasAddresses(sw) ? addresses.lid(addresses.base(sw)) : 0;
    if (s < switchLids.size() && switchLids[s] != 0) ownLid = switchLids[s];
    fmt::format_to(std::back_inserter(buffer), "Unicast lids [0-{}] of switch Lid {} guid 0x{:016x} ('{}'):\n", maxLid,
                   ownLid, network.guid(sw), network.name(sw));
    for (std::uint32_t lid = 0; lid <= maxLid; ++lid) {
      const Address a = addressOfLid[lid];
      if (a == UINT32_MAX) continue;
      const PortNumber port = table.port(s, a);
      if (port == kNoRoute) continue;
      fmt::format_to(std::back_inserter(buffer), "0x{:04x} {:03} # {}\n", lid, port, describe[a]);
    }
    fmt::format_to(std::back_inserter(buffer), "{} lids dumped\n", maxLid);
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
  }
}

}  // namespace routelab
