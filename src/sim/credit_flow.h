// routelab/sim/credit_flow.h — credit-based flow control between a channel's sender and the
// input queues at its receiver (docs/SIMULATION.md "Credits"; Dally & Towles, Principles and
// Practices of Interconnection Networks, 2004, §13.3): the sender of each (channel, VC) counts
// the free slots of the receiver's input queue, spends one per packet it sends, and gets it
// back when the receiver's switch grants the packet onward: creditDelay cycles later (the tail
// leaves the input queue flits - 1 cycles after the head, then the credit flies back).
//
// Two ways to return a credit, one interface (CreditFlow), the same cycle of arrival:
//  - eager: the credit is an event at its cycle (the engine's kCredit), which arrive() counts;
//  - lazy (within one block of a partitioned run, where the engine groups events): the grant
//    writes the cycle its credit reaches the sender (low 32 bits) into the sender's VC block,
//    oldest first (send()), and the sender counts the arrived ones when it looks (available,
//    any) or sends (take). A cycle is compared within 2^31 of now: every credit must be
//    counted at least every kFoldSpan cycles, and before a jump past its cycle (fold(all)).
#pragma once

#include <cstdint>
#include <new>

#include "core/errors.h"
#include "core/units.h"
#include "sim/channel_state.h"

namespace routelab::sim {

class CreditFlow {
 public:
  /// Lazy credits must be folded in at least this often (cycles).
  static constexpr Cycles kFoldSpan{std::uint64_t{1} << 30};

  /// Eager credits, or lazy ones with at most `comingSlots` on their way per VC; their cycles
  /// lie `ringWords` 32-bit words after the VcState (past the VC's two packet rings).
  void configure(bool lazy, std::uint32_t comingSlots, std::uint32_t ringWords) {
    lazy_ = lazy;
    comingSlots_ = comingSlots;
    ringWords_ = ringWords;
  }
  bool lazy() const { return lazy_; }
  /// Credits that may be on their way at once per VC (lazy; 0 when eager).
  std::uint32_t comingSlots() const { return comingSlots_; }

  /// The credits for the VC at the sender at cycle `now`.
  std::uint32_t available(const VcState& queue, Cycle now) const {
    return lazy_ ? creditsNow(queue, now) : std::uint32_t{queue.credits};
  }
  /// At least one credit for the VC at the sender at cycle `now`.
  bool any(const VcState& queue, Cycle now) const { return lazy_ ? arrivedAny(queue, now) : queue.credits != 0; }
  /// The sender sends a packet on the VC (it has a credit).
  void take(VcState& queue, Cycle now) const {
    if (lazy_) fold(queue, now);
    --queue.credits;
  }
  /// Eager: the credit event of the VC reached the sender.
  static void arrive(VcState& queue) { ++queue.credits; }
  /// Lazy: a grant at the receiver returns a credit that reaches the sender at cycle `due`.
  /// Throws SimulationError (an internal error) when more are on their way than comingSlots.
  void send(VcState& queue, Cycle now, Cycle due) const {
    fold(queue, now);
    if (queue.creditsComing == comingSlots_)
      throw SimulationError("internal: more credits coming than a grant per packet allows");
    times(queue)[queue.creditsComing++] = static_cast<std::uint32_t>(due.value);
  }

  /// Lazy: at least one credit at the sender at `now`, counted or arrived (without a branch on
  /// the queue).
  bool arrivedAny(const VcState& queue, Cycle now) const {
    return (static_cast<unsigned>(queue.credits != 0) | (static_cast<unsigned>(queue.creditsComing != 0) &
                                                         static_cast<unsigned>(arrived(times(queue)[0], now)))) != 0;
  }
  /// Lazy: the cycle the oldest credit on its way reaches the sender (creditsComing > 0).
  Cycle firstDue(const VcState& queue, Cycle now) const {
    return Cycle(now.value + (times(queue)[0] - static_cast<std::uint32_t>(now.value)));
  }
  /// Lazy: counts the credits of the VC that have arrived by `now` (all of them: `all`) into
  /// VcState::credits.
  void fold(VcState& queue, Cycle now, bool all = false) const {
    const std::uint32_t coming = queue.creditsComing;
    std::uint32_t* due = times(queue);
    if (comingSlots_ == 1) {  // at most one coming (flyTime <= 1): without a branch on whether it arrived
      const auto count = static_cast<std::uint16_t>(static_cast<unsigned>(coming != 0) &
                                                    static_cast<unsigned>(all || arrived(due[0], now)));
      queue.credits = static_cast<std::uint16_t>(queue.credits + count);
      queue.creditsComing = static_cast<std::uint16_t>(coming - count);
      return;
    }
    if (coming == 0) return;
    std::uint32_t count = 0;
    while (count < coming && (all || arrived(due[count], now))) ++count;
    for (std::uint32_t i = count; i < coming; ++i) due[i - count] = due[i];
    queue.credits = static_cast<std::uint16_t>(queue.credits + count);
    queue.creditsComing = static_cast<std::uint16_t>(coming - count);
  }

 private:
  /// True when a credit due at `due` (the low 32 bits of its cycle) has reached the sender.
  static bool arrived(std::uint32_t due, Cycle now) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(now.value) - due) >= 0;
  }
  std::uint32_t creditsNow(const VcState& queue, Cycle now) const {
    const std::uint32_t* due = times(queue);
    if (comingSlots_ == 1) {
      return queue.credits +
             (static_cast<unsigned>(queue.creditsComing != 0) & static_cast<unsigned>(arrived(due[0], now)));
    }
    std::uint32_t count = queue.credits;
    for (std::uint32_t i = 0; i < queue.creditsComing && arrived(due[i], now); ++i) ++count;
    return count;
  }
  /// The return cycles of the credits coming to a VC's sender: after the VC block's rings.
  std::uint32_t* times(VcState& queue) const {
    return std::launder(reinterpret_cast<std::uint32_t*>(reinterpret_cast<std::byte*>(&queue) + sizeof(VcState))) +
           ringWords_;
  }
  const std::uint32_t* times(const VcState& queue) const {
    return std::launder(
               reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const std::byte*>(&queue) + sizeof(VcState))) +
           ringWords_;
  }
  bool lazy_ = false;
  std::uint32_t comingSlots_ = 0, ringWords_ = 0;
};

}  // namespace routelab::sim
