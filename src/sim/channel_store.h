// routelab/sim/channel_store.h — where the fast engine keeps its per-channel and per-(channel,
// VC) state (sim/channel_state.h), and how it lies in memory (docs/SIMULATION.md "How the
// engine computes it", memory layout). The engine reads and writes the state through
// channel(), vc() and ring(); only this type knows the layout.
//
// Layout: one record per channel, recordLines() cache lines long: its ChannelState in the first
// line, then per VC a block (a power of two of at most 64 bytes, else the fewest whole lines)
// with the VcState, the VC's two packet-id rings (`slots` input then `slots` output entries) and
// `creditWords` 32-bit words (the cycles of lazy credits on their way: sim/credit_flow.h,
// which finds them 2 x slots words after the VcState). What one event reads of a channel lies
// in one or two neighbouring lines. Records of more than 4 MiB in all are on huge pages
// (core/bulk_allocator.h).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "core/bulk_allocator.h"
#include "sim/channel_state.h"

namespace routelab::sim {

/// `values` as n zeros. Where `sparse` (a block of a partitioned run, which writes only its
/// own part) a bulk array is left a fresh mapping, zero and occupying no memory until written
/// (core/bulk_allocator.h), instead of being written in full.
template <class Vector>
void assignZeros(Vector& values, std::size_t n, bool sparse) {
  using Value = typename Vector::value_type;
  if (sparse && BulkAllocator<Value>::bulkZeroed(n)) {
    values.resize(n);
  } else {
    values.assign(n, Value{});
  }
}

class ChannelStore {
 public:
  /// The layout for `channels` channels of `vcs` VCs, queues of `slots` packets, and
  /// `creditWords` words per VC after its rings. Allocates nothing (bytes() tells the size).
  void layOut(std::uint32_t channels, std::uint32_t vcs, std::uint32_t slots, std::uint32_t creditWords) {
    channels_ = channels;
    vcs_ = vcs;
    slots_ = slots;
    vcBytes_ =
        static_cast<std::uint32_t>(sizeof(VcState) + (2 * std::size_t{slots} + creditWords) * sizeof(std::uint32_t));
    vcBytes_ = vcBytes_ <= 64 ? std::bit_ceil(vcBytes_) : (vcBytes_ + 63) / 64 * 64;  // a block within few lines
    recordLines_ = static_cast<std::uint32_t>((sizeof(ChannelState) + std::size_t{vcs} * vcBytes_ + 63) / 64);
  }
  /// The records' size in bytes (whether they outgrow a core's caches).
  std::size_t bytes() const { return std::size_t{channels_} * recordLines_ * sizeof(Line); }
  /// Allocates the records, zero, and constructs those of the channels for which `owns(c)`:
  /// fresh state, `slots` credits per VC. Where `sparse`, the others may occupy no memory
  /// and must never be touched.
  template <class Owns>
  void allocate(bool sparse, Owns owns) {
    assignZeros(lines_, std::size_t{channels_} * recordLines_, sparse);
    for (std::uint32_t c = 0; c < channels_; ++c) {
      if (!owns(c)) continue;
      ::new (record(c)) ChannelState{};
      for (std::uint32_t v = 0; v < vcs_; ++v) {
        std::byte* block = record(c) + sizeof(ChannelState) + v * vcBytes_;
        ::new (block) VcState{};
        vc(c, v).credits = static_cast<std::uint16_t>(slots_);
        ::new (block + sizeof(VcState)) std::uint32_t[2 * std::size_t{slots_}]{};
      }
    }
  }

  ChannelState& channel(std::uint32_t c) { return *std::launder(reinterpret_cast<ChannelState*>(record(c))); }
  const ChannelState& channel(std::uint32_t c) const {
    return *std::launder(reinterpret_cast<const ChannelState*>(record(c)));
  }
  VcState& vc(std::uint32_t c, std::uint32_t v) {
    return *std::launder(reinterpret_cast<VcState*>(record(c) + sizeof(ChannelState) + v * vcBytes_));
  }
  const VcState& vc(std::uint32_t c, std::uint32_t v) const {
    return *std::launder(reinterpret_cast<const VcState*>(record(c) + sizeof(ChannelState) + v * vcBytes_));
  }
  /// The rings of (c, v): [0, slots) the input queue, [slots, 2 slots) the output queue.
  std::uint32_t* ring(std::uint32_t c, std::uint32_t v) {
    return std::launder(
        reinterpret_cast<std::uint32_t*>(record(c) + sizeof(ChannelState) + v * vcBytes_ + sizeof(VcState)));
  }
  const std::uint32_t* ring(std::uint32_t c, std::uint32_t v) const {
    return std::launder(
        reinterpret_cast<const std::uint32_t*>(record(c) + sizeof(ChannelState) + v * vcBytes_ + sizeof(VcState)));
  }

  /// Cache lines per channel record.
  std::uint32_t recordLines() const { return recordLines_; }
  /// Requests the first `lines` cache lines of channel c's record (at most recordLines()).
  /// Always inlined: a function of prefetches alone is found pure by GCC and its calls deleted.
  [[gnu::always_inline]] void prefetch(std::uint32_t c, std::uint32_t lines) const {
    for (std::uint32_t line = 0; line < lines; ++line) __builtin_prefetch(record(c) + 64 * line);
  }

 private:
  struct alignas(64) Line {
    std::byte bytes[64];
  };
  std::byte* record(std::uint32_t c) { return lines_[std::size_t{c} * recordLines_].bytes; }
  const std::byte* record(std::uint32_t c) const { return lines_[std::size_t{c} * recordLines_].bytes; }
  std::vector<Line, BulkAllocator<Line>> lines_;  // huge pages when large
  std::uint32_t channels_ = 0, vcs_ = 0, slots_ = 0, recordLines_ = 0, vcBytes_ = 0;
};

}  // namespace routelab::sim
