// workerThreads (core/parallel.h): the thread count a `--threads N` option asks for is the one
// used — N when N >= 1 (one thread is one thread), every core OpenMP offers for 0.
#include <gtest/gtest.h>

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

#include "core/parallel.h"

namespace routelab {
namespace {

TEST(WorkerThreads, AnExplicitCountIsKeptAndZeroMeansEveryCore) {
#ifdef ROUTELAB_HAVE_OPENMP
  for (const int threads : {1, 2, 3, 64}) EXPECT_EQ(workerThreads(threads), threads);
  EXPECT_EQ(workerThreads(0), omp_get_max_threads());
  EXPECT_EQ(workerThreads(-1), omp_get_max_threads());
  // With more than one core available, one thread must not become all of them.
  const int before = omp_get_max_threads();
  omp_set_num_threads(4);
  EXPECT_EQ(workerThreads(1), 1);
  EXPECT_EQ(workerThreads(0), 4);
  omp_set_num_threads(before);
#else
  for (const int threads : {0, 1, 2, 64}) EXPECT_EQ(workerThreads(threads), 1);
#endif
}

}  // namespace
}  // namespace routelab
