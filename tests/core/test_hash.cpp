// FNV-1a 64 (core/hash.h) against the published test vectors (draft-eastlake-fnv, the FNV
// authors' table): a change here would change every sweep's identity in existing results
// databases and every OpenSM cache key.
#include <gtest/gtest.h>

#include <string>

#include "core/hash.h"

using namespace routelab;

TEST(Fnv1a64, PublishedTestVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
  static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
}

TEST(Fnv1a64, BytesAreUnsignedAndPiecesJoin) {
  // A byte above 0x7f is hashed as 0..255, not sign-extended.
  const std::string high = "\xe9t\xe9";
  std::uint64_t byHand = kFnv1a64Offset;
  for (const unsigned char c : high) byHand = (byHand ^ c) * kFnv1a64Prime;
  EXPECT_EQ(fnv1a64(high), byHand);
  EXPECT_EQ(fnv1a64("bar", fnv1a64("foo")), fnv1a64("foobar"));
}
