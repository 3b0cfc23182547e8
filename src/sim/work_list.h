// routelab/sim/work_list.h — the engine's lists of events, switches and links per cycle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace routelab::sim {

/// A list of 64-bit work items (events, switches, links) that can also append without a
/// branch on whether the item is taken (pushIf: the wake of a switch already woken for that
/// cycle is not taken, and which are is data, not a pattern a predictor learns).
class WorkList {
 public:
  WorkList() = default;
  WorkList(const WorkList&) = delete;
  WorkList& operator=(const WorkList&) = delete;
  WorkList(WorkList&& other) noexcept { swap(other); }
  WorkList& operator=(WorkList&& other) noexcept {
    swap(other);
    return *this;
  }
  ~WorkList() = default;

  void push_back(std::uint64_t item) {
    if (size_ == capacity_) grow();
    data_[size_++] = item;
  }
  /// Appends `item` if `take`.
  void pushIf(bool take, std::uint64_t item) {
    if (size_ == capacity_) grow();
    data_[size_] = item;
    size_ += take ? 1 : 0;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }
  /// Sets the size to n (items past the old size are unspecified until written).
  void resize(std::size_t n) {
    while (capacity_ < n) grow();
    size_ = n;
  }
  std::uint64_t& operator[](std::size_t i) { return data_[i]; }
  std::uint64_t operator[](std::size_t i) const { return data_[i]; }
  std::uint64_t* begin() { return data_; }
  std::uint64_t* end() { return data_ + size_; }
  const std::uint64_t* begin() const { return data_; }
  const std::uint64_t* end() const { return data_ + size_; }
  void swap(WorkList& other) noexcept {
    storage_.swap(other.storage_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

 private:
  void grow() {
    storage_.resize(2 * capacity_ + 16);
    data_ = storage_.data();
    capacity_ = storage_.size();
  }
  std::vector<std::uint64_t> storage_;  // every element is storage: size_ of them are the list
  std::uint64_t* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace routelab::sim
