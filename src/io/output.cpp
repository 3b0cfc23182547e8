#include "io/output.h"

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"

namespace routelab {

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  const std::string temporary = fmt::format("{}.tmp-{}", path, ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    try {
      writer(out);
      out.flush();
    } catch (...) {
      out.close();
      std::remove(temporary.c_str());
      throw;
    }
    if (!out) {
      out.close();
      std::remove(temporary.c_str());
      throw IoError(fmt::format("error while writing '{}'", path));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::remove(temporary.c_str());
    throw IoError(fmt::format("cannot write '{}': {}", path, error.message()));
  }
}

std::string readFileText(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw IoError(fmt::format("'{}' is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string data = buffer.str();
  if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b) {
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) throw IoError(fmt::format("cannot open '{}' as gzip", path));
    std::string out;
    char chunk[1 << 16];
    int got = 0;
    while ((got = gzread(file, chunk, sizeof chunk)) > 0) out.append(chunk, static_cast<std::size_t>(got));
    int errnum = 0;
    const char* message = gzerror(file, &errnum);
    const bool failed = got < 0 || (errnum != Z_OK && errnum != Z_STREAM_END);
    const std::string why = message ? message : "";
    gzclose(file);
    if (failed) throw IoError(fmt::format("'{}': corrupt gzip data ({})", path, why));
    return out;
  }
  return data;
}

}  // namespace routelab
