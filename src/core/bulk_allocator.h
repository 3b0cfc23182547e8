// routelab/core/bulk_allocator.h — the allocator of the library's largest arrays
// (forwarding tables: one byte per switch x address, 1 GiB on a 65,536-terminal fat-tree, and
// their candidate-list ids; the simulator's channel records).
//
// Two differences from std::allocator, both about the cost of touching a gigabyte:
//   * value-less construction (`vector.resize(n)`, `vector(n)`) default-initialises, so
//     a trivially constructible element is NOT zeroed: a caller that writes every element
//     anyway saves one pass over the memory. Construction with a value (`vector(n, x)`,
//     `assign`) behaves as always.
//   * blocks of at least kBulkBytes are aligned to 2 MiB and, on Linux, advised as
//     transparent huge pages (madvise MADV_HUGEPAGE; honoured when the kernel's THP mode is
//     `always` or `madvise`), so first touch costs one page fault per 2 MiB instead of per
//     4 KiB. Where the kernel declines, the memory is ordinary pages; results never depend
//     on it.
//   * on Linux, a block of at least kBulkBytes is a fresh anonymous mapping: it reads as
//     zeros and occupies no memory until written (bulkZeroed() says whether a size gets
//     this), so a caller that writes only part of a large array pays only for that part —
//     a block of a parallel simulation writes only its own channels' records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace routelab {

template <class T>
class BulkAllocator {
 public:
  using value_type = T;
  /// Blocks at least this large are 2 MiB aligned and advised as huge pages (at most half a
  /// huge page of rounding per block). Huge pages also spare the TLB misses of random access
  /// to tables of many megabytes: filling the 125 MB adaptive table of a 4096-terminal
  /// fat-tree took half the CPU time (docs/PERFORMANCE.md "Simulation speed").
  static constexpr std::size_t kBulkBytes = std::size_t{4} << 20;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  BulkAllocator() noexcept = default;
  template <class U>
  BulkAllocator(const BulkAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor): rebinding

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kBulkBytes) return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    const std::size_t rounded = roundedBytes(bytes);
#if defined(__linux__)
    // Map a huge page more than needed, then unmap the head and tail around the 2 MiB
    // aligned part.
    void* mapped = ::mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<std::byte*>(mapped);
    const std::size_t head = (kHugePage - reinterpret_cast<std::uintptr_t>(base) % kHugePage) % kHugePage;
    if (head > 0) (void)::munmap(base, head);
    if (kHugePage - head > 0) (void)::munmap(base + head + rounded, kHugePage - head);
    void* block = base + head;
#if defined(MADV_HUGEPAGE)
    (void)::madvise(block, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
#else
    void* block = std::aligned_alloc(kHugePage, rounded);
    if (block == nullptr) throw std::bad_alloc();
#endif
    return static_cast<T*>(block);
  }

  void deallocate(T* block, std::size_t n) noexcept {
    if (n * sizeof(T) < kBulkBytes) {
      ::operator delete (block, std::align_val_t{alignof(T)});
    } else {
#if defined(__linux__)
      (void)::munmap(block, roundedBytes(n * sizeof(T)));
#else
      std::free(block);
#endif
    }
  }

  /// Whether a block of n elements comes zeroed and untouched (a fresh mapping).
  static constexpr bool bulkZeroed(std::size_t n) noexcept {
#if defined(__linux__)
    return n * sizeof(T) >= kBulkBytes;
#else
    (void)n;
    return false;
#endif
  }

  /// Value-less construction default-initialises (no zeroing of trivial types).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const BulkAllocator<U>&) const noexcept {
    return true;
  }

 private:
  static constexpr std::size_t roundedBytes(std::size_t bytes) noexcept {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
  }
};

}  // namespace routelab
