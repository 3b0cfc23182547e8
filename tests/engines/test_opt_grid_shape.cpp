// OPT on a grid's default shape (engines/fattree/fat_tree.h optGridShape) against its
// documented rule by enumeration of every a x b <= m: the most tops whose bound stays at
// Fig. 2's ceil(n / floor(sqrt m)), then the smallest bound, then the smallest a — the
// single top switch (m = 1) included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engines/fattree/fat_tree.h"

using namespace routelab;

TEST(OptGridShape, EqualsTheDocumentedRuleOverEveryShape) {
  for (std::uint32_t n = 1; n <= 16; ++n) {
    for (std::uint32_t m = 1; m <= 24; ++m) {
      std::uint32_t k = 1;
      while ((k + 1) * (k + 1) <= m) ++k;
      const std::uint32_t bound = (n + k - 1) / k;
      std::uint32_t bestA = 0, bestB = 0, bestWorst = 0;
      for (std::uint32_t a = 1; a <= m; ++a) {
        for (std::uint32_t b = 1; a * b <= m; ++b) {
          const std::uint32_t worst = std::max((n + a - 1) / a, (n + b - 1) / b);
          if (worst > bound) continue;
          const bool better = bestA == 0 || a * b > bestA * bestB || (a * b == bestA * bestB && worst < bestWorst);
          if (better) {
            bestA = a;
            bestB = b;
            bestWorst = worst;
          }
        }
      }
      const GridShape shape = optGridShape(n, m);
      ASSERT_NE(bestA, 0u);
      EXPECT_EQ(shape.bound, bound) << n << " " << m;
      EXPECT_EQ(shape.sourceGroups, bestA) << "n=" << n << " m=" << m;
      EXPECT_EQ(shape.destinationGroups, bestB) << "n=" << n << " m=" << m;
      EXPECT_EQ(shape.worst, bestWorst) << "n=" << n << " m=" << m;
    }
  }
}
