// Gzipped input (docs/FORMATS.md, its opening; io/output.h readFileText): content starting
// with the gzip magic is decompressed; several members one after another (as `cat a.gz b.gz`
// makes) read as one file, as gunzip reads them; bytes after the last member that do not start
// a member are ignored, as zlib's gzread ignores them; a member cut short is truncated data.
// The members are made by the system's gzip, and every accepted file is checked against what
// `gzip -dc` gives for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/errors.h"
#include "io/output.h"
#include "test_support.h"

using namespace routelab;

namespace {

/// `text` compressed by the system's gzip (one member).
std::string gzipped(const std::string& text) {
  const std::filesystem::path plain = test::scratchDir() / "member.txt";
  std::ofstream(plain, std::ios::binary) << text;
  const test::CommandResult gz = test::runCommand("gzip -c '" + plain.string() + "'");
  EXPECT_EQ(gz.exitCode, 0) << gz.err;
  EXPECT_GE(gz.out.size(), 18U);  // a member: 10-byte header, data, 8-byte trailer
  return gz.out;
}

/// Writes `bytes` to a scratch file named `name`; returns its path.
std::string fileOf(const std::string& name, const std::string& bytes) {
  const std::string path = (test::scratchDir() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

/// The message of the IoError readFileText throws for `path` ("no error" if none).
std::string errorOf(const std::string& path) {
  try {
    readFileText(path);
  } catch (const IoError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(GzipInput, ConcatenatedMembersReadAsOneFileAsGunzipReadsThem) {
  const std::string first = "Switch 4 \"S-1\"\n", second = "[1] \"H-1\"[1]\n", third = "# end\n";
  const std::string path = fileOf("three.gz", gzipped(first) + gzipped(second) + gzipped(third));
  EXPECT_EQ(readFileText(path), first + second + third);
  EXPECT_EQ(test::runCommand("gzip -dc '" + path + "'").out, first + second + third);
  // An empty member in between adds nothing.
  EXPECT_EQ(readFileText(fileOf("with_empty.gz", gzipped(first) + gzipped("") + gzipped(second))), first + second);
}

TEST(GzipInput, BytesAfterTheLastMemberThatStartNoMemberAreIgnored) {
  const std::string text = "vertex 0\nvertex 1\n";
  for (const std::string& tail : {std::string("trailing text\n"), std::string("\x1f"), std::string(1, '\0'),
                                  std::string("\x1f\x8a\x08\x00", 4)}) {
    const std::string path = fileOf("tail.gz", gzipped(text) + tail);
    EXPECT_EQ(readFileText(path), text) << tail.size() << " bytes after the member";
  }
}

TEST(GzipInput, AMemberCutShortIsTruncatedDataNamedWithItsPath) {
  const std::string whole = gzipped("line one\nline two\nline three\n");
  const std::string second = gzipped("more\n");
  // A second member cut right after its two magic bytes, after its header, inside its trailer;
  // the only member cut inside its data.
  for (const std::string& bytes : {whole + second.substr(0, 2), whole + second.substr(0, 10),
                                   whole + second.substr(0, second.size() - 1), whole.substr(0, whole.size() / 2)}) {
    const std::string path = fileOf("cut.gz", bytes);
    EXPECT_EQ(errorOf(path), "'" + path + "': corrupt gzip data (truncated)") << bytes.size() << " bytes";
    EXPECT_NE(test::runCommand("gzip -dc '" + path + "'").exitCode, 0) << "gzip agrees: " << bytes.size() << " bytes";
  }
  // The shortest file the magic names: its two bytes alone are a truncated member; one byte of
  // it is text.
  const std::string magic = fileOf("magic.gz", second.substr(0, 2));
  EXPECT_EQ(errorOf(magic), "'" + magic + "': corrupt gzip data (truncated)");
  EXPECT_EQ(readFileText(fileOf("one.gz", second.substr(0, 1))), second.substr(0, 1));
}

// The reader inflates into 64 KiB pieces: a member of many pieces (1 MB of text, compressed
// to less than one piece) reads whole, alone and as two members.
TEST(GzipInput, AHighlyCompressedMemberOfManyPiecesReadsWhole) {
  std::string text;
  for (std::size_t line = 0; text.size() < 1000000; ++line) text += std::string(79, "ab"[line % 2]) + "\n";
  const std::string whole = gzipped(text);
  ASSERT_LT(whole.size(), 1U << 16);
  EXPECT_EQ(readFileText(fileOf("many.gz", whole)), text);
  EXPECT_EQ(readFileText(fileOf("many2.gz", whole + whole)), text + text);
}

// The reader inflates into 64 KiB pieces: a member of exactly one piece whose trailer is cut
// fills the piece and leaves zlib no input to go on with (its Z_BUF_ERROR, without a message),
// which is truncated data too — also with the data's end-of-block cut.
TEST(GzipInput, AMemberFillingTheDecodersPieceAndCutShortIsTruncatedData) {
  std::string text;
  for (std::size_t line = 0; text.size() < (1U << 16); ++line) text += "line " + std::to_string(line) + "\n";
  text.resize(1U << 16);
  const std::string whole = gzipped(text);
  for (std::size_t cut = 1; cut <= 12; ++cut) {
    const std::string path = fileOf("piece.gz", whole.substr(0, whole.size() - cut));
    EXPECT_EQ(errorOf(path), "'" + path + "': corrupt gzip data (truncated)") << cut << " bytes cut";
  }
}

TEST(GzipInput, CorruptDataIsRefusedWithZlibsReason) {
  std::string bytes = gzipped("abcdefghijklmnopqrstuvwxyz\n");
  bytes[3] = static_cast<char>(0xe0);  // reserved header flag bits set
  const std::string path = fileOf("corrupt.gz", bytes);
  const std::string message = errorOf(path);
  EXPECT_EQ(message.rfind("'" + path + "': corrupt gzip data (", 0), 0U) << message;
  EXPECT_EQ(message.find("truncated"), std::string::npos) << message;
}
