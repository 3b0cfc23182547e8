#include "report/opensm_directory.h"

#include <filesystem>
#include <set>
#include <system_error>

#include "core/errors.h"
#include "io/lft_dump.h"
#include "io/output.h"
#include "io/sl_table.h"

namespace routelab {

namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "OpenSM refused the engine (empty .error file)";
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, std::min<std::size_t>(last + 1 - first, 2000));
}

/// The first line of `path`, without surrounding blanks; "" when the file does not exist.
std::string firstLine(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return {};
  const std::string text = readFileText(path);
  const std::string line = text.substr(0, text.find('\n'));
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  return line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
}

}  // namespace

std::vector<ImportedRouting> importOpenSmDirectory(const std::string& directory, const Network& network) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    throw IoError("--opensm-dir '" + directory + "': not a readable directory");
  }
  std::set<std::string> engines;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const fs::path& path = it->path();
    if (path.extension() == ".lfts" || path.extension() == ".error") engines.insert(path.stem().string());
  }
  if (error) throw IoError("--opensm-dir '" + directory + "': " + error.message());
  if (engines.empty()) {
    throw IoError("--opensm-dir '" + directory + "' holds no <engine>.lfts or <engine>.error file");
  }
  std::vector<ImportedRouting> out;
  for (const std::string& engine : engines) {
    ImportedRouting& imported = out.emplace_back();
    imported.engine = engine;
    const fs::path base = fs::path(directory) / engine;
    imported.opensmOptions = firstLine(base.string() + ".options");
    const std::string errorFile = base.string() + ".error";
    if (fs::exists(errorFile, error)) {
      imported.refused = true;
      imported.reason = trimmed(readFileText(errorFile));
      continue;
    }
    imported.routing = readLftDump(base.string() + ".lfts", network);
    const std::string slFile = base.string() + ".sl";
    if (fs::exists(slFile, error)) {
      imported.routing = applySlTable(network, std::move(imported.routing), readSlTable(slFile), false);
    }
    imported.routing.engine = "opensm:" + engine;
  }
  return out;
}

}  // namespace routelab
