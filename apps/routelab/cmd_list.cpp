// routelab list — every registry's table.
#include <fmt/format.h>

#include "cli.h"
#include "engines/registry.h"
#include "schedule/registry.h"
#include "topology/registry.h"
#include "traffic/pattern.h"

namespace routelab::cli {

namespace {

template <class Factory>
nlohmann::json tableJson(const Registry<Factory>& registry) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : registry.rows()) {
    nlohmann::json options = nlohmann::json::array();
    for (const auto& o : row.options) {
      options.push_back({{"key", o.key}, {"default", o.defaultValue}, {"help", o.help}, {"required", o.required}});
    }
    rows.push_back({{"name", row.name}, {"summary", row.summary}, {"reference", row.reference}, {"options", options}});
  }
  return rows;
}

template <class Factory>
void printTable(const std::string& title, const Registry<Factory>& registry) {
  fmt::print("{}:\n", title);
  for (const auto& row : registry.rows()) {
    fmt::print("  {:<20} {}  [{}]\n", row.name, row.summary, row.reference);
    for (const auto& o : row.options) {
      fmt::print("  {:<20}   {}={}{}  {}\n", "", o.key, o.defaultValue.empty() ? "<value>" : o.defaultValue,
                 o.required ? " (required)" : "", o.help);
    }
  }
  fmt::print("\n");
}

}  // namespace

/// Extra registries printed by `routelab list`, contributed by later modules.
std::vector<std::pair<std::string, std::function<nlohmann::json()>>> extraRegistries();

Command listCommand() {
  return {"list", "list registered generators, modifiers, engines and more", [](CLI::App& command) {
            auto format = std::make_shared<OutputFormat>(OutputFormat::Text);
            addFormatOption(command, *format);
            return std::function<int()>([format] {
              nlohmann::json all;
              all["topologies"] = tableJson(topologyRegistry());
              all["modifiers"] = tableJson(modifierRegistry());
              all["engines"] = tableJson(engineRegistry());
              for (auto& row : all["engines"]) row["exports"] = engineRegisterExports(row["name"].get<std::string>());
              for (const auto& [name, table] : extraRegistries()) all[name] = table();
              if (*format == OutputFormat::Json) {
                printJson(all);
                return 0;
              }
              printTable("topologies (fabric specs; also file:PATH, net:PATH, ibnetdiscover:PATH, json:PATH)",
                         topologyRegistry());
              printTable("modifiers (append as +name=value,key=value)", modifierRegistry());
              printTable("routing engines (--engine name:key=value)", engineRegistry());
              for (const auto& [name, table] : extraRegistries()) {
                fmt::print("{}:\n", name);
                for (const auto& row : table()) {
                  fmt::print("  {:<20} {}  [{}]\n", row.value("name", ""), row.value("summary", ""),
                             row.value("reference", ""));
                }
                fmt::print("\n");
              }
              return 0;
            });
          }};
}

std::vector<std::pair<std::string, std::function<nlohmann::json()>>> extraRegistries() {
  return {{"patterns", [] { return tableJson(patternRegistry()); }},
          {"schedulers", [] { return tableJson(schedulerRegistry()); }}};
}

}  // namespace routelab::cli
