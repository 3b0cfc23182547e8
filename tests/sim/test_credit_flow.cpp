// Credit flow control (sim/credit_flow.h): eager credits (an event counted when it arrives)
// and lazy ones (the cycle written at the grant, counted when the sender looks) give the
// sender the same credits at every cycle, across the wrap of the 32-bit cycles they store.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <vector>

#include "core/errors.h"
#include "core/random.h"
#include "sim/credit_flow.h"

namespace routelab {
namespace {

using sim::CreditFlow;
using sim::VcState;

struct Case {
  std::uint32_t flits, delay;  // a grant per packet at most every `flits` cycles; credits fly `delay`
  std::uint64_t start;         // the first cycle
};

TEST(CreditFlow, LazyCreditsArriveWhenTheEagerEventsDo) {
  constexpr std::uint32_t kSlots = 4;
  for (const Case& c : {Case{4, 9, 0}, Case{8, 8, 100}, Case{2, 13, (std::uint64_t{1} << 32) - 700},
                        Case{1, 1, (std::uint64_t{1} << 33) - 3}}) {
    // The engine's bound on credits on their way at once per VC.
    const std::uint32_t coming = std::min(kSlots, 1U + (c.delay - 1) / c.flits);
    // A VC block as the engine lays it out: the VcState, its two rings, the credits' cycles.
    alignas(64) std::array<std::uint32_t, 32> block{};
    auto* lazyQueue = new (block.data()) VcState{};
    CreditFlow lazy, eager;
    lazy.configure(true, coming, 2 * kSlots);
    eager.configure(false, 0, 2 * kSlots);
    VcState eagerQueue{};
    lazyQueue->credits = eagerQueue.credits = kSlots;
    std::vector<std::uint64_t> events;  // the eager credits' cycles
    std::uint32_t held = 0;             // packets in the receiver's input queue
    std::uint64_t lastGrant = 0;
    Rng rng(c.flits * 1000 + c.delay);
    for (std::uint64_t now = c.start; now < c.start + 3000; ++now) {
      for (std::size_t i = 0; i < events.size();) {  // phase 1: the credit events of this cycle
        if (events[i] == now) {
          CreditFlow::arrive(eagerQueue);
          events.erase(events.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
          ++i;
        }
      }
      ASSERT_EQ(lazy.available(*lazyQueue, Cycle(now)), eager.available(eagerQueue, Cycle(now))) << "cycle " << now;
      ASSERT_EQ(lazy.any(*lazyQueue, Cycle(now)), eager.available(eagerQueue, Cycle(now)) != 0);
      ASSERT_EQ(eager.available(eagerQueue, Cycle(now)) + events.size() + held, kSlots);  // credits are conserved
      // The receiver grants its front packet onward (at most one per `flits` cycles).
      if (held > 0 && (now - lastGrant >= c.flits || now == c.start) && rng.below(3) != 0) {
        events.push_back(now + c.delay);
        lazy.send(*lazyQueue, Cycle(now), Cycle(now + c.delay));
        --held;
        lastGrant = now;
      }
      // The sender sends a packet when it has a credit.
      if (eager.any(eagerQueue, Cycle(now)) && rng.below(2) == 0) {
        eager.take(eagerQueue, Cycle(now));
        lazy.take(*lazyQueue, Cycle(now));
        ++held;
      }
    }
    // Folding all of them counts every credit still on its way.
    lazy.fold(*lazyQueue, Cycle(c.start), true);
    EXPECT_EQ(lazyQueue->creditsComing, 0U);
    EXPECT_EQ(lazyQueue->credits + held, kSlots);
  }
}

TEST(CreditFlow, MoreCreditsComingThanTheBoundIsAnInternalError) {
  alignas(64) std::array<std::uint32_t, 32> block{};
  auto* queue = new (block.data()) VcState{};
  CreditFlow lazy;
  lazy.configure(true, 2, 4);
  lazy.send(*queue, Cycle(10), Cycle(20));
  lazy.send(*queue, Cycle(11), Cycle(21));
  EXPECT_EQ(lazy.available(*queue, Cycle(19)), 0U);
  EXPECT_EQ(lazy.available(*queue, Cycle(20)), 1U);
  EXPECT_EQ(lazy.firstDue(*queue, Cycle(12)), Cycle(20));
  EXPECT_THROW(lazy.send(*queue, Cycle(12), Cycle(22)), SimulationError);
}

}  // namespace
}  // namespace routelab
