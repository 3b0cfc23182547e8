#!/usr/bin/env bash
# CTest driver of scripts/opensm_engines.sh: run it on FABRIC with ENGINES, then check the
# OpenSM engine directory (docs/FORMATS.md): fabric.ibnetdiscover; per engine exactly one of
# E.lfts / E.error, and E.options ("-R E,no_fallback ...", every file it names present);
# E.sl for lash, dfsssp, nue (every ordered CA pair answered); every dump
# passes `routelab verify` on the fabric with its SLs; the engines in EXPECT_ERROR have an
# E.error holding OpenSM's error lines (level 0x01).
#
#   tests/interop/opensm_engines_test.sh ROUTELAB FABRIC "ENGINES" "EXPECT_ERROR"
# Exit 0 / 1, 77 tools missing (2 with ROUTELAB_REQUIRE_INTEROP_TOOLS=1).
set -euo pipefail
[ $# = 4 ] || { sed -n '7p' "$0" >&2; exit 2; }
routelab=$1 fabric=$2 engines=$3 expect_error=$4
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/routelab-engines-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
fail() { echo "opensm_engines_test: $fabric: $*" >&2; exit 1; }
start=$SECONDS
rc=0
"$here/../../scripts/opensm_engines.sh" --routelab "$routelab" --engines "$engines" "$fabric" "$out/dir" || rc=$?
[ "$rc" = 0 ] || exit "$rc"   # 77 / 2 pass through
dir=$out/dir
[ -s "$dir/fabric.ibnetdiscover" ] || fail "no fabric.ibnetdiscover"
cas=$(grep -c '^Ca' "$dir/fabric.ibnetdiscover")
for e in $engines; do
  [ -f "$dir/$e.options" ] || fail "no $e.options"
  grep -q "^-R $e,no_fallback" "$dir/$e.options" || fail "$e.options: $(cat "$dir/$e.options")"
  for word in $(cat "$dir/$e.options"); do
    case $word in -*|*,*) ;; *) [ -f "$dir/$word" ] || fail "$e.options names '$word', which is not in the directory" ;; esac
  done
  if [[ " $expect_error " == *" $e "* ]]; then
    [ -f "$dir/$e.error" ] && [ ! -f "$dir/$e.lfts" ] || fail "$e: expected $e.error only"
    grep -q '^0x01 -> .*: ' "$dir/$e.error" || fail "$e.error has no OpenSM error line: $(cat "$dir/$e.error")"
    continue
  fi
  [ -f "$dir/$e.lfts" ] && [ ! -f "$dir/$e.error" ] || fail "$e: expected $e.lfts only ($(cat "$dir/$e.error" 2> /dev/null))"
  sl=()
  case $e in
    lash|dfsssp|nue)
      [ -f "$dir/$e.sl" ] || fail "no $e.sl"
      answered=$(grep -cE '^[0-9]+ [0-9]+ [0-9]+$' "$dir/$e.sl" || true)
      [ "$answered" = $((cas * (cas - 1))) ] || fail "$e.sl answers $answered of $((cas * (cas - 1))) CA pairs"
      sl=(--sl "$dir/$e.sl") ;;
    *) [ ! -f "$dir/$e.sl" ] || fail "unexpected $e.sl" ;;
  esac
  verdict=0
  "$routelab" verify "ibnetdiscover:$dir/fabric.ibnetdiscover" --engine "file:$dir/$e.lfts" "${sl[@]}" \
    > "$out/verify.$e.txt" 2>&1 || verdict=$?
  [ "$verdict" = 0 ] || fail "verify $e: exit $verdict: $(grep -E 'verdict|error' "$out/verify.$e.txt")"
done
echo "opensm_engines_test: $fabric: $(ls "$dir" | tr '\n' ' ')- all as expected ($((SECONDS - start)) s)"
