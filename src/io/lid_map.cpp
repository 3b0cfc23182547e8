#include "io/lid_map.h"

#include <charconv>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/errors.h"
#include "io/output.h"

namespace routelab {

namespace {

constexpr std::uint32_t kMaxUnicastLid = 0xBFFF;
constexpr std::uint32_t kMaxLmc = 7;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// Unsigned number at the start of `s` ("0x" prefix = hex unless `base` is given); advances.
std::optional<std::uint64_t> number(std::string_view& s, int base = 0) {
  if (base == 0) {
    base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      s.remove_prefix(2);
      base = 16;
    }
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (error != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

template <typename Visit>
void forEachLine(const std::string& text, Visit visit) {
  std::size_t begin = 0, line = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    visit(trimmed(std::string_view(text).substr(begin, end - begin)), ++line);
    begin = end + 1;
  }
}

/// Records entries and refuses LID ranges that overlap.
class LidMapBuilder {
 public:
  explicit LidMapBuilder(const std::string& name) { map_.source = name; }

  void add(std::uint64_t portGuid, std::optional<std::pair<std::uint64_t, std::uint32_t>> nodePort, std::uint64_t lid,
           std::uint64_t lmc, std::size_t line) {
    if (lid == 0 || lid > kMaxUnicastLid)
      fail(line, fmt::format("LID {} is not a unicast LID (1..{})", lid, kMaxUnicastLid));
    if (lmc > kMaxLmc) fail(line, fmt::format("LMC {} is out of range 0..{}", lmc, kMaxLmc));
    const std::uint32_t last = static_cast<std::uint32_t>(lid + (1ULL << lmc) - 1);
    if (last > kMaxUnicastLid)
      fail(line, fmt::format("LIDs {}..{} go beyond the last unicast LID {}", lid, last, kMaxUnicastLid));
    // Ranges are disjoint: the next range starting after `lid` must start after `last`, the
    // previous one must end before `lid`.
    auto next = ranges_.lower_bound(static_cast<std::uint32_t>(lid));
    const bool overlapsNext = next != ranges_.end() && next->first <= last;
    const bool overlapsPrevious = next != ranges_.begin() && std::prev(next)->second.first >= lid;
    if (overlapsNext || overlapsPrevious) {
      const auto& other = overlapsNext ? next->second : std::prev(next)->second;
      fail(line, fmt::format("LID {} of port GUID 0x{:016x} is also a LID of port GUID 0x{:016x} (line {})", lid,
                             portGuid, other.second.first, other.second.second));
    }
    const LidMap::Entry entry{static_cast<std::uint32_t>(lid), static_cast<std::uint8_t>(lmc), line};
    if (!map_.byPortGuid.emplace(portGuid, entry).second) {
      fail(line, fmt::format("port GUID 0x{:016x} is listed twice (first at line {})", portGuid,
                             map_.byPortGuid.at(portGuid).line));
    }
    if (nodePort) map_.byNodePort[nodePort->first][nodePort->second] = entry;
    ranges_.emplace(static_cast<std::uint32_t>(lid), std::make_pair(last, std::make_pair(portGuid, line)));
  }

  [[noreturn]] void fail(std::size_t line, const std::string& what) const { throw ParseError(map_.source, line, what); }
  LidMap take() { return std::move(map_); }

 private:
  LidMap map_;
  std::map<std::uint32_t, std::pair<std::uint32_t, std::pair<std::uint64_t, std::size_t>>> ranges_;
};

/// After `key` in `s`: the number that follows, or nullopt if `key` is absent.
std::optional<std::uint64_t> valueAfter(std::string_view s, std::string_view key) {
  const std::size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  s.remove_prefix(at + key.size());
  return number(s, 10);
}

/// The GUID of an ibnetdiscover node id "S-000000000020000f" / "H-..." in a header line.
std::optional<std::uint64_t> headerGuid(std::string_view line) {
  const std::size_t quote = line.find('"');
  if (quote == std::string_view::npos || line.size() < quote + 4 || line[quote + 2] != '-') return std::nullopt;
  std::string_view id = line.substr(quote + 3);
  return number(id, 16);
}

}  // namespace

const LidMap::Entry* LidMap::find(const Network& network, NodeId node) const {
  const std::uint64_t guid = network.guid(node);
  std::uint32_t port = 0;
  if (network.isTerminal(node)) {
    const ChannelId inject = network.injectionChannel(node);
    port = inject.valid() ? network.sourcePort(inject) : 1;
  }
  if (auto it = byNodePort.find(guid); it != byNodePort.end()) {
    if (auto entry = it->second.find(port); entry != it->second.end()) return &entry->second;
  }
  auto it = byPortGuid.find(guid + port);
  return it == byPortGuid.end() ? nullptr : &it->second;
}

LidMap parseGuid2Lid(const std::string& text, const std::string& name) {
  LidMapBuilder builder(name);
  forEachLine(text, [&](std::string_view s, std::size_t line) {
    if (s.empty() || s.front() == '#') return;
    std::uint64_t values[3] = {0, 0, 0};
    for (std::uint64_t& value : values) {
      s = trimmed(s);
      const auto parsed = s.substr(0, 2) == "0x" ? number(s) : std::nullopt;
      if (!parsed) builder.fail(line, "expected '0x<port GUID> 0x<base LID> 0x<last LID>' (OpenSM guid2lid)");
      value = *parsed;
    }
    if (!trimmed(s).empty()) builder.fail(line, "expected '0x<port GUID> 0x<base LID> 0x<last LID>' (OpenSM guid2lid)");
    const std::uint64_t guid = values[0], base = values[1], last = values[2];
    const std::uint64_t count = last >= base ? last - base + 1 : 0;
    std::uint64_t lmc = 0;
    while ((1ULL << lmc) < count && lmc <= kMaxLmc) ++lmc;
    if (count == 0 || (1ULL << lmc) != count || base % count != 0) {
      builder.fail(line, fmt::format("LIDs 0x{:x}..0x{:x} are not an aligned block of 2^LMC LIDs", base, last));
    }
    builder.add(guid, std::nullopt, base, lmc, line);
  });
  return builder.take();
}

LidMap readGuid2Lid(const std::string& path) { return parseGuid2Lid(readFileText(path), path); }

LidMap parseIbnetdiscoverLids(const std::string& text, const std::string& name) {
  LidMapBuilder builder(name);
  std::uint64_t nodeGuid = 0;
  bool inCa = false;
  // A record's node GUID is that of the switchguid=/caguid= line before it, else the one in
  // its S-/H- id: the fabric reader's rule (docs/FORMATS.md "GUIDs"), so the LIDs are keyed
  // by the GUIDs the network has.
  bool guidLineBeforeRecord = false;
  forEachLine(text, [&](std::string_view s, std::size_t line) {
    if (s.starts_with("Switch") || s.starts_with("Ca") || s.starts_with("Hca")) {
      inCa = !s.starts_with("Switch");
      if (auto guid = headerGuid(s); guid && !guidLineBeforeRecord) nodeGuid = *guid;
      guidLineBeforeRecord = false;
      const std::size_t comment = s.find('#');
      if (inCa || comment == std::string_view::npos) return;
      const auto lid = valueAfter(s.substr(comment), " port 0 lid ");
      if (lid && *lid > kMaxUnicastLid) builder.fail(line, fmt::format("LID {} is not a unicast LID", *lid));
      if (lid && *lid != 0)
        builder.add(nodeGuid, std::make_pair(nodeGuid, 0U), *lid, valueAfter(s, " lmc ").value_or(0), line);
    } else if (s.starts_with("switchguid=") || s.starts_with("caguid=")) {
      std::string_view value = s.substr(s.find('=') + 1);
      if (auto guid = number(value)) {
        nodeGuid = *guid;
        guidLineBeforeRecord = true;
      }
    } else if (inCa && s.starts_with("[")) {
      // [p](<port GUID, hex>) "remote"[rp] # lid <L> lmc <M> "<remote desc>" lid <RL> <speed>
      std::string_view rest = s.substr(1);
      const auto port = number(rest, 10);
      if (!port || !rest.starts_with("](")) return;
      rest.remove_prefix(2);
      const auto portGuid = number(rest, 16);
      const std::size_t comment = s.find('#');
      if (!portGuid || comment == std::string_view::npos) return;
      std::string_view tail = trimmed(s.substr(comment + 1));
      if (!tail.starts_with("lid ")) return;
      const auto lid = valueAfter(tail, "lid ");
      if (lid && *lid > kMaxUnicastLid) builder.fail(line, fmt::format("LID {} is not a unicast LID", *lid));
      if (!lid || *lid == 0) return;
      builder.add(*portGuid, std::make_pair(nodeGuid, static_cast<std::uint32_t>(*port)), *lid,
                  valueAfter(tail, " lmc ").value_or(0), line);
    }
  });
  return builder.take();
}

RoutingResult withFabricLids(const Network& network, RoutingResult routing, const LidMap& lids) {
  const AddressMap& addresses = routing.addresses;
  std::vector<std::pair<NodeId, std::uint32_t>> blocks;
  std::vector<std::uint32_t> fabricLids(addresses.count());
  for (NodeId node : addresses.owners()) {
    const LidMap::Entry* entry = lids.find(network, node);
    const std::uint32_t count = addresses.blockSize(node);
    if (entry == nullptr) {
      throw RoutingError(fmt::format(
          "{} '{}' (GUID 0x{:016x}) has no LID in {}: the fabric's LIDs cover only part "
          "of it",
          network.isSwitch(node) ? "switch" : "terminal", network.name(node), network.guid(node), lids.source));
    }
    if (count > (1U << entry->lmc)) {
      throw RoutingError(fmt::format(
          "'{}' has {} addresses but its port has LMC {} ({} LID{}) in {}:{}; route with "
          "fewer addresses or give the fabric a larger LMC",
          network.name(node), count, entry->lmc, 1U << entry->lmc, entry->lmc ? "s" : "", lids.source, entry->line));
    }
    blocks.emplace_back(node, count);
    const Address base = addresses.base(node);
    for (std::uint32_t k = 0; k < count; ++k) fabricLids[base + k] = entry->lid + k;
  }
  routing.addresses = AddressMap::fromBlocks(network, std::move(blocks), std::move(fabricLids));
  return routing;
}

std::vector<std::uint32_t> switchLids(const Network& network, const LidMap& lids) {
  std::vector<std::uint32_t> out(network.switchCount(), 0);
  for (NodeId sw : network.switches()) {
    if (const LidMap::Entry* entry = lids.find(network, sw)) out[network.switchIndex(sw)] = entry->lid;
  }
  return out;
}

}  // namespace routelab
