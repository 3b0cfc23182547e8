#include "routing/interval_routing.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "core/errors.h"
#include "graph/xgft_labels.h"

namespace routelab {

namespace {

const XgftLabels& labelsOf(const Network& network, const std::string& what) {
  if (network.xgft() == nullptr) {
    throw UnsupportedTopology(fmt::format("{} registers need a fat-tree (XGFT) fabric; '{}' is not one", what,
                                          network.origin().empty() ? std::string("this fabric") : network.origin()));
  }
  return *network.xgft();
}

/// Products M_l and W_l of an XGFT, l = 0..h.
struct Products {
  std::vector<std::uint64_t> m, w;
  explicit Products(const XgftParams& p) : m(p.height() + 1, 1), w(p.height() + 1, 1) {
    for (std::size_t l = 1; l <= p.height(); ++l) {
      m[l] = m[l - 1] * p.m[l - 1];
      w[l] = w[l - 1] * p.w[l - 1];
    }
  }
};

/// Fills the IR registers (node numbers) of every switch; `encode` maps a node number to the
/// register address space, `lowOnes(level)` gives the all-ones suffix of the digits below
/// the switch's stage in that space.
template <class Encode>
IntervalConfiguration buildIntervals(const Network& network, const XgftLabels& labels, Encode encode, bool flexible,
                                     std::uint32_t bitsPerDigit) {
  const XgftParams& params = labels.params;
  const Products products(params);
  const std::uint64_t nodes = products.m[params.height()];
  IntervalConfiguration configuration;
  configuration.flexible = flexible;
  configuration.destinations = nodes;
  configuration.bitsPerDigit = bitsPerDigit;
  configuration.addressBits = bitsPerDigit * static_cast<std::uint32_t>(params.height());
  const std::uint64_t allOnes =
      flexible ? ((configuration.addressBits >= 64 ? 0 : std::uint64_t{1} << configuration.addressBits) - 1)
               : ~std::uint64_t{0};
  configuration.switches.resize(network.switchCount());
  for (std::size_t s = 0; s < network.switchCount(); ++s) {
    const NodeId node = network.switchNode(s);
    const std::size_t level = labels.level[node.index()];
    const std::uint64_t high = labels.indexInLevel[node.index()] / products.w[level];
    IntervalSwitchRegisters& registers = configuration.switches[s];
    registers.node = node;
    registers.stage = level - 1;
    const std::uint32_t down = params.m[level - 1];
    const std::uint64_t block = products.m[level - 1];
    // FIR: the digits below the stage are free; in b-bit fields that is the low (s b) bits.
    const std::uint64_t lowMask = flexible ? (std::uint64_t{1} << (bitsPerDigit * (level - 1))) - 1 : 0;
    std::uint64_t firstDown = 0, lastDown = 0;
    for (PortNumber port = 1; port <= network.portCount(node); ++port) {
      if (!network.channelAt(node, port).valid()) continue;
      IntervalPortRegisters r;
      r.port = port;
      r.label = port - 1U;
      r.up = r.label >= down;
      if (!r.up) {
        const std::uint64_t firstNode = high * products.m[level] + r.label * block;
        r.first = encode(firstNode);
        r.last = flexible ? (r.first | lowMask) : encode(firstNode + block - 1);
        r.mask = allOnes;
        if (r.label == 0) firstDown = r.first;
        if (r.label == down - 1) lastDown = r.last;
      }
      registers.ports.push_back(r);
    }
    for (IntervalPortRegisters& r : registers.ports) {
      if (!r.up) continue;
      if (flexible) {
        // §4.1, Fig. 4: the component of the switch's stage selects the ascending link.
        const std::uint64_t shift = bitsPerDigit * (level - 1);
        r.mask = ((std::uint64_t{1} << bitsPerDigit) - 1) << shift;
        r.first = r.last = std::uint64_t{r.label - down} << shift;
        r.priority = (std::uint64_t{1} << down) - 1;
      } else {
        // §3.1, Fig. 2: the cyclic complement of the descending intervals.
        r.first = (lastDown + 1) % nodes;
        r.last = (firstDown + nodes - 1) % nodes;
        r.mask = allOnes;
      }
    }
  }
  return configuration;
}

std::string binary(std::uint64_t value, std::uint32_t digits) {
  std::string out(digits, '0');
  for (std::uint32_t i = 0; i < digits; ++i) {
    if ((value >> i) & 1U) out[digits - 1 - i] = '1';
  }
  return out;
}

}  // namespace

IntervalConfiguration buildIrConfiguration(const Network& network) {
  const XgftLabels& labels = labelsOf(network, "IR");
  return buildIntervals(
      network, labels, [](std::uint64_t nodeNumber) { return nodeNumber; }, false, 0);
}

IntervalConfiguration buildFirConfiguration(const Network& network) {
  const XgftLabels& labels = labelsOf(network, "FIR");
  const XgftParams& p = labels.params;
  const std::uint32_t k = p.m[0];
  bool kary = p.w[0] == 1;
  for (std::size_t j = 0; j < p.height(); ++j) {
    kary = kary && p.m[j] == k && (j == 0 || p.w[j] == k);
  }
  if (!kary || k < 2) {
    throw UnsupportedTopology(
        fmt::format("FIR registers are defined on k-ary n-trees (Gómez §4.1); '{}' is {}", network.origin(), p.str()));
  }
  std::uint32_t bits = 0;
  while ((std::uint32_t{1} << bits) < k) ++bits;
  if (k > 32 || bits * p.height() > 63) {
    throw UnsupportedTopology(
        fmt::format("FIR registers: {}-ary {}-tree needs {} address bits and {} RRR bits; at most "
                    "63 and 64 are supported",
                    k, p.height(), bits * p.height(), 2 * k));
  }
  const std::size_t n = p.height();
  auto encode = [k, bits, n](std::uint64_t nodeNumber) {
    std::uint64_t address = 0;
    for (std::size_t i = 0; i < n; ++i) {
      address |= (nodeNumber % k) << (i * bits);
      nodeNumber /= k;
    }
    return address;
  };
  return buildIntervals(network, labels, encode, true, bits);
}

std::uint64_t intervalAddress(const Network& network, const IntervalConfiguration& configuration, NodeId terminal) {
  const XgftLabels& labels = labelsOf(network, configuration.flexible ? "FIR" : "IR");
  std::uint64_t number = labels.indexInLevel[terminal.index()];
  if (!configuration.flexible) return number;
  const std::uint32_t k = labels.params.m[0];
  std::uint64_t address = 0;
  for (std::size_t i = 0; i < labels.params.height(); ++i) {
    address |= (number % k) << (i * configuration.bitsPerDigit);
    number /= k;
  }
  return address;
}

void routeByRegisters(const IntervalConfiguration& configuration, const IntervalSwitchRegisters& registers,
                      std::uint64_t address, std::vector<PortNumber>& out) {
  out.clear();
  std::uint64_t eligibleLabels = 0;
  for (const IntervalPortRegisters& r : registers.ports) {
    if (inCyclicInterval(address & r.mask, r.first, r.last)) {
      out.push_back(r.port);
      if (r.label < 64) eligibleLabels |= std::uint64_t{1} << r.label;
    }
  }
  if (!configuration.flexible) return;
  // RRR: a port is not returned when a port it gives precedence to is eligible too.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const IntervalPortRegisters* r = nullptr;
    for (const IntervalPortRegisters& candidate : registers.ports) {
      if (candidate.port == out[i]) r = &candidate;
    }
    if ((r->priority & eligibleLabels) == 0) out[kept++] = out[i];
  }
  out.resize(kept);
}

