#!/usr/bin/env bash
# scripts/coverage.sh — which lines of src/ no test runs, and the mutation points on them
# (docs/TESTING.md "Coverage").
#
# usage: scripts/coverage.sh [BUILD_DIR] [-- coverage.py options, e.g. --list FILE --max-rebuild 8]
#
# Builds the tree with gcc's --coverage (-O1; default BUILD_DIR build-coverage/, kept between
# runs: a second run rebuilds only what changed), clears the counts of an earlier run, runs the
# CTest suite as the mutation harness does (without the soak, fuzz and repository-form tests),
# then reports with tests/mutation/coverage.py. Needs only gcc's gcov (no gcovr or lcov).
# Exit: 0; 1 when the build or a test fails (the counts would not be the suite's); 2 on usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=build-coverage
case ${1:-} in
  -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
  --) ;;
  -*) echo "coverage: unknown option '$1' (see --help)" >&2; exit 2 ;;
  ?*) build=$1; shift ;;
esac
[ $# -eq 0 ] || { [ "$1" = "--" ] && shift; } || { echo "coverage: usage: scripts/coverage.sh [BUILD_DIR] [-- options]" >&2; exit 2; }
command -v gcov >/dev/null || { echo "coverage: gcov (gcc) is needed" >&2; exit 2; }
jobs=${ROUTELAB_JOBS:-$(nproc)}
cd "$root"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DROUTELAB_BENCHMARKS=OFF \
    -DCMAKE_CXX_FLAGS="--coverage -O1" -DCMAKE_C_FLAGS="--coverage -O1" -DCMAKE_EXE_LINKER_FLAGS=--coverage \
    -DCMAKE_SHARED_LINKER_FLAGS=--coverage -DCMAKE_MODULE_LINKER_FLAGS=--coverage >"$build.configure.log" ||
    { echo "coverage: configuring $build failed (see $build.configure.log)" >&2; exit 1; }
fi
echo "coverage: building $build" >&2
cmake --build "$build" -j "$jobs" >"$build/coverage-build.log" 2>&1 ||
  { tail -20 "$build/coverage-build.log" >&2; echo "coverage: the build failed" >&2; exit 1; }
find "$build" -name '*.gcda' -delete
echo "coverage: running the tests" >&2
(cd "$build" && ctest -j "$jobs" -E 'soak|fuzz|repository' --timeout 900 >coverage-tests.log 2>&1) ||
  { tail -20 "$build/coverage-tests.log" >&2; echo "coverage: a test failed ($build/coverage-tests.log)" >&2; exit 1; }
python3 tests/mutation/coverage.py "$build" "$@"
