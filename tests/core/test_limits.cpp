// formatBytes (core/limits.h): the size every memory refusal names, in the largest binary
// unit the size reaches, checked at each unit's boundary and one below it.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/limits.h"

namespace routelab {
namespace {

TEST(FormatBytes, EachUnitStartsAtItsPowerOfTwoTimesTenAndNotOneByteBefore) {
  EXPECT_EQ(formatBytes(0), "0 bytes");
  EXPECT_EQ(formatBytes(17), "17 bytes");
  EXPECT_EQ(formatBytes(1023), "1023 bytes");
  EXPECT_EQ(formatBytes(1024), "1.0 KiB");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatBytes(12 * 1024), "12.0 KiB");
  const std::uint64_t mebibyte = std::uint64_t{1} << 20;
  EXPECT_EQ(formatBytes(mebibyte - 1024), "1023.0 KiB");
  EXPECT_EQ(formatBytes(mebibyte), "1.0 MiB");
  EXPECT_EQ(formatBytes(800 * mebibyte), "800.0 MiB");
  EXPECT_EQ(formatBytes(3 * (mebibyte << 9)), "1.5 GiB");
  EXPECT_EQ(formatBytes(mebibyte << 20), "1.0 TiB");
  EXPECT_EQ(formatBytes(mebibyte << 30), "1.0 PiB");
  EXPECT_EQ(formatBytes(mebibyte << 40), "1.0 EiB");
  // EiB is the last unit: 2^64 - 2 bytes are 16 of it, not 0.0-something of a next one.
  EXPECT_EQ(formatBytes(std::numeric_limits<std::uint64_t>::max() - 1), "16.0 EiB");
  // UINT64_MAX is what saturatingBytes returns for a product that overflows.
  EXPECT_EQ(formatBytes(std::numeric_limits<std::uint64_t>::max()), "more than 16 EiB");
  EXPECT_EQ(formatBytes(saturatingBytes(std::uint64_t{1} << 62, 8)), "more than 16 EiB");
}

}  // namespace
}  // namespace routelab
