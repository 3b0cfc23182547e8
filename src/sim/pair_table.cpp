// The per-pair sequence numbers of in-order delivery (sim/pair_table.h).
#include "sim/pair_table.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace routelab::sim {

PairTable::PairTable(std::size_t terminals, std::size_t denseLimit, std::uint64_t denseCounterLimit,
                     std::uint64_t budgetBytes)
    : terminals_(terminals),
      dense_(terminals * terminals <= denseLimit),
      denseCounterLimit_(denseCounterLimit),
      budgetBytes_(budgetBytes) {
  if (dense_) {
    next_.assign(terminals * terminals, 0);
    expected_.assign(terminals * terminals, 0);
  } else {
    entries_.resize(1024);
  }
}

void PairTable::toMap() {
  dense_ = false;
  entries_.assign(1024, Entry{});
  size_ = 0;
  for (std::size_t i = 0; i < next_.size(); ++i) {
    if (next_[i] == 0) continue;  // (expected <= next: an untouched pair)
    Entry& entry = find(key(static_cast<std::uint32_t>(i / terminals_), static_cast<std::uint32_t>(i % terminals_)));
    entry.next = next_[i];
    entry.expected = expected_[i];
  }
  next_ = {};
  expected_ = {};
}

PairTable::Entry& PairTable::find(std::uint64_t key) {
  const std::size_t mask = entries_.size() - 1;
  for (std::size_t i = home(key);; i = (i + 1) & mask) {
    Entry& entry = entries_[i];
    if (entry.key == key) return entry;
    if (entry.key == kEmpty) {
      if (2 * (size_ + 1) > entries_.size()) {  // a new pair: at most half full
        grow();
        return find(key);
      }
      entry.key = key;
      ++size_;
      return entry;
    }
  }
}

void PairTable::erase(std::size_t i) {
  const std::size_t mask = entries_.size() - 1;
  for (std::size_t j = (i + 1) & mask; entries_[j].key != kEmpty; j = (j + 1) & mask) {
    // The entry at j is found from its home slot by probing forward to j: it may move back to
    // the hole at i when i lies on that way, i.e. its home is no nearer to j than i is.
    if (((j - home(entries_[j].key)) & mask) >= ((j - i) & mask)) {
      entries_[i] = entries_[j];
      i = j;
    }
  }
  entries_[i] = Entry{};
  --size_;
}

void PairTable::grow() {
  const std::size_t entries = entries_.size() * 2;
  // (the old table lives on while the new one fills: both count)
  checkMemory(fmt::format("the simulator's in-order tracking ({} (source, destination) pairs have sent; run fewer "
                          "cycles), with the old table beside the new one",
                          size_),
              entries + entries_.size(), "entries", sizeof(Entry), budgetBytes_);
  std::vector<Entry> old(entries);
  old.swap(entries_);
  const std::size_t mask = entries_.size() - 1;
  for (const Entry& entry : old) {
    if (entry.key == kEmpty) continue;
    std::size_t i = home(entry.key);
    while (entries_[i].key != kEmpty) i = (i + 1) & mask;
    entries_[i] = entry;
  }
}

}  // namespace routelab::sim
