#!/usr/bin/env bash
# CTest driver of `routelab compare --opensm` (docs/COMPARE.md "OpenSM's engines from one
# command") on FABRIC, with a fresh cache:
#
#   tests/interop/opensm_compare_test.sh ROUTELAB FABRIC
#
# 1. compare --opensm ranks opensm:<engine> rows beside routelab's (every engine of the
#    worker: a row, ranked or refused), the report is written, the cache holds one complete
#    OpenSM engine directory with an E.options per engine, and OpenSM ran (a PATH shim logs
#    every opensm call).
# 2. The same command again: "reused" in the progress line, the cache directory's files byte
#    for byte and time stamp the same, no new cache entry, OpenSM not run (only --version).
# 3. Without opensm on PATH: exit 1, the message names the Debian package, no report and no
#    output directory; the same for a fabric the worker cannot run OpenSM's engines on (no
#    CA), which also leaves the cache as it was; --opensm-cache without --opensm: usage error
#    (exit 2).
# Exit 0 / 1, 77 tools missing (2 with ROUTELAB_REQUIRE_INTEROP_TOOLS=1).
set -euo pipefail
[ $# = 2 ] || { sed -n '5p' "$0" >&2; exit 2; }
routelab=$1 fabric=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/opensm_lib.sh"
osm_require_tools ibsim ibsim-run opensm ibnetdiscover saquery
work=$(mktemp -d "${TMPDIR:-/tmp}/routelab-compare-opensm.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "opensm_compare_test: $fabric: $*" >&2; exit 1; }
start=$SECONDS

# A PATH whose opensm logs its arguments, then runs the real one.
mkdir "$work/shim"
real_opensm=$(command -v opensm)
printf '#!/bin/sh\necho "$*" >> %s/opensm-calls\nexec %s "$@"\n' "$work" "$real_opensm" > "$work/shim/opensm"
chmod +x "$work/shim/opensm"
shim_path=$work/shim:$PATH
cache=$work/cache
compare() {  # output-dir
  PATH=$shim_path "$routelab" compare "$fabric" --engine updown --engine lash --opensm --opensm-cache "$cache" \
    --max-samples 64 --output "$1" > "$1.stdout" 2> "$1.stderr"
}

# 1. First run: OpenSM runs, its engines are ranked.
rc=0
compare "$work/r1" || rc=$?
[ $rc = 0 ] || fail "compare --opensm: exit $rc: $(tail -3 "$work/r1.stderr")"
[ -s "$work/r1/index.html" ] || fail "no report"
grep -q 'opensm: running OpenSM' "$work/r1.stderr" || fail "no 'running' progress line: $(cat "$work/r1.stderr")"
mapfile -t entries < <(find "$cache" -mindepth 1 -maxdepth 1)
[ ${#entries[@]} = 1 ] || fail "the cache holds ${#entries[@]} entries, expected 1: ${entries[*]}"
dir=${entries[0]}
[[ $(basename "$dir") =~ ^[0-9a-f]{16}$ ]] || fail "cache entry '$(basename "$dir")' is not a 16-hex-digit key"
[ -s "$dir/fabric.ibnetdiscover" ] || fail "no fabric.ibnetdiscover in $dir"
engines=$(cd "$dir" && ls ./*.options | sed 's|^\./||; s|\.options$||' | sort)
[ "$(echo "$engines" | wc -l)" -ge 8 ] || fail "expected every default engine's .options, got: $engines"
for e in $engines; do
  [ -f "$dir/$e.lfts" ] || [ -f "$dir/$e.error" ] || fail "$e: neither .lfts nor .error"
  grep -q "^-R $e,no_fallback" "$dir/$e.options" || fail "$e.options: $(cat "$dir/$e.options")"
  # (ranked or refused: a row of the table, or at least named in the report)
  grep -qE "(^| )opensm:$e( |$)" "$work/r1.stdout" || grep -q "opensm:$e[^a-zA-Z0-9_-]" "$work/r1/index.html" ||
    fail "no opensm:$e row in the ranking: $(cat "$work/r1.stdout")"
done
grep -q -- '-R lash,no_fallback -Q' "$work/opensm-calls" || fail "OpenSM did not run lash: $(cat "$work/opensm-calls")"
ran=$(grep -vc -- '--version' "$work/opensm-calls" || true)

# 2. Second run: reused, nothing run, nothing changed.
(cd "$cache" && find . -type f -printf '%p %s %T@\n' | sort && find . -type f -exec md5sum {} + | sort) > "$work/cache.before"
: > "$work/opensm-calls"
rc=0
compare "$work/r2" || rc=$?
[ $rc = 0 ] || fail "second compare --opensm: exit $rc: $(tail -3 "$work/r2.stderr")"
grep -q "opensm: reused $dir" "$work/r2.stderr" || fail "no 'reused' progress line: $(cat "$work/r2.stderr")"
(cd "$cache" && find . -type f -printf '%p %s %T@\n' | sort && find . -type f -exec md5sum {} + | sort) > "$work/cache.after"
cmp -s "$work/cache.before" "$work/cache.after" || fail "the cache changed: $(diff "$work/cache.before" "$work/cache.after" | head -4)"
if grep -v -- '--version' "$work/opensm-calls" | grep -q .; then fail "OpenSM ran again: $(cat "$work/opensm-calls")"; fi
grep -c '^opensm:\| opensm:' "$work/r1.stdout" > "$work/rows1" || true
grep -c '^opensm:\| opensm:' "$work/r2.stdout" > "$work/rows2" || true
cmp -s "$work/rows1" "$work/rows2" || fail "the second ranking has other opensm rows"

# 3. No opensm on PATH: a PATH with every other tool, but not opensm.
mkdir "$work/noosm"
for t in ibsim ibsim-run ibnetdiscover saquery; do ln -s "$(command -v "$t")" "$work/noosm/$t"; done
rc=0
PATH=$work/noosm "$routelab" compare "$fabric" --engine updown --opensm --opensm-cache "$cache" \
  --output "$work/r3" > "$work/r3.stdout" 2> "$work/r3.stderr" || rc=$?
[ $rc = 1 ] || fail "without opensm: exit $rc, expected 1"
grep -q "'opensm'.*Debian package opensm" "$work/r3.stderr" || fail "without opensm, the message: $(cat "$work/r3.stderr")"
[ ! -e "$work/r3" ] || fail "without opensm, $work/r3 was created: $(ls -R "$work/r3")"
# A fabric OpenSM's engines cannot be run on (no CA, so no path to ask the SA about): exit 1,
# the reason, no report, no new cache entry.
rc=0
PATH=$shim_path "$routelab" compare random:switches=4,links=5,terminals=0,seed=1 --engine updown --opensm \
  --opensm-cache "$cache" --output "$work/r5" > "$work/r5.stdout" 2> "$work/r5.stderr" || rc=$?
[ $rc = 1 ] || fail "a fabric without CAs: exit $rc, expected 1"
grep -q "has no channel adapter" "$work/r5.stderr" || fail "a fabric without CAs, the message: $(cat "$work/r5.stderr")"
[ ! -e "$work/r5" ] || fail "a fabric without CAs: $work/r5 was created"
[ "$(find "$cache" -mindepth 1 -maxdepth 1 | wc -l)" = 1 ] || fail "a failed collection left something in the cache: $(ls -a "$cache")"
rc=0
"$routelab" compare "$fabric" --opensm-cache "$cache" --output "$work/r4" > /dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "--opensm-cache without --opensm: exit $rc, expected 2 (usage)"

echo "opensm_compare_test: $fabric: $ran OpenSM runs the first time, reused the second, missing opensm refused" \
  "($((SECONDS - start)) s)"
