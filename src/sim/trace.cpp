// Simulation traces: the CSV format and the synthetic I/O workload. Contract: sim/simulator.h.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/options.h"
#include "core/random.h"
#include "sim/simulator.h"

namespace routelab {

namespace {

std::string trim(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::uint32_t terminalOf(const std::string& token, const Network& network, const std::string& name, std::size_t line) {
  if (const auto node = network.findNode(token); node && network.isTerminal(*node)) {
    return network.terminalIndex(*node);
  }
  std::uint64_t index = 0;
  const auto [ptr, error] = std::from_chars(token.data(), token.data() + token.size(), index);
  if (token.empty() || error != std::errc() || ptr != token.data() + token.size()) {
    throw ParseError(name, line, fmt::format("'{}' is neither a terminal name nor a terminal index", token));
  }
  if (index >= network.terminalCount()) {
    throw ParseError(name, line,
                     fmt::format("terminal index {} out of range (the fabric has {})", index, network.terminalCount()));
  }
  return static_cast<std::uint32_t>(index);
}

}  // namespace

Trace parseTrace(const std::string& text, const std::string& name, const Network& network) {
  Trace trace;
  trace.name = name;
  std::istringstream in(text);
  std::string raw;
  std::size_t line = 0;
  bool header = false;
  while (std::getline(in, raw)) {
    ++line;
    std::string content = trim(raw.substr(0, raw.find('#')));
    if (content.empty()) continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = content.find(',', start);
      fields.push_back(trim(content.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (!header) {
      if (fields != std::vector<std::string>{"time", "source", "destination", "bytes"}) {
        throw ParseError(name, line, "expected the header 'time,source,destination,bytes'");
      }
      header = true;
      continue;
    }
    if (fields.size() != 4) throw ParseError(name, line, fmt::format("expected 4 fields, found {}", fields.size()));
    TraceMessage message;
    double time = 0;
    const auto [timeEnd, timeError] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), time);
    if (fields[0].empty() || timeError != std::errc() || timeEnd != fields[0].data() + fields[0].size() ||
        !(time >= 0) || time > 1e18) {
      throw ParseError(name, line, fmt::format("time '{}' is not a non-negative number of cycles", fields[0]));
    }
    message.cycle = static_cast<std::uint64_t>(std::floor(time));
    message.source = terminalOf(fields[1], network, name, line);
    message.destination = terminalOf(fields[2], network, name, line);
    if (message.source == message.destination)
      throw ParseError(name, line, "source and destination are the same terminal");
    const auto [bytesEnd, bytesError] =
        std::from_chars(fields[3].data(), fields[3].data() + fields[3].size(), message.bytes);
    if (fields[3].empty() || bytesError != std::errc() || bytesEnd != fields[3].data() + fields[3].size() ||
        message.bytes == 0 || message.bytes > (std::uint64_t{1} << 40)) {
      throw ParseError(name, line, fmt::format("bytes '{}' is not a positive integer (at most 2^40)", fields[3]));
    }
    trace.messages.push_back(message);
  }
  if (!header) throw ParseError(name, line, "empty trace: expected the header 'time,source,destination,bytes'");
  std::stable_sort(trace.messages.begin(), trace.messages.end(),
                   [](const TraceMessage& a, const TraceMessage& b) { return a.cycle < b.cycle; });
  return trace;
}

Trace readTrace(const std::string& path, const Network& network) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(fmt::format("cannot read trace '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parseTrace(text.str(), path, network);
}

std::string formatTrace(const Trace& trace, const Network& network) {
  std::string out = "time,source,destination,bytes\n";
  for (const TraceMessage& m : trace.messages) {
    out += fmt::format("{},{},{},{}\n", m.cycle, network.name(network.terminalNode(m.source)),
                       network.name(network.terminalNode(m.destination)), m.bytes);
  }
  return out;
}

IoTraceSpec parseIoTraceSpec(const std::string& text, std::uint64_t seed) {
  static const OptionSchema schema = {
      {"storage", OptionType::Integer, "23", "storage (server) terminals: the last ones", false},
      {"clients", OptionType::Integer, "105", "client terminals: the first ones", false},
      {"requests", OptionType::Integer, "200", "requests per client", false},
      {"burst", OptionType::Real, "8", "mean requests per burst", false},
      {"gap", OptionType::Real, "20000", "mean cycles between bursts", false},
      {"service", OptionType::Integer, "200", "cycles a server takes to answer", false},
      {"writes", OptionType::Real, "0.3", "share of write requests", false},
  };
  const ComponentSpec component = parseComponent(text);
  if (component.name != "io") throw SpecError(fmt::format("trace generator '{}': only 'io' exists", component.name));
  const Options options("io", schema, component);
  IoTraceSpec spec;
  spec.storage = static_cast<std::uint32_t>(options.integerIn("storage", 1, 1 << 20));
  spec.clients = static_cast<std::uint32_t>(options.integerIn("clients", 1, 1 << 20));
  spec.requests = static_cast<std::uint32_t>(options.integerIn("requests", 1, 1 << 20));
  spec.burst = options.real("burst");
  spec.gap = options.real("gap");
  spec.service = static_cast<std::uint64_t>(options.integerIn("service", 0, 1 << 30));
  spec.writes = options.real("writes");
  spec.seed = seed;
  if (!(spec.burst >= 1) || !(spec.gap > 0) || !(spec.writes >= 0 && spec.writes <= 1)) {
    throw SpecError(fmt::format("trace generator '{}': needs burst >= 1, gap > 0 and writes in [0, 1]", text));
  }
  return spec;
}

Trace generateIoTrace(const Network& network, const IoTraceSpec& spec) {
  const std::size_t terminals = network.terminalCount();
  if (std::size_t{spec.storage} + spec.clients > terminals) {
    throw SpecError(fmt::format("io trace: {} storage + {} clients exceed the fabric's {} terminals", spec.storage,
                                spec.clients, terminals));
  }
  static constexpr std::uint64_t kSizes[] = {4096, 8192, 16384, 65536, 262144};
  Trace trace;
  trace.name = fmt::format("io:storage={},clients={},requests={},burst={},gap={},service={},writes={}", spec.storage,
                           spec.clients, spec.requests, spec.burst, spec.gap, spec.service, spec.writes);
  const auto firstServer = static_cast<std::uint32_t>(terminals - spec.storage);
  for (std::uint32_t client = 0; client < spec.clients; ++client) {
    Rng rng(deriveSeed(spec.seed, client));
    double clock = 0;
    std::uint32_t left = 0;
    for (std::uint32_t r = 0; r < spec.requests; ++r) {
      if (left == 0) {  // a burst (the first too) after an exponential gap; geometric length of mean `burst`
        clock += -std::log(1.0 - rng.uniform()) * spec.gap;
        left = 1;
        while (rng.uniform() > 1.0 / spec.burst) ++left;
      }
      --left;
      clock += 1 + rng.below(64);
      const auto server = static_cast<std::uint32_t>(firstServer + rng.below(spec.storage));
      const std::uint64_t size = kSizes[rng.below(std::size(kSizes))];
      const bool write = rng.uniform() < spec.writes;
      const auto at = static_cast<std::uint64_t>(clock);
      trace.messages.push_back({at, client, server, write ? size : 64});
      trace.messages.push_back({at + spec.service, server, client, write ? 64 : size});
    }
  }
  std::stable_sort(trace.messages.begin(), trace.messages.end(),
                   [](const TraceMessage& a, const TraceMessage& b) { return a.cycle < b.cycle; });
  return trace;
}

}  // namespace routelab
