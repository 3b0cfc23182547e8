#!/usr/bin/env bash
# routelab set-up: install Debian packages, build, and either run the main job or the tests.
#
#   scripts/setup.sh run    install, build (build/), run the main job on a built-in example
#   scripts/setup.sh test   install, build (build/ and build-asan/ with ASan+UBSan), run all tests
#
# Environment: ROUTELAB_JOBS (parallel build jobs, default: number of cores),
#              ROUTELAB_SKIP_INSTALL=1 (do not call apt-get), ROUTELAB_SKIP_ASAN=1 (test: one build only).
set -euo pipefail

mode=${1:-}
case "$mode" in
  run|test) ;;
  *) echo "usage: scripts/setup.sh run|test" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=${ROUTELAB_JOBS:-$(nproc)}

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

configure_and_build() {  # dir, extra cmake args...
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; exit 1; }
  cmake --build "$dir" -j "$jobs"
}

install_packages
mkdir -p build
configure_and_build build

if [ "$mode" = run ]; then
  echo
  echo "== routelab main job on the built-in example (build/bin/routelab) =="
  exec scripts/main_job.sh build/bin/routelab
fi

# test
status=0
# The interop tests (ibsim, OpenSM, infiniband-diags) fail rather than skip when a tool is
# missing, since install_packages has just installed them.
[ "${ROUTELAB_SKIP_INSTALL:-0}" = 1 ] || export ROUTELAB_REQUIRE_INTEROP_TOOLS=1
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900) || status=1
if [ "${ROUTELAB_SKIP_ASAN:-0}" != 1 ]; then
  mkdir -p build-asan
  configure_and_build build-asan -DROUTELAB_SANITIZE=ON -DROUTELAB_BENCHMARKS=OFF
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest --output-on-failure -j "$jobs" --timeout 1800) || status=1
fi
if [ $status -eq 0 ]; then echo "setup: all tests passed (build/ and build-asan/)"; else echo "setup: TESTS FAILED" >&2; fi
exit $status
