// routelab/sim/pair_table.h — the per-pair sequence numbers of in-order delivery
// (docs/SIMULATION.md "In-order delivery"): for each (source, destination) pair, the sequence
// number of its next generated packet and of the next one the destination expects in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/limits.h"

namespace routelab::sim {

/// The per-pair state of in-order tracking. Dense (two 32-bit counters per pair, no hashing)
/// when terminals^2 is at most `denseLimit`; otherwise an open-addressing map of 64-bit
/// counters. A dense table whose counter would pass `denseCounterLimit` (2^32 - 1) becomes a
/// map first, so sequence numbers are exact at any count. The map grows with the pairs that
/// have sent: a growth beyond `budgetBytes` (the memory budget) throws LimitError before
/// allocating.
class PairTable {
 public:
  static constexpr std::uint64_t kDenseCounterLimit = ~std::uint32_t{0};
  explicit PairTable(std::size_t terminals, std::size_t denseLimit = std::size_t{1} << 20,
                     std::uint64_t denseCounterLimit = kDenseCounterLimit,
                     std::uint64_t budgetBytes = kMemoryBudgetBytes);
  /// The pair's next `count` sequence numbers: returns the first, and the next one after them
  /// is count higher.
  std::uint64_t takeSequences(std::uint32_t source, std::uint32_t destination, std::uint32_t count) {
    if (dense_) {
      std::uint32_t& next = next_[index(source, destination)];
      if (next + std::uint64_t{count} <= denseCounterLimit_) {
        const std::uint64_t first = next;
        next += count;
        return first;
      }
      toMap();
    }
    Entry& entry = find(key(source, destination));
    const std::uint64_t first = entry.next;
    entry.next += count;
    return first;
  }
  /// Requests the pair's entry (expected() and setExpected() read it soon). Always inlined:
  /// GCC finds a function of prefetches alone pure and deletes its calls.
  [[gnu::always_inline]] void prefetch(std::uint32_t source, std::uint32_t destination) const {
    if (dense_) {
      __builtin_prefetch(&expected_[index(source, destination)]);
    } else if (!entries_.empty()) {
      __builtin_prefetch(&entries_[home(key(source, destination))]);
    }
  }
  /// The sequence number the pair's next in-order packet has.
  std::uint64_t expected(std::uint32_t source, std::uint32_t destination) {
    return dense_ ? expected_[index(source, destination)] : find(key(source, destination)).expected;
  }
  /// Sets it (at most the pair's next sequence number: the packets taken so far).
  void setExpected(std::uint32_t source, std::uint32_t destination, std::uint64_t value) {
    if (dense_) {
      expected_[index(source, destination)] = static_cast<std::uint32_t>(value);  // (value <= next: fits)
      return;
    }
    Entry& entry = find(key(source, destination));
    if (forgetIdle_ && value == entry.next) {
      erase(static_cast<std::size_t>(&entry - entries_.data()));
    } else {
      entry.expected = value;
    }
  }
  /// Map form: a pair whose every packet taken has been delivered in order (expected reaches
  /// next) is removed, and its next packet starts again at sequence number 0. The
  /// simulator's hop compares sequence numbers only with each other within a pair (which
  /// packet is due next), so this changes no result, and the map then holds only the pairs
  /// with packets under way instead of every pair that ever sent. Only where the numbers
  /// themselves are not reported (SimConfig::recordPackets).
  /// In a partitioned run each engine's table sees only its sources' takes and its
  /// destinations' deliveries: a pair between two blocks never reaches expected == next in
  /// either table (next stays 0 at the destination's, expected at the source's) and keeps its
  /// numbers; a pair within one block is forgotten as on one engine.
  void forgetIdlePairs(bool forget) { forgetIdle_ = forget; }
  bool dense() const { return dense_; }
  /// Pairs held in the map form (0 while dense).
  std::size_t mapPairs() const { return dense_ ? 0 : size_; }

 private:
  struct Entry {
    std::uint64_t key = kEmpty;
    std::uint64_t next = 0;
    std::uint64_t expected = 0;
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static std::uint64_t key(std::uint32_t source, std::uint32_t destination) {
    return (std::uint64_t{source} << 32) | destination;
  }
  std::size_t index(std::uint32_t source, std::uint32_t destination) const {
    return std::size_t{source} * terminals_ + destination;
  }
  Entry& find(std::uint64_t key);
  /// Removes entry i (linear probing: the entries after it that would not be found move back).
  void erase(std::size_t i);
  std::size_t home(std::uint64_t key) const { return (key * 0x9e3779b97f4a7c15ULL) >> 20 & (entries_.size() - 1); }
  void grow();
  /// The dense counters moved into the map (the pairs with a packet taken).
  void toMap();
  std::size_t terminals_ = 0;
  bool dense_ = false;
  std::uint64_t denseCounterLimit_ = kDenseCounterLimit;
  std::uint64_t budgetBytes_ = kMemoryBudgetBytes;
  bool forgetIdle_ = false;
  std::vector<std::uint32_t> next_, expected_;  // dense
  std::vector<Entry> entries_;                  // map
  std::size_t size_ = 0;
};

}  // namespace routelab::sim
