// Fault modifiers (see faults.h for the syntax and the contract).
#include "topology/faults.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/random.h"
#include "graph/algorithms.h"
#include "graph/builder.h"

namespace routelab {

namespace {

/// The count N of `+name=N`: required, a non-negative integer.
std::size_t countArgument(const Options& options) {
  const std::string& name = options.component();
  if (options.positional().empty()) {
    throw SpecError(fmt::format("{}: missing count, write +{}=N[,seed=S]", name, name));
  }
  const std::int64_t count = parseInteger(options.positional(), name + ": count N");
  if (count < 0) throw SpecError(fmt::format("{}: count N must be >= 0, got {}", name, count));
  return static_cast<std::size_t>(count);
}

/// `count` distinct entries of `candidates` chosen uniformly (partial Fisher–Yates with
/// Rng(seed)), returned in increasing order. Precondition: count <= candidates.size().
template <class T>
std::vector<T> chooseDistinct(std::vector<T> candidates, std::size_t count, std::uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = 0; i < count; ++i) {
    const auto j = i + static_cast<std::size_t>(rng.below(candidates.size() - i));
    std::swap(candidates[i], candidates[j]);
  }
  candidates.resize(count);
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

std::uint64_t seedOption(const Options& options) {
  return static_cast<std::uint64_t>(options.integerIn("seed", 0, std::numeric_limits<std::int64_t>::max()));
}

/// A node by name, or by GUID written 0x<hex>. Throws SpecError naming the modifier.
NodeId resolveNode(const Network& network, std::string_view text, const std::string& modifier) {
  if (text.empty()) throw SpecError(fmt::format("{}: empty node name", modifier));
  if (auto node = network.findNode(std::string(text))) return *node;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::uint64_t guid = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data() + 2, end, guid, 16);
    if (ec == std::errc() && ptr == end) {
      for (std::size_t i = 0; i < network.nodeCount(); ++i) {
        if (network.guid(NodeId::fromIndex(i)) == guid) return NodeId::fromIndex(i);
      }
    }
  }
  throw SpecError(fmt::format("{}: no node named '{}' in the fabric", modifier, text));
}

std::string describeCable(const Network& network, std::size_t link) {
  const ChannelId c = ChannelId::fromIndex(2 * link);
  return fmt::format("{} -- {}", network.describePort(network.source(c), network.sourcePort(c)),
                     network.describePort(network.target(c), network.targetPort(c)));
}

// ---- the parsers of the given-element lists --------------------------------------------

/// One cable end "name[port]" starting at `pos`; advances `pos` past ']'.
ChannelId parseCableEnd(const Network& network, std::string_view text, std::size_t& pos, const std::string& modifier) {
  const std::size_t open = text.find('[', pos);
  if (open == std::string_view::npos) {
    throw SpecError(
        fmt::format("{}: expected name[port] at '{}' (write +remove-links=a[p].b[q]...)", modifier, text.substr(pos)));
  }
  const std::size_t close = text.find(']', open);
  if (close == std::string_view::npos) {
    throw SpecError(fmt::format("{}: missing ']' after '{}'", modifier, text.substr(pos)));
  }
  const NodeId node = resolveNode(network, text.substr(pos, open - pos), modifier);
  const std::int64_t port = parseInteger(text.substr(open + 1, close - open - 1),
                                         fmt::format("{}: port of '{}'", modifier, network.name(node)));
  if (port < 1 || port > network.portCount(node)) {
    throw SpecError(fmt::format("{}: port {} of '{}' is out of range 1..{}", modifier, port, network.name(node),
                                network.portCount(node)));
  }
  const ChannelId channel = network.channelAt(node, static_cast<PortNumber>(port));
  if (!channel.valid()) {
    throw SpecError(
        fmt::format("{}: {} is not cabled", modifier, network.describePort(node, static_cast<PortNumber>(port))));
  }
  pos = close + 1;
  return channel;
}

