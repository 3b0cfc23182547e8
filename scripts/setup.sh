#!/usr/bin/env bash
# routelab set-up: install Debian packages, build, and either run the main job or the tests.
#
#   scripts/setup.sh run    install, build the CLI (build/), run the main job: `routelab compare` on the
#                           built-in example (ROUTELAB_EXAMPLE=<spec>, ROUTELAB_SEED=<n>,
#                           ROUTELAB_REPORT=<dir>, default routelab-report/)
#   scripts/setup.sh test   install, build (build/ and build-asan/ with ASan+UBSan), run all tests;
#                           then the parallel tests under ThreadSanitizer (build-tsan/, clang) and
#                           every fuzzer for a bounded time (scripts/fuzz.sh, build-fuzz/) and a
#                           rotating subset of the planted bugs (tests/mutation/mutate.py, build-mutation/)
#
# Environment: ROUTELAB_JOBS (parallel build jobs, default: number of cores),
#              ROUTELAB_SKIP_INSTALL=1 (do not call apt-get), ROUTELAB_SKIP_ASAN=1 (test: no ASan build),
#              ROUTELAB_SKIP_TSAN=1 (no TSan build), ROUTELAB_SKIP_FUZZ=1 (no fuzzing),
#              ROUTELAB_FUZZ_SECONDS (seconds per fuzz target, default 20). docs/RELIABILITY.md
#              ROUTELAB_SKIP_MUTATION=1 (no mutants), ROUTELAB_MUTANTS (how many of the list,
#              default 10), ROUTELAB_GENERATED_MUTANTS (how many generated ones, default 4),
#              ROUTELAB_MUTATION_SEED (their seed, default: a new one each run, printed),
#              ROUTELAB_MUTATION_BUDGET (seconds, default 1200), ROUTELAB_MUTATION_ROTATION (which
#              window of the list, default: days since 1970, so successive days rotate). docs/TESTING.md
set -euo pipefail

mode=${1:-}
case "$mode" in
  run|test) ;;
  *) echo "usage: scripts/setup.sh run|test" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${ROUTELAB_JOBS:-$(nproc)}
# Compiler cache keys relative to the checkout, so the mutation harness's copy of the tree
# (build-mutation/tree, built in tree/build like build/) reuses the objects of build/.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

install_packages() {
  [ "${ROUTELAB_SKIP_INSTALL:-0}" = 1 ] && return 0
  mapfile -t packages < <(grep -vE '^\s*(#|$)' scripts/apt-packages.txt)
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && { echo "setup: all ${#packages[@]} Debian packages present"; return 0; }
  echo "setup: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

configure_and_build() {  # dir, extra cmake args... (ROUTELAB_BUILD_TARGETS: only these targets)
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; exit 1; }
  local targets=()
  for t in ${ROUTELAB_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
  cmake --build "$dir" -j "$jobs" "${targets[@]}"
}

# Disk space, checked before anything is built: a build that fills the disk fails in the
# linker after minutes ("No space left on device") and leaves a half-built tree. Each
# directory's size after a full run from nothing, with a margin (MiB; measured 3.6, 4.0, 0.54,
# 0.19 and 3.2 GiB on Debian 12 with GCC 12, the CLI alone 1.3); what a directory already
# holds counts.
need_disk() {  # mode
  local -a dirs=(build) mib=(3900)
  [ "$1" = run ] && mib=(1400)
  if [ "$1" = test ]; then
    [ "${ROUTELAB_SKIP_ASAN:-0}" != 1 ] && { dirs+=(build-asan); mib+=(4400); }
    [ "${ROUTELAB_SKIP_TSAN:-0}" != 1 ] && { dirs+=(build-tsan); mib+=(600); }
    [ "${ROUTELAB_SKIP_FUZZ:-0}" != 1 ] && { dirs+=(build-fuzz); mib+=(250); }
    [ "${ROUTELAB_SKIP_MUTATION:-0}" != 1 ] && { dirs+=(build-mutation); mib+=(3500); }
  fi
  local need=0 i held
  for i in "${!dirs[@]}"; do
    held=0
    [ -d "${dirs[$i]}" ] && held=$(du -sk "${dirs[$i]}" | cut -f1)
    need=$(( need + (mib[i] * 1024 > held ? mib[i] * 1024 - held : 0) ))
  done
  local free
  free=$(df -Pk . | awk 'NR == 2 {print $4}')
  if [ "$free" -lt "$need" ]; then
    echo "setup: scripts/setup.sh $1 needs about $(( (need + 1023) / 1024 )) MiB more disk for" \
      "${dirs[*]/%//} in $root; $(( free / 1024 )) MiB free there. Free some space, or skip a stage" \
      "(ROUTELAB_SKIP_ASAN=1, ROUTELAB_SKIP_MUTATION=1: see the top of this script)" >&2
    exit 1
  fi
}

install_packages
need_disk "$mode"
mkdir -p build

if [ "$mode" = run ]; then
  # The main job needs the CLI alone (docs/COMPARE.md): every engine on the built-in example
  # (a 4-ary 3-tree) or ROUTELAB_EXAMPLE, ranked in a table and in routelab-report/index.html.
  ROUTELAB_BUILD_TARGETS=${ROUTELAB_BUILD_TARGETS:-routelab} configure_and_build build
  echo
  echo "== routelab compare on the built-in example (build/bin/routelab) =="
  example=()
  [ -n "${ROUTELAB_EXAMPLE:-}" ] && example=("$ROUTELAB_EXAMPLE")
  exec build/bin/routelab compare "${example[@]}" --seed "${ROUTELAB_SEED:-1}" \
    --output "${ROUTELAB_REPORT:-routelab-report}"
fi
configure_and_build build

# test
# The tests that run parallel code (OpenMP): their CTest labels and binaries.
tsan_labels='^(graph|routing|cdg|verify|analysis|schedule|sim|report)$'
tsan_tests="test_graph test_routing test_cdg test_verify test_analysis test_schedule test_sim test_report"
status=0
# The interop tests (ibsim, OpenSM, infiniband-diags) fail rather than skip when a tool is
# missing, since install_packages has just installed them.
[ "${ROUTELAB_SKIP_INSTALL:-0}" = 1 ] || export ROUTELAB_REQUIRE_INTEROP_TOOLS=1
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900) || status=1
if [ "${ROUTELAB_SKIP_ASAN:-0}" != 1 ]; then
  mkdir -p build-asan
  configure_and_build build-asan -DROUTELAB_SANITIZE=ON -DROUTELAB_BENCHMARKS=OFF
  # The soak test starts thousands of processes; under ASan a quarter of its fabrics suffice.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ROUTELAB_SOAK_FABRICS=${ROUTELAB_SOAK_FABRICS:-50} \
     ctest --output-on-failure -j "$jobs" --timeout 1800) || status=1
