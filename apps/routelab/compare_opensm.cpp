#include "compare_opensm.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "report/opensm_collect.h"

namespace routelab::cli {

namespace {

std::string environmentVariable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

std::string collectOpenSmForCompare(const std::string& spec, const std::string& cache, bool quiet) {
  // Tools first: without them nothing else is worth doing (and nothing is written).
  const std::string path = environmentVariable("PATH");
  requireOpenSmTools(path);
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw IoError("cannot find this program's own path (/proc/self/exe): " + error.message());
  OpenSmCollectOptions options;
  options.routelab = self.string();
  options.worker = (self.parent_path() / "routelab-opensm-engines").string();
  options.cache =
      !cache.empty() ? cache : defaultOpenSmCache(environmentVariable("XDG_CACHE_HOME"), environmentVariable("HOME"));
  options.path = path;
  options.temporary = environmentVariable("TMPDIR");
  options.label = spec;
  const Fabric fabric = loadFabric(spec);
  const OpenSmCollection collection = collectOpenSmEngines(fabric.network, options, [quiet](const std::string& line) {
    if (!quiet) std::cerr << "compare: " << line << std::endl;
  });
  if (!quiet) {
    if (collection.reused) {
      std::cerr << fmt::format("compare: opensm: reused {} ({})", collection.directory, collection.opensmVersion)
                << std::endl;
    } else {
      std::cerr << fmt::format("compare: opensm: collected in {:.1f} s into {}", collection.seconds,
                               collection.directory)
                << std::endl;
    }
  }
  return collection.directory;
}

}  // namespace routelab::cli
