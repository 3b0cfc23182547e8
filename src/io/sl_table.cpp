// Per-pair SL tables. Contract: io/sl_table.h.
#include "io/sl_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <sstream>
#include <unordered_map>

#include "core/errors.h"
#include "core/limits.h"
#include "io/output.h"

namespace routelab {

namespace {

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> result;
  std::istringstream in(line);
  std::string field;
  while (in >> field) result.push_back(field);
  return result;
}

constexpr std::uint32_t kMaxUnicastLid = 0xBFFF;

/// A decimal number in [low, high]; ParseError naming the field, the text and the range.
std::uint32_t parseNumber(const std::string& text, const std::string& what, std::uint32_t low, std::uint32_t high,
                          const std::string& name, std::size_t line) {
  const bool digits =
      !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) throw ParseError(name, line, fmt::format("{} '{}' is not a decimal number", what, text));
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < low || value > high) {
    throw ParseError(name, line, fmt::format("{} {} is out of range {}..{}", what, text, low, high));
  }
  return static_cast<std::uint32_t>(value);
}

}  // namespace

SlTable parseSlTable(const std::string& text, const std::string& name) {
  SlTable table;
  table.name = name;
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const auto parts = fields(line);
    if (parts.empty()) continue;
    if (parts.size() != 3) {
      throw ParseError(name, number, fmt::format("expected 'slid dlid sl', found {} fields", parts.size()));
    }
    SlTable::Entry entry;
    entry.line = number;
    if (parts[0] == "0" || parts[1] == "0") throw ParseError(name, number, "LID 0 is not a valid LID");
    entry.slid = parseNumber(parts[0], "slid", 1, kMaxUnicastLid, name, number);
    entry.dlid = parseNumber(parts[1], "dlid", 1, kMaxUnicastLid, name, number);
    if (parts[2] == "NA") {
      entry.answered = false;
    } else {
      entry.sl = static_cast<std::uint8_t>(parseNumber(parts[2], "SL", 0, 15, name, number));
    }
    table.entries.push_back(entry);
  }
  return table;
}

SlTable readSlTable(const std::string& path) { return parseSlTable(readFileText(path), path); }

RoutingResult applySlTable(const Network& network, RoutingResult routing, const SlTable& table, bool switchPairs) {
  const AddressMap& map = routing.addresses;
  const std::size_t addresses = map.count();
  std::unordered_map<std::uint32_t, Address> addressOfLid;
  addressOfLid.reserve(addresses);
  for (Address a = 0; a < addresses; ++a) addressOfLid.emplace(map.lid(a), a);
  auto lookup = [&](std::uint32_t lid, const char* what, std::size_t line) {
    const auto it = addressOfLid.find(lid);
    if (it == addressOfLid.end()) {
      throw ParseError(table.name, line, fmt::format("{} {} is not a LID of the routing", what, lid));
    }
    return it->second;
  };
  const std::size_t sources = map.owners().size();
  checkMemory(fmt::format("{}: layers of {} sources x {} addresses", table.name, sources, addresses),
              saturatingBytes(sources, addresses), "pairs", 1);
  std::vector<std::uint8_t> layerOf(sources * addresses, RoutingResult::kNoLayer);
  std::uint32_t layers = 1;
  for (const auto& entry : table.entries) {
    const NodeId source = map.owner(lookup(entry.slid, "slid", entry.line));
    const Address destination = lookup(entry.dlid, "dlid", entry.line);
    if (!entry.answered) continue;
    std::uint8_t& slot = layerOf[static_cast<std::size_t>(map.sourceIndex(source)) * addresses + destination];
    if (slot != RoutingResult::kNoLayer && slot != entry.sl) {
      throw ParseError(
          table.name, entry.line,
          fmt::format("pair {} -> {} listed again with SL {} (was {})", entry.slid, entry.dlid, entry.sl, slot));
    }
    slot = entry.sl;
    layers = std::max<std::uint32_t>(layers, entry.sl + 1U);
  }
  // Every pair in scope must have its SL, for at least one LID of the destination (with
  // LMC the source picks the DLID: the destination's other LIDs carry none of its traffic).
  for (NodeId source : map.owners()) {
    if (network.isSwitch(source) && !switchPairs) continue;
    const std::size_t row = static_cast<std::size_t>(map.sourceIndex(source)) * addresses;
    for (NodeId destination : map.owners()) {
      if (destination == source || (network.isSwitch(destination) && !switchPairs)) continue;
      const Address base = map.base(destination);
      const auto first = layerOf.begin() + static_cast<std::ptrdiff_t>(row + base);
      const auto last = first + map.blockSize(destination);
      if (std::all_of(first, last, [](std::uint8_t layer) { return layer == RoutingResult::kNoLayer; })) {
        throw AnalysisError(fmt::format("{}: no SL for pair slid {} dlid {} ('{}' -> '{}')", table.name,
                                        map.lid(map.base(source)), map.lid(base), network.name(source),
                                        network.name(destination)));
      }
    }
  }
  if (routing.tables.size() == 1) {
    routing.tableOfLayer.assign(layers, 0);
  } else if (layers > routing.layerCount()) {
    throw RoutingError(fmt::format("{}: SL {} needs {} layers, the routing has {} layers with their own tables",
                                   table.name, layers - 1, layers, routing.layerCount()));
  }
  routing.layerOf = std::move(layerOf);
  routing.allowedLayers.clear();
  return routing;
}

void writeSlTable(const Network& network, const RoutingResult& routing, std::ostream& out) {
  const AddressMap& map = routing.addresses;
  fmt::memory_buffer buffer;
  fmt::format_to(std::back_inserter(buffer),
                 "# slid dlid sl   (routelab {}: the SL of every ordered terminal pair, SL = layer)\n", routing.engine);
  for (NodeId source : map.owners()) {
    if (!network.isTerminal(source)) continue;
    const std::uint32_t si = map.sourceIndex(source);
    const std::uint32_t slid = map.lid(map.base(source));
    for (Address a = 0; a < map.count(); ++a) {
      const NodeId destination = map.owner(a);
      if (destination == source || !network.isTerminal(destination) || !routing.sends(si, a)) continue;
      fmt::format_to(std::back_inserter(buffer), "{} {} {}\n", slid, map.lid(a), routing.layer(si, a).index());
    }
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    buffer.clear();
  }
}

}  // namespace routelab
