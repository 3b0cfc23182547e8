#include "io/output.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/errors.h"

namespace routelab {

namespace {

std::string temporaryOf(const std::string& path) { return fmt::format("{}.tmp-{}", path, ::getpid()); }

/// Writes `file` to its temporary; on any failure removes it and throws.
void writeTemporary(const OutputFile& file) {
  const std::string temporary = temporaryOf(file.path);
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError(fmt::format("cannot write '{}': {}", file.path, std::strerror(errno)));
  try {
    file.writer(out);
    out.flush();
  } catch (...) {
    out.close();
    std::remove(temporary.c_str());
    throw;
  }
  if (!out) {
    out.close();
    std::remove(temporary.c_str());
    throw IoError(fmt::format("error while writing '{}'", file.path));
  }
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  writeFilesAtomically({OutputFile{path, writer}});
}

void writeFilesAtomically(const std::vector<OutputFile>& files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (files[i].path == files[j].path) {
        throw SpecError(fmt::format("output file '{}' is named twice", files[i].path));
      }
    }
  }
  std::size_t written = 0;
  try {
    for (; written < files.size(); ++written) writeTemporary(files[written]);
  } catch (...) {
    for (std::size_t i = 0; i < written; ++i) std::remove(temporaryOf(files[i].path).c_str());
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code error;
    std::filesystem::rename(temporaryOf(files[i].path), files[i].path, error);
    if (error) {
      for (std::size_t j = i; j < files.size(); ++j) std::remove(temporaryOf(files[j].path).c_str());
      throw IoError(fmt::format("cannot write '{}': {}", files[i].path, error.message()));
    }
  }
}

std::string joinKinds(const std::vector<std::string>& kinds) {
  std::string out;
  for (const std::string& kind : kinds) out += (out.empty() ? "" : ", ") + kind;
  return out;
}

void requireExportKinds(const std::vector<ExportFile>& exports, const std::vector<std::string>& kinds,
                        const std::string& noun) {
  for (const ExportFile& e : exports) {
    if (std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end()) continue;
    throw SpecError(fmt::format("export: unknown {} '{}' ({})", noun, e.kind, joinKinds(kinds)));
  }
}

std::string readFileText(const std::string& path) {
  // Devices such as /dev/zero or /dev/urandom would never end: only regular files and pipes
  // (e.g. /dev/stdin, process substitution) are read.
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (!error) {
    if (std::filesystem::is_directory(status)) throw IoError(fmt::format("'{}' is a directory", path));
    if (std::filesystem::is_character_file(status) || std::filesystem::is_block_file(status) ||
        std::filesystem::is_socket(status)) {
      throw IoError(fmt::format("'{}' is not a regular file (a device or socket)", path));
    }
    if (std::filesystem::is_regular_file(status)) {
      const auto size = std::filesystem::file_size(path, error);
      if (!error && size > kMaxInputFileBytes) {
        throw IoError(fmt::format("'{}' has {} bytes; input files are limited to {} bytes (docs/RELIABILITY.md)", path,
                                  size, kMaxInputFileBytes));
      }
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::string data;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    data.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (data.size() > kMaxInputFileBytes) {
      throw IoError(fmt::format("'{}': more than {} bytes; input files are limited to that (docs/RELIABILITY.md)", path,
                                kMaxInputFileBytes));
    }
  }
  if (in.bad()) throw IoError(fmt::format("error while reading '{}'", path));
  if (data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b) {
    return gunzipText(data, path);
  }
  return data;
}

std::string gunzipText(const std::string& compressed, const std::string& name) {
  z_stream stream{};
  // 15 + 32: zlib or gzip header, detected automatically.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) throw IoError(fmt::format("'{}': cannot start gzip decoder", name));
  std::string out;
  char chunk[1 << 16];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  std::size_t remaining = compressed.size();
  int status = Z_OK;
  std::string why;
  while (true) {
    if (stream.avail_in == 0 && remaining > 0) {
      const auto take = static_cast<uInt>(std::min<std::size_t>(remaining, 1U << 30));
      stream.avail_in = take;
      remaining -= take;
    }
    stream.next_out = reinterpret_cast<Bytef*>(chunk);
    stream.avail_out = sizeof chunk;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - stream.avail_out);
    if (out.size() > kMaxInputFileBytes) {
      inflateEnd(&stream);
      throw IoError(
          fmt::format("'{}': decompresses to more than {} bytes; input files are limited to that "
                      "(docs/RELIABILITY.md)",
                      name, kMaxInputFileBytes));
    }
    if (status == Z_STREAM_END) {
      // Concatenated gzip members (as `cat a.gz b.gz` makes) are one file for gunzip;
      // anything else after the end of the stream is ignored, as zlib's gzread does.
      if (stream.avail_in >= 2 && stream.next_in[0] == 0x1f && stream.next_in[1] == 0x8b &&
          inflateReset(&stream) == Z_OK) {
        continue;
      }
      break;
    }
    if (status != Z_OK) {
      why = stream.msg ? stream.msg : (status == Z_BUF_ERROR ? "truncated" : "decoder error");
      break;
    }
    if (stream.avail_in == 0 && remaining == 0 && stream.avail_out != 0) {
      why = "truncated";
      break;
    }
  }
  inflateEnd(&stream);
  if (!why.empty()) throw IoError(fmt::format("'{}': corrupt gzip data ({})", name, why));
  return out;
}

}  // namespace routelab