std::uint64_t countRegisterDisagreements(const Network& network, const IntervalConfiguration& configuration,
                                         const RoutingResult& routing) {
  const auto terminals = static_cast<std::int64_t>(network.terminalCount());
  std::uint64_t disagreements = 0;
#if defined(ROUTELAB_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : disagreements) if (terminals >= 256)
#endif
  for (std::int64_t i = 0; i < terminals; ++i) {
    std::vector<PortNumber> byRegisters, byTable;
    const NodeId terminal = network.terminalNode(static_cast<std::size_t>(i));
    if (!routing.addresses.hasAddresses(terminal)) {
      disagreements += network.switchCount();
      continue;
    }
    const std::uint64_t address = intervalAddress(network, configuration, terminal);
    const Address a = routing.addresses.base(terminal);
    for (std::uint32_t s = 0; s < network.switchCount(); ++s) {
      routeByRegisters(configuration, configuration.switches[s], address, byRegisters);
      const auto candidates = routing.table().candidates(s, a);
      byTable.assign(candidates.begin(), candidates.end());
      if (configuration.flexible) {
        byTable.resize(std::min<std::size_t>(byTable.size(), 1));
      } else {
        std::sort(byTable.begin(), byTable.end());
      }
      if (byRegisters != byTable) ++disagreements;
    }
  }
  return disagreements;
}

void writeIntervalConfiguration(const Network& network, const IntervalConfiguration& configuration,
                                const std::string& engine, std::ostream& out) {
  if (configuration.flexible) {
    out << "# routelab FIR registers (Gomez et al. 2007, section 4.1, Figs. 3-4)\n";
  } else {
    out << "# routelab IR registers (Gomez et al. 2007, section 3.1, Figs. 1-2)\n";
  }
  out << fmt::format("# fabric {} engine {} destinations {}\n", network.origin(), engine, configuration.destinations);
  if (configuration.flexible) {
    out << fmt::format("# address: node components p_(n-1)..p_0, {} bit(s) each ({} bits); FI, LI, MR in binary;\n",
                       configuration.bitsPerDigit, configuration.addressBits);
    out << "# a port is eligible when (address & MR) lies in the cyclic interval [FI, LI]; RRR bit j set =\n"
           "# the port labelled j takes precedence; label = hardware port - 1 (down 0..k-1, up k..2k-1)\n";
  } else {
    out << "# address: node number 0..N-1; a port is eligible when the address lies in the cyclic\n"
           "# interval [FI, LI]; label = hardware port - 1 (down 0..k-1, up k..2k-1)\n";
  }
  std::uint32_t rrrDigits = 0;
  for (const auto& s : configuration.switches) {
    for (const auto& r : s.ports) rrrDigits = std::max(rrrDigits, r.label + 1);
  }
  for (std::size_t s = 0; s < configuration.switches.size(); ++s) {
    const IntervalSwitchRegisters& registers = configuration.switches[s];
    out << fmt::format("switch {} '{}' stage {}\n", s, network.name(registers.node), registers.stage);
    for (const IntervalPortRegisters& r : registers.ports) {
      if (configuration.flexible) {
        out << fmt::format("  port {} label {} {} FI {} LI {} MR {} RRR {}\n", r.port, r.label, r.up ? "up" : "down",
                           binary(r.first, configuration.addressBits), binary(r.last, configuration.addressBits),
                           binary(r.mask, configuration.addressBits), binary(r.priority, rrrDigits));
      } else {
        out << fmt::format("  port {} label {} {} FI {} LI {}\n", r.port, r.label, r.up ? "up" : "down", r.first,
                           r.last);
      }
    }
  }
}

}  // namespace routelab