/// Cable indices of `END(.END)*`, END = name[port] or name[port]:name[port].
std::vector<std::size_t> parseCableList(const Network& network, std::string_view text, const std::string& modifier) {
  if (text.empty()) throw SpecError(fmt::format("{}: missing cable list, write +{}=a[p].b[q]...", modifier, modifier));
  std::vector<std::size_t> links;
  std::vector<char> seen(network.linkCount(), 0);
  std::size_t pos = 0;
  while (true) {
    const ChannelId channel = parseCableEnd(network, text, pos, modifier);
    if (pos < text.size() && text[pos] == ':') {
      ++pos;
      const ChannelId other = parseCableEnd(network, text, pos, modifier);
      if (other != Network::reverse(channel)) {
        throw SpecError(fmt::format("{}: {} is cabled to {}, not to {}", modifier,
                                    network.describePort(network.source(channel), network.sourcePort(channel)),
                                    network.describePort(network.target(channel), network.targetPort(channel)),
                                    network.describePort(network.source(other), network.sourcePort(other))));
      }
    }
    const std::size_t link = Network::linkOf(channel);
    if (seen[link])
      throw SpecError(fmt::format("{}: cable {} is listed twice", modifier, describeCable(network, link)));
    seen[link] = 1;
    links.push_back(link);
    if (pos == text.size()) break;
    if (text[pos] != '.') {
      throw SpecError(fmt::format("{}: expected '.' or ':' after ']' at '{}'", modifier, text.substr(pos)));
    }
    ++pos;
  }
  return links;
}

/// Switch node ids of `NAME(.NAME)*`.
std::vector<NodeId> parseSwitchList(const Network& network, std::string_view text, const std::string& modifier) {
  if (text.empty()) throw SpecError(fmt::format("{}: missing switch list, write +{}=name.name...", modifier, modifier));
  std::vector<NodeId> switches;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = std::min(text.find('.', start), text.size());
    const NodeId node = resolveNode(network, text.substr(start, dot - start), modifier);
    if (!network.isSwitch(node)) {
      throw SpecError(fmt::format("{}: '{}' is a terminal, not a switch", modifier, network.name(node)));
    }
    if (std::find(switches.begin(), switches.end(), node) != switches.end()) {
      throw SpecError(fmt::format("{}: switch '{}' is listed twice", modifier, network.name(node)));
    }
    switches.push_back(node);
    if (dot == text.size()) break;
    start = dot + 1;
  }
  return switches;
}

// ---- the modifiers ------------------------------------------------------------------------

Network failLinks(const Network& network, const Options& options, ModifierReport& report) {
  const std::size_t count = countArgument(options);
  std::vector<std::size_t> candidates;
  for (std::size_t link = 0; link < network.linkCount(); ++link) {
    const ChannelId c = ChannelId::fromIndex(2 * link);
    if (network.isSwitch(network.source(c)) && network.isSwitch(network.target(c))) candidates.push_back(link);
  }
  if (count > candidates.size()) {
    throw SpecError(fmt::format("fail-links: cannot fail {} links, the fabric has only {} switch-to-switch cables",
                                count, candidates.size()));
  }
  return removeElements(network, chooseDistinct(std::move(candidates), count, seedOption(options)), {}, report);
}

Network failSwitches(const Network& network, const Options& options, ModifierReport& report) {
  const std::size_t count = countArgument(options);
  if (count > network.switchCount()) {
    throw SpecError(
        fmt::format("fail-switches: cannot fail {} switches, the fabric has only {}", count, network.switchCount()));
  }
  std::vector<NodeId> candidates(network.switches().begin(), network.switches().end());
  return removeElements(network, {}, chooseDistinct(std::move(candidates), count, seedOption(options)), report);
}

Network removeLinks(const Network& network, const Options& options, ModifierReport& report) {
  return removeElements(network, parseCableList(network, options.positional(), "remove-links"), {}, report);
}

