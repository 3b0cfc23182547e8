// core/bulk_allocator.h: small blocks are ordinary, bulk blocks (at least kBulkBytes) are
// 2 MiB aligned and, on Linux, fresh mappings that read as zeros — the guarantee that lets a
// block of a parallel simulation write only its own channels' records (sim/engine_setup.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/bulk_allocator.h"

namespace routelab {
namespace {

TEST(BulkAllocator, BulkBlocksAreHugePageAligned) {
  BulkAllocator<std::uint64_t> allocator;
  const std::size_t n = BulkAllocator<std::uint64_t>::kBulkBytes / sizeof(std::uint64_t) + 3;
  std::uint64_t* block = allocator.allocate(n);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % BulkAllocator<std::uint64_t>::kHugePage, 0U);
  block[n - 1] = 7;  // the last element is usable
  EXPECT_EQ(block[n - 1], 7U);
  allocator.deallocate(block, n);
}

#if defined(__linux__)
TEST(BulkAllocator, BulkBlocksReadAsZerosEvenAfterAnotherWasWrittenAndFreed) {
  using Allocator = BulkAllocator<std::uint32_t>;
  const std::size_t n = 2 * Allocator::kBulkBytes / sizeof(std::uint32_t);
  ASSERT_TRUE(Allocator::bulkZeroed(n));
  ASSERT_FALSE(Allocator::bulkZeroed(16));
  // glibc serves a block below its mmap threshold from the heap, and freeing a mapping of N
  // bytes raises that threshold to N: after this, a heap-based allocator would hand the next
  // round the dirty block the previous round freed.
  void* volatile large = std::malloc(std::size_t{24} << 20);
  std::free(large);
  Allocator allocator;
  for (int round = 0; round < 3; ++round) {
    std::uint32_t* block = allocator.allocate(n);
    EXPECT_TRUE(std::all_of(block, block + n, [](std::uint32_t v) { return v == 0; })) << "round " << round;
    std::fill(block, block + n, 0xdeadbeefU);
    allocator.deallocate(block, n);
  }
}

TEST(BulkAllocator, ValueLessResizeOfABulkVectorIsZero) {
  std::vector<std::uint64_t, BulkAllocator<std::uint64_t>> values;
  values.resize(BulkAllocator<std::uint64_t>::kBulkBytes / sizeof(std::uint64_t));
  EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](std::uint64_t v) { return v == 0; }));
}
#endif

}  // namespace
}  // namespace routelab
