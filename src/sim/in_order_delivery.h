// routelab/sim/in_order_delivery.h — delivery at the destinations (docs/SIMULATION.md
// "In-order delivery"; Gómez et al. 2007 §5.1, after Martínez et al.): per-pair sequence
// numbers, reorder buffers, and the ideal end-to-end flow control of in-order delivery.
//
// Contract. Every (source, destination) pair numbers its packets from 0 (takeSequences, at
// generation). A packet whose tail reaches its destination (deliver) is released — handed to
// the application — at once when it is the next its pair expects, followed by every packet of
// the pair held in the destination's reorder buffer that then follows in sequence; otherwise it
// is out of order: counted, and held until its predecessors arrive. Without in-order delivery
// an out-of-order packet is released at once as well, and still held (marked released) so
// that the pair's later packets see the gap fill: the counts are the same either way.
// With in-order delivery, a source may inject a packet (admits) only while fewer than
// `reorderPackets` packets towards its destination are outstanding — injected and not yet
// released; a source refused is woken (the `wake` of deliver) when its destination releases a
// packet. Acknowledgements are ideal: a release frees its slot in the same cycle.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/pair_table.h"

namespace routelab::sim {

/// A packet whose tail reached its destination (in a reorder buffer until released).
struct Held {
  std::uint32_t source = 0;
  std::uint64_t sequence = 0;
  std::uint64_t generated = 0;
  std::uint64_t injected = 0;
  std::uint64_t delivered = 0;
  std::uint32_t hops = 0;
  bool measured = false;
  bool released = false;  ///< already handed over (no in-order delivery: counted only)
};

class InOrderDelivery {
 public:
  InOrderDelivery() : pairs_(0) {}
  /// For `terminals` terminals; `pairs` keeps the sequence numbers (sim/pair_table.h).
  InOrderDelivery(std::size_t terminals, bool inOrder, std::uint32_t reorderPackets, PairTable pairs)
      : inOrder_(inOrder),
        reorderPackets_(reorderPackets),
        pairs_(std::move(pairs)),
        held_(terminals),
        outstanding_(inOrder ? terminals : 0, 0),
        waiting_(inOrder ? terminals : 0) {}

  /// The pair's next `count` sequence numbers (a message of `count` packets): the first.
  std::uint64_t takeSequences(std::uint32_t source, std::uint32_t destination, std::uint32_t count) {
    return pairs_.takeSequences(source, destination, count);
  }
  /// Requests the pair's entry (deliver reads it soon). Always inlined: a function of
  /// prefetches alone is found pure and its calls deleted.
  [[gnu::always_inline]] void prefetch(std::uint32_t source, std::uint32_t destination) const {
    pairs_.prefetch(source, destination);
  }

  /// End-to-end flow control: whether `source` may inject a packet for `destination` now.
  /// When not, the source is listed, and deliver wakes it at the destination's next release.
  bool admits(std::uint32_t source, std::uint32_t destination) {
    if (inOrder_ && outstanding_[destination] >= reorderPackets_) {
      waiting_[destination].push_back(source);
      return false;
    }
    return true;
  }
  /// A packet for `destination` was injected (it is outstanding until released).
  void injected(std::uint32_t destination) {
    if (inOrder_) ++outstanding_[destination];
  }

  /// The tail of `arrived` reached `destination`: calls `release(const Held&)` for each packet
  /// it releases, in sequence order, and after each, with in-order delivery, `wake(source)`
  /// for every source the end-to-end flow control refused towards `destination`.
  template <class Release, class Wake>
  void deliver(Held arrived, std::uint32_t destination, Release&& release, Wake&& wake) {
    std::uint64_t expected = pairs_.expected(arrived.source, destination);
    std::vector<Held>& held = held_[destination];
    if (arrived.sequence != expected) {
      ++outOfOrder_;
      if (!inOrder_) {
        release(arrived);
        arrived.released = true;
      }
      held.push_back(arrived);
      maxHeld_ = std::max<std::uint64_t>(maxHeld_, held.size());
      return;
    }
    hand(arrived, destination, release, wake);
    ++expected;
    for (bool found = true; found && !held.empty();) {  // the held successors, in sequence
      found = false;
      for (std::size_t i = 0; i < held.size(); ++i) {
        if (held[i].source != arrived.source || held[i].sequence != expected) continue;
        if (!held[i].released) hand(held[i], destination, release, wake);
        held[i] = held.back();
        held.pop_back();
        ++expected;
        found = true;
        break;
      }
    }
    pairs_.setExpected(arrived.source, destination, expected);
  }

  /// Packets that arrived before an earlier one of their pair.
  std::uint64_t outOfOrder() const { return outOfOrder_; }
  /// The most packets one destination's reorder buffer held at once.
  std::uint64_t maxHeld() const { return maxHeld_; }

 private:
  template <class Release, class Wake>
  void hand(const Held& packet, std::uint32_t destination, Release& release, Wake& wake) {
    release(packet);
    if (!inOrder_) return;
    --outstanding_[destination];
    for (std::uint32_t source : waiting_[destination]) wake(source);
    waiting_[destination].clear();
  }
  bool inOrder_ = false;
  std::uint32_t reorderPackets_ = 0;
  PairTable pairs_;
  std::vector<std::vector<Held>> held_;              // per destination: its reorder buffer
  std::vector<std::uint32_t> outstanding_;           // in-order: per destination
  std::vector<std::vector<std::uint32_t>> waiting_;  // in-order: sources refused, per destination
  std::uint64_t outOfOrder_ = 0, maxHeld_ = 0;
};

}  // namespace routelab::sim