Network removeSwitches(const Network& network, const Options& options, ModifierReport& report) {
  return removeElements(network, {}, parseSwitchList(network, options.positional(), "remove-switches"), report);
}

}  // namespace

std::vector<std::string> unreachableTerminals(const Network& network) {
  std::vector<std::string> out;
  if (network.terminalCount() == 0) return out;
  const std::vector<std::uint32_t> component = connectedComponents(network);
  std::vector<std::size_t> terminalsIn(componentCount(component), 0);
  for (NodeId t : network.terminals()) ++terminalsIn[component[t.index()]];
  // max_element returns the first maximum: the lowest component id, i.e. the component
  // of the lowest node id among the largest ones.
  const auto largest =
      static_cast<std::uint32_t>(std::max_element(terminalsIn.begin(), terminalsIn.end()) - terminalsIn.begin());
  for (NodeId t : network.terminals()) {
    if (component[t.index()] != largest) out.push_back(network.name(t));
  }
  return out;
}

Network removeElements(const Network& network, const std::vector<std::size_t>& removedLinks,
                       const std::vector<NodeId>& removedSwitches, ModifierReport& report) {
  for (std::size_t link : removedLinks) report.removed.push_back(describeCable(network, link));
  std::vector<char> nodeGone(network.nodeCount(), 0);
  for (NodeId node : removedSwitches) {
    nodeGone[node.index()] = 1;
    report.removed.push_back(fmt::format("{} (switch, {} cables)", network.name(node), network.degree(node)));
  }
  if (removedLinks.empty() && removedSwitches.empty()) {
    report.unreachable = unreachableTerminals(network);
    report.disconnectedTerminals = report.unreachable.size();
    return network;
  }
  std::vector<char> linkGone(network.linkCount(), 0);
  for (std::size_t link : removedLinks) linkGone[link] = 1;

  NetworkBuilder builder;
  builder.reserve(network.nodeCount(), network.linkCount());
  std::vector<NodeId> renumbered(network.nodeCount());
  for (std::size_t i = 0; i < network.nodeCount(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    if (nodeGone[i]) continue;
    renumbered[i] =
        builder.addNode(network.kind(node), network.name(node), network.portCount(node), network.guid(node));
  }
  for (std::size_t link = 0; link < network.linkCount(); ++link) {
    const ChannelId c = ChannelId::fromIndex(2 * link);
    const NodeId a = network.source(c);
    const NodeId b = network.target(c);
    if (linkGone[link] || nodeGone[a.index()] || nodeGone[b.index()]) continue;
    builder.connect(renumbered[a.index()], network.sourcePort(c), renumbered[b.index()], network.targetPort(c));
  }
  builder.setOrigin(network.origin());
  Network result = builder.build();
  report.unreachable = unreachableTerminals(result);
  report.disconnectedTerminals = report.unreachable.size();
  return result;
}

std::vector<RegistryRow<ModifierFactory>> faultModifierRows() {
  const OptionSchema seeded{{"seed", OptionType::Integer, "1", "random seed (core/random.h Rng)"}};
  return {
      {"fail-links", "+fail-links=N: remove N random switch-to-switch cables", "fault injection (seeded)", seeded,
       failLinks},
      {"fail-switches", "+fail-switches=N: remove N random switches and their cables", "fault injection (seeded)",
       seeded, failSwitches},
      {"remove-links",
       "+remove-links=a[p].b[q]:c[r]: remove the cables at these ports",
       "fault injection",
       {},
       removeLinks},
      {"remove-switches",
       "+remove-switches=name.name: remove these switches and their cables",
       "fault injection",
       {},
       removeSwitches},
  };
}

const Registry<ModifierFactory>& modifierRegistry() {
  static const Registry<ModifierFactory> registry("modifier", faultModifierRows());
  return registry;
}

}  // namespace routelab
