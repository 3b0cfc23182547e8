// Ranges that components check themselves (Options::integerIn: engines' layers and path
// counts, patterns' targets, traffic and trace generators' counts; ranges that depend on the
// fabric or on kMaxLayers, so the schemas cannot declare them), found without a list: each
// integer option of each registry row is given an absurd value, and the refusal names the
// range ("option 'KEY' must be in [LOW, HIGH]"). Each end is then given as it is (no refusal
// of the range; the component may refuse the fabric for its own reasons) and one step past
// (refused with the message naming the value), and the ranges found must be the documented
// ones: a changed range, or a new one, fails until it is written down here. Taking every
// upper end found a stage count of 2^31 - 1 that laid out its levels before checking the node
// limit (KaryNtree.TooManyNodesAreRefusedForEveryStageCount).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "sim/simulator.h"
#include "sim/traffic_source.h"
#include "topology/registry.h"
#include "traffic/pattern.h"

using namespace routelab;

namespace {

/// One component family: its name:options rows, how a spec of it is taken, and the options a
/// row needs beside the one tried (its required ones; "key=value,...").
struct Family {
  std::string name;
  std::vector<std::pair<std::string, OptionSchema>> rows;
  std::function<void(const std::string& spec)> take;
  std::map<std::string, std::string> required = {};
};

/// "name:key=value" with the row's required options beside it (`key` replaced there).
std::string specOf(const Family& family, const std::string& name, const std::string& key, std::int64_t value) {
  std::string spec = fmt::format("{}:{}={}", name, key, value);
  const auto base = family.required.find(name);
  if (base == family.required.end()) return spec;
  std::size_t start = 0;
  while (start <= base->second.size()) {
    const std::size_t end = std::min(base->second.find(',', start), base->second.size());
    const std::string field = base->second.substr(start, end - start);
    if (field.substr(0, field.find('=')) != key) spec += "," + field;
    start = end + 1;
  }
  return spec;
}

template <class Factory>
std::vector<std::pair<std::string, OptionSchema>> rowsOf(const Registry<Factory>& registry) {
  std::vector<std::pair<std::string, OptionSchema>> rows;
  for (const auto& row : registry.rows()) rows.emplace_back(row.name, row.options);
  return rows;
}

/// The SpecError message of taking `spec`, or "" when nothing (or another kind of error) is
/// thrown: other refusals (a fabric the engine does not fit) are not the range's business.
std::string refusal(const Family& family, const std::string& spec) {
  try {
    family.take(spec);
  } catch (const SpecError& error) {
    return error.what();
  } catch (const Error&) {
  }
  return "";
}

struct Range {
  std::int64_t low = 0, high = 0;
};

std::optional<Range> rangeNamed(const std::string& message, const std::string& key) {
  const std::string prefix = "option '" + key + "' must be in [";
  const std::size_t at = message.find(prefix);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(message.substr(at + prefix.size()));
  Range range;
  char comma = 0, close = 0;
  if (!(in >> range.low >> comma >> range.high >> close) || comma != ',' || close != ']') return std::nullopt;
  return range;
}

}  // namespace

