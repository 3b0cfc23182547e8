// Reading a routing's statistics in tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace routelab::test {

/// The value of `key` in a list of (key, value) statistics (RoutingResult::stats), "" when absent.
inline std::string statOf(const std::vector<std::pair<std::string, std::string>>& stats, const std::string& key) {
  for (const auto& [k, v] : stats) {
    if (k == key) return v;
  }
  return "";
}

}  // namespace routelab::test
