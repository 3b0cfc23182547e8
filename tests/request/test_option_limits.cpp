// The option rows of docs/RELIABILITY.md's limits table ("<operation> `--<key>`", the ranges
// of the route, verify and schedule requests), read from the document: each documented range
// is the request row's, is accepted at both ends and refused one past each with the request's
// message, and every bounded option of those requests has its row (a new one fails
// OptionLimits.EveryBoundedOptionOfTheDocumentedRequestsHasItsRow until it is documented).
// The table's other rows are checked by LimitsTable.* (tests/routing/test_limits_table.cpp);
// the simulator's and the analyzer's ranges by RequestSchema.* from the rows themselves.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "request/request.h"
#include "test_support.h"

using namespace routelab;

namespace {

/// The requests whose ranges the limits table lists.
const std::set<std::string> kDocumentedOperations = {"verify", "schedule", "route", "compare", "analyze"};

struct OptionLimitRow {
  std::string operation;
  std::string key;
  std::string range;  ///< as written: "[1, 15]", "(0, inf)", "[2, inf)"
  std::string minimum;
  std::string maximum;  ///< "inf": no maximum
  bool minimumExclusive = false;
};

/// The rows "| <operation> `--<key>` | option range [a, b]... |" (or "(a, b]", "[a, inf)") of the table under
/// "## Limits" in docs/RELIABILITY.md.
std::vector<OptionLimitRow> documentedOptionRows() {
  std::ifstream in(test::sourceDir() + "/docs/RELIABILITY.md");
  EXPECT_TRUE(in.good());
  std::vector<OptionLimitRow> rows;
  bool inSection = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) inSection = line == "## Limits";
    if (!inSection || line.rfind("| ", 0) != 0) continue;
    const std::size_t firstEnd = line.find(" | ", 2);
    const std::string first = line.substr(2, firstEnd - 2);
    const std::size_t flag = first.find(" `--");
    if (flag == std::string::npos || first.empty() || first.back() != '`') continue;
    OptionLimitRow row;
    row.operation = first.substr(0, flag);
    row.key = first.substr(flag + 4, first.size() - flag - 5);
    const std::size_t open = line.find("option range ", firstEnd);
    EXPECT_NE(open, std::string::npos) << first << ": no 'option range [a, b]' in its size column";
    if (open == std::string::npos) continue;
    const std::size_t from = open + std::string("option range ").size();
    const std::size_t comma = line.find(", ", from);
    const std::size_t close = line.find_first_of("])", from);
    if (comma > close || (line[from] != '[' && line[from] != '(')) continue;
    row.range = line.substr(from, close - from + 1);
    row.minimumExclusive = line[from] == '(';
    row.minimum = line.substr(from + 1, comma - from - 1);
    row.maximum = line.substr(comma + 2, close - comma - 2);
    rows.push_back(row);
  }
  return rows;
}

const OptionSpec* schemaRow(const std::string& operation, const std::string& key) {
  for (const OptionSpec& row : requestSchema(operation)) {
    if (row.key == key) return &row;
  }
  return nullptr;
}

/// The request's answer to its required values plus key = value: "accepted" or the message.
std::string answer(const std::string& operation, const std::string& key, const std::string& value) {
  KeyValues values = {{"fabric", "kary-ntree:k=2,n=2"}};
  if (operation != "schedule" && operation != "compare") values.emplace_back("engine", "dmodk");
  values.emplace_back(key, value);
  return test::thrownMessage<SpecError>([&] { requestOptions(operation, values); }, "accepted");
}

}  // namespace

TEST(OptionLimits, EveryDocumentedOptionHoldsAtItsLimitsAndIsRefusedOnePast) {
  const std::vector<OptionLimitRow> rows = documentedOptionRows();
  EXPECT_GE(rows.size(), 7u);
  for (const OptionLimitRow& row : rows) {
    SCOPED_TRACE(row.operation + " --" + row.key);
    const OptionSpec* spec = schemaRow(row.operation, row.key);
    ASSERT_NE(spec, nullptr) << "documented, but not an option of the request";
    ASSERT_TRUE(spec->type == OptionType::Integer || spec->type == OptionType::Real);
    EXPECT_EQ(spec->rangeText(), row.range) << "the documented range is not the request's";
    const auto refused = [&](const std::string& value) {
      return fmt::format("{}: {} must lie in {} (got {})", row.operation, row.key, row.range, value);
    };
    // The lower end: an inclusive minimum accepted and one below it refused (integers; a
    // real one a thousandth below); an exclusive one refused itself.
    if (row.minimumExclusive) {
      EXPECT_EQ(answer(row.operation, row.key, row.minimum), refused(row.minimum));
    } else {
      EXPECT_EQ(answer(row.operation, row.key, row.minimum), "accepted");
      const std::string below = spec->type == OptionType::Integer ? std::to_string(std::stoll(row.minimum) - 1)
                                                                  : fmt::format("{}", std::stod(row.minimum) - 0.001);
      EXPECT_EQ(answer(row.operation, row.key, below), refused(below));
    }
    if (row.maximum == "inf") continue;
    // The upper end accepted, one past refused (computed from the document's decimal text;
    // unsigned, so 2^63 - 1 + 1 does not wrap).
    ASSERT_EQ(spec->type, OptionType::Integer) << "a bounded real: extend this test";
    EXPECT_EQ(answer(row.operation, row.key, row.maximum), "accepted");
    const unsigned long long above = std::stoull(row.maximum) + 1ULL;
    const std::string aboveText = std::to_string(above);
    if (above > static_cast<unsigned long long>(INT64_MAX)) {
      // Past the largest signed 64-bit integer the value is no integer of the request.
      EXPECT_EQ(answer(row.operation, row.key, aboveText),
                fmt::format("{}: option '{}': '{}' is not an integer", row.operation, row.key, aboveText));
    } else {
      EXPECT_EQ(answer(row.operation, row.key, aboveText), refused(aboveText));
    }
  }
}

TEST(OptionLimits, EveryBoundedOptionOfTheDocumentedRequestsHasItsRow) {
  std::map<std::string, std::set<std::string>> documented;
  for (const OptionLimitRow& row : documentedOptionRows()) {
    EXPECT_TRUE(kDocumentedOperations.count(row.operation)) << row.operation;
    EXPECT_TRUE(documented[row.operation].insert(row.key).second) << row.operation << " --" << row.key << " twice";
  }
  for (const std::string& operation : kDocumentedOperations) {
    std::set<std::string> bounded;
    for (const OptionSpec& spec : requestSchema(operation)) {
      if (spec.bounded()) bounded.insert(spec.key);
    }
    EXPECT_EQ(documented[operation], bounded) << operation << ": bounded options vs docs/RELIABILITY.md's rows";
  }
}