TEST(ComponentOptionRanges, EveryCheckedRangeHoldsAtItsEndsAndIsRefusedOnePast) {
  const Network irregular = loadFabric("random:switches=6,links=9,terminals=2,seed=5").network;  // 12 terminals
  const Network tree = loadFabric("kary-ntree:k=2,n=3").network;                                 // 8 terminals
  const std::vector<Family> families = {
      {"engine", rowsOf(engineRegistry()), [&](const std::string& spec) { runEngine(spec, irregular); }},
      {"pattern", rowsOf(patternRegistry()), [&](const std::string& spec) { makePattern(spec, tree, 1); }},
      {"topology",
       rowsOf(topologyRegistry()),
       [](const std::string& spec) { loadFabric(spec); },
       {{"kary-ntree", "k=2,n=2"},
        {"gft2", "n=2,m=2,r=2"},
        {"ft", "l=2,m=2,w=2"},
        {"xgft", "h=2,m=2.2,w=1.2"},
        {"random", "switches=4"}}},
      {"traffic",
       {{"uniform-hot-spot", {{"fraction", OptionType::Real, "0.5", ""}, {"target", OptionType::Integer, "", ""}}}},
       [&](const std::string& spec) { sim::DestinationSource(spec, tree, 1); },
       {{"uniform-hot-spot", "fraction=0.5"}}},
      {"trace generator",
       {{"io",
         {{"storage", OptionType::Integer, "", ""},
          {"clients", OptionType::Integer, "", ""},
          {"requests", OptionType::Integer, "", ""},
          {"service", OptionType::Integer, "", ""}}}},
       [](const std::string& spec) { parseIoTraceSpec(spec, 1); }},
  };
  // The ranges as documented (`routelab list`, docs/RELIABILITY.md): kMaxLayers = 16 layers,
  // targets and sender counts up to N - 1 (8 terminals here), sizes up to 2^31 - 1.
  constexpr std::int64_t kInt = 2147483647;
  const std::map<std::string, std::pair<std::int64_t, std::int64_t>> documented = {
      {"engine opt-grid:source-groups", {0, 4096}},
      {"engine opt-grid:destination-groups", {0, 4096}},
      {"engine mroots:layers", {1, 16}},
      {"engine d-mroots:layers", {1, 16}},
      {"engine lash:max-layers", {0, 16}},
      {"engine mp-lash:max-layers", {0, 16}},
      {"engine mp-lash:max-paths", {0, 1 << 20}},
      {"engine a-lash:max-layers", {0, 16}},
      {"engine escape:layers", {2, 16}},
      {"pattern hot-spot:target", {-1, 7}},
      {"pattern hot-spot:senders", {0, 7}},
      {"topology kary-ntree:k", {1, kInt}},
      {"topology kary-ntree:n", {1, kInt}},
      {"topology gft2:n", {1, kInt}},
      {"topology gft2:m", {1, kInt}},
      {"topology gft2:r", {1, kInt}},
      {"topology ft:l", {1, kInt}},
      {"topology ft:m", {1, kInt}},
      {"topology ft:w", {1, kInt}},
      {"topology xgft:h", {1, 16}},
      {"topology random:switches", {1, kInt}},
      {"topology random:links", {0, kInt}},
      {"topology random:terminals", {0, kInt}},
      {"topology random:radix", {1, kInt}},
      {"topology random:seed", {0, INT64_MAX}},
      {"traffic uniform-hot-spot:target", {0, 7}},
      {"trace generator io:storage", {1, 1 << 20}},
      {"trace generator io:clients", {1, 1 << 20}},
      {"trace generator io:requests", {1, 1 << 20}},
      {"trace generator io:service", {0, 1 << 30}},
  };
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> found;
  for (const Family& family : families) {
    for (const auto& [name, schema] : family.rows) {
      for (const OptionSpec& option : schema) {
        if (option.type != OptionType::Integer) continue;
        const std::string what = family.name + " " + name + ":" + option.key;
        auto spec = [&](std::int64_t value) { return specOf(family, name, option.key, value); };
        const std::optional<Range> range = rangeNamed(refusal(family, spec(-999999999)), option.key);
        if (!range) continue;  // no range of its own (or one the schema declares, checked on parsing)
        found[what] = {range->low, range->high};
        const std::string named = fmt::format("option '{}' must be in [{}, {}]", option.key, range->low, range->high);
        for (const std::int64_t end : {range->low, range->high}) {
          EXPECT_EQ(refusal(family, spec(end)).find(named), std::string::npos) << what << " = " << end;
        }
        std::vector<std::int64_t> pasts = {range->low - 1};
        if (range->high < INT64_MAX) pasts.push_back(range->high + 1);  // past 2^63 - 1: no integer
        for (const std::int64_t past : pasts) {
          EXPECT_NE(refusal(family, spec(past)).find(fmt::format("{}, got {}", named, past)), std::string::npos)
              << what << " = " << past;
        }
      }
    }
  }
  EXPECT_EQ(found, documented) << "a range changed, or a new one is not documented here";
}
