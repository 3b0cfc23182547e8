#include "io/opensm_engine_dir.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "core/errors.h"
#include "io/lft_dump.h"
#include "io/output.h"

namespace routelab {

namespace {

namespace fs = std::filesystem;

struct EngineFiles {
  std::string lfts, sl, error, options;
};

bool engineName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

/// The engine files of `dir`, by engine name: `<engine>.<lfts|sl|error|options>[.gz]`.
std::map<std::string, EngineFiles> engineFiles(const std::string& dir, const std::string& shownAs) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw IoError(fmt::format("{}: not a readable directory", shownAs));
  std::map<std::string, EngineFiles> out;
  fs::directory_iterator it(dir, error), end;
  if (error) throw IoError(fmt::format("{}: {}", shownAs, error.message()));
  for (; it != end; it.increment(error)) {
    if (error) throw IoError(fmt::format("{}: {}", shownAs, error.message()));
    std::string name = it->path().filename().string();
    if (name.size() > 3 && name.substr(name.size() - 3) == ".gz") name.resize(name.size() - 3);
    const std::size_t dot = name.rfind('.');
    if (dot == std::string::npos || !engineName(name.substr(0, dot))) continue;
    const std::string kind = name.substr(dot + 1);
    EngineFiles& files = out[name.substr(0, dot)];
    std::string* slot = kind == "lfts"      ? &files.lfts
                        : kind == "sl"      ? &files.sl
                        : kind == "error"   ? &files.error
                        : kind == "options" ? &files.options
                                            : nullptr;
    if (slot == nullptr) continue;
    if (!slot->empty()) {
      throw IoError(fmt::format("{}: both {} and {}: keep one", dir, fs::path(*slot).filename().string(),
                                it->path().filename().string()));
    }
    *slot = it->path().string();
  }
  std::erase_if(out, [](const auto& entry) {
    const EngineFiles& f = entry.second;
    return f.lfts.empty() && f.sl.empty() && f.error.empty() && f.options.empty();
  });
  return out;
}

/// Every LID of `routing` (read from `file`) is the one `lids` gives its owner's port.
void checkLids(const Network& network, const RoutingResult& routing, const LidMap& lids, const std::string& file) {
  for (Address a = 0; a < routing.addresses.count(); ++a) {
    const NodeId owner = routing.addresses.owner(a);
    const LidMap::Entry* entry = lids.find(network, owner);
    const std::uint32_t lid = routing.addresses.lid(a);
    if (entry == nullptr) {
      throw RoutingError(
          fmt::format("{}: LID {} is '{}', which has no LID in {}", file, lid, network.name(owner), lids.source));
    }
    if (lid < entry->lid || lid - entry->lid >= (1U << entry->lmc)) {
      throw RoutingError(
          fmt::format("{}: LID {} is '{}', whose LID in {} is {} (LMC {}): the dump was made on "
                      "other LIDs",
                      file, lid, network.name(owner), lids.source, entry->lid, entry->lmc));
    }
  }
}

/// `text` without surrounding blanks.
std::string trimmedText(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") + 1 - first);
}

OpensmEngineRun readEngine(const std::string& dir, const std::string& engine, const EngineFiles& files,
                           const Network& network, const LidMap& fabricLids) {
  OpensmEngineRun run;
  run.engine = engine;
  run.lftFile = files.lfts;
  run.slFile = files.sl;
  run.errorFile = files.error;
  run.optionsFile = files.options;
  if (!files.options.empty()) {
    const std::string text = readFileText(files.options);
    run.opensmOptions = trimmedText(text.substr(0, text.find('\n')));
  }
  if (!files.error.empty()) {
    if (!files.lfts.empty() || !files.sl.empty()) {
      throw IoError(fmt::format("{}: engine '{}' has an .error file and tables: an engine either ran or was refused",
                                dir, engine));
    }
    run.error = trimmedText(readFileText(files.error)).substr(0, 2000);
    if (run.error.empty()) run.error = "OpenSM refused the engine (empty .error file)";
    return run;
  }
  if (files.lfts.empty()) {
    throw IoError(fmt::format("{}: engine '{}' has {} but no {}.lfts or {}.error", dir, engine,
                              files.sl.empty() ? "an options file" : "an SL file", engine, engine));
  }
  RoutingResult routing = readLftDump(files.lfts, network);
  if (!fabricLids.empty()) checkLids(network, routing, fabricLids, files.lfts);
  if (!files.sl.empty()) {
    run.sl = readSlTable(files.sl);
    routing = applySlTable(network, std::move(routing), *run.sl, false);
  }
  routing.engine = "opensm:" + engine;
  run.routing = std::move(routing);
  return run;
}

}  // namespace

const std::vector<std::string>& opensmEngineNames() {
  static const std::vector<std::string> names = {"ftree", "updn", "minhop", "lash", "dfsssp", "nue"};
  return names;
}

std::vector<OpensmEngineRun> readOpensmEngineDir(const std::string& dir, const Network& network,
                                                 const LidMap& fabricLids, const std::string& shownAs) {
  const std::string shown = shownAs.empty() ? dir : shownAs;
  std::map<std::string, EngineFiles> files = engineFiles(dir, shown);
  const bool anyEngine = std::any_of(files.begin(), files.end(), [](const auto& entry) {
    return !entry.second.lfts.empty() || !entry.second.error.empty();
  });
  if (!anyEngine) throw IoError(fmt::format("{} holds no <engine>.lfts or <engine>.error file", shown));
  std::vector<OpensmEngineRun> runs;
  for (const std::string& engine : opensmEngineNames()) {
    if (auto it = files.find(engine); it != files.end()) {
      runs.push_back(readEngine(dir, engine, it->second, network, fabricLids));
      files.erase(it);
    }
  }
  for (const auto& [engine, engineFiles] : files)
    runs.push_back(readEngine(dir, engine, engineFiles, network, fabricLids));
  return runs;
}

}  // namespace routelab
