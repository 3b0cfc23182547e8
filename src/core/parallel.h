// routelab/core/parallel.h — how many worker threads a `threads` request means.
//
// Every parallel loop of the library takes `threads` (0 = every core, as OpenMP's
// omp_get_max_threads(); > 0 = exactly that many) and produces results that do not depend on
// it. Without OpenMP everything runs on one thread.
#pragma once

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace routelab {

inline int workerThreads(int threads) {
#ifdef ROUTELAB_HAVE_OPENMP
  return threads > 0 ? threads : omp_get_max_threads();
#else
  (void)threads;
  return 1;
#endif
}

}  // namespace routelab
