# experiments/common.sh — what the experiment scripts share. Source it first thing:
#   here="$(cd "$(dirname "$0")" && pwd)"
#   . "$here/../common.sh"
# It sets `set -euo pipefail` and `root` (the repository root), and defines:
#   routelab_binary [PATH]      bin=PATH, default build/bin/routelab; exits unless it is executable.
#   built_target BUILD TARGET   builds TARGET in build directory BUILD (quietly).
#   write_atomically FILE       out=FILE and tmp=a file beside it, removed on exit: a script writes
#                               "$tmp" and moves it onto "$out" last, so a failed run keeps the old FILE.
#   analysis_settings SEED      seed=$SEED (default SEED), precision=$PRECISION (default 0.01),
#                               threads=$THREADS (default 0 = all cores): the environment of the analyses.
#   analyze SPEC ENGINE METRIC  `routelab analyze` as JSON with $seed, $precision, $threads.
#   fat_tree_kind N M           full | slimmed | fatted: T(n+m, r)'s CBB ratio m/n (Nienaber §I).
set -euo pipefail
experiments_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$experiments_dir/.." && pwd)"

routelab_binary() {
  bin="${1:-$root/build/bin/routelab}"
  [ -x "$bin" ] || { echo "routelab binary not found: $bin (build it or pass its path)" >&2; exit 1; }
}

built_target() {
  cmake --build "$1" --target "$2" >/dev/null
}

write_atomically() {
  out="$1"
  tmp="$out.tmp.$$"
  trap 'rm -f "$tmp"' EXIT
}

analysis_settings() {
  seed="${SEED:-$1}"
  precision="${PRECISION:-0.01}"
  threads="${THREADS:-0}"
}

analyze() {
  "$bin" analyze "$1" --engine "$2" --metric "$3" --seed "$seed" --precision "$precision" --threads "$threads" \
    --format json
}

fat_tree_kind() {
  if [ "$1" -eq "$2" ]; then echo full; elif [ "$2" -lt "$1" ]; then echo slimmed; else echo fatted; fi
}