fi
if [ "${ROUTELAB_SKIP_TSAN:-0}" != 1 ]; then
  # ThreadSanitizer needs clang's libomp: GCC's libgomp is not TSan-aware. libomp loads
  # LLVM's Archer tool, which tells TSan about OpenMP's synchronisation; the runtime itself
  # is not instrumented, hence ignore_noninstrumented_modules (docs/RELIABILITY.md).
  mkdir -p build-tsan
  ROUTELAB_BUILD_TARGETS="$tsan_tests" configure_and_build build-tsan -DCMAKE_CXX_COMPILER=clang++ \
    -DROUTELAB_SANITIZE_THREAD=ON -DROUTELAB_BENCHMARKS=OFF
  (cd build-tsan && OMP_NUM_THREADS=2 TSAN_OPTIONS=halt_on_error=1:ignore_noninstrumented_modules=1:second_deadlock_stack=1 \
     ctest --output-on-failure -j "$jobs" --timeout 1800 -L "$tsan_labels") || status=1
fi
if [ "${ROUTELAB_SKIP_FUZZ:-0}" != 1 ]; then
  scripts/fuzz.sh "${ROUTELAB_FUZZ_SECONDS:-20}" || status=1
fi
if [ "${ROUTELAB_SKIP_MUTATION:-0}" != 1 ]; then
  # Every mutant of the window must be killed or be an explained survivor; the generated ones
  # (a new seed each run, printed) are reported for triage (docs/TESTING.md). Each mutant runs
  # the test binaries its module reaches, stopping at the first failure.
  seed=()
  [ -n "${ROUTELAB_MUTATION_SEED:-}" ] && seed=(--seed "$ROUTELAB_MUTATION_SEED")
  python3 tests/mutation/mutate.py --jobs "$jobs" --subset "${ROUTELAB_MUTANTS:-10}" \
    --rotation "${ROUTELAB_MUTATION_ROTATION:-$(( $(date -u +%s) / 86400 ))}" \
    --generate "${ROUTELAB_GENERATED_MUTANTS:-4}" "${seed[@]}" --max-rebuild 8 \
    --budget "${ROUTELAB_MUTATION_BUDGET:-1200}" --timeout 120 --require-killed || status=1
fi
ran="build/"
[ "${ROUTELAB_SKIP_ASAN:-0}" != 1 ] && ran+=", build-asan/"
[ "${ROUTELAB_SKIP_TSAN:-0}" != 1 ] && ran+=", build-tsan/"
[ "${ROUTELAB_SKIP_FUZZ:-0}" != 1 ] && ran+=", fuzzers"
[ "${ROUTELAB_SKIP_MUTATION:-0}" != 1 ] && ran+=", mutants"
if [ $status -eq 0 ]; then echo "setup: all tests passed ($ran)"; else echo "setup: TESTS FAILED ($ran)" >&2; fi
exit $status
