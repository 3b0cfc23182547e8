#!/usr/bin/env bash
# The fast way scripts/opensm_engines.sh collects per-pair SLs (--sl-method log: one
# `saquery -p` for all pairs, the answers read from OpenSM's SA log) gives the SLs of the
# reference way (--sl-method pairs: one `saquery -p --slid S --dlid D` per ordered CA pair),
# pair for pair, for the engines whose SA answer has no random part (lash: by switch pair,
# the same both ways; nue with 8 VLs: by destination, so a pair's forward and reverse SLs
# differ and the log's forward answer must be told from the reverse one). DFSSSP's answer is base VL + rand() % group (get_dfsssp_sl), a new draw
# per query, so it is not compared here (its .sl is verified by opensm_engines_test.sh).
#
#   tests/interop/opensm_sl_log_test.sh ROUTELAB FABRIC MIN_LASH_SLS
# MIN_LASH_SLS: the fabric must make LASH use at least this many SLs (else the comparison
# would be trivial). Exit 0 / 1, 77 tools missing (2 with ROUTELAB_REQUIRE_INTEROP_TOOLS=1).
set -euo pipefail
[ $# = 3 ] || { sed -n '9p' "$0" >&2; exit 2; }
routelab=$1 fabric=$2 min_sls=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/routelab-sl-log-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "opensm_sl_log_test: $fabric: $*" >&2; exit 1; }
start=$SECONDS
for method in log pairs; do
  rc=0
  "$here/../../scripts/opensm_engines.sh" --routelab "$routelab" --engines "lash nue" --sl-method "$method" \
    --options "nue=-R nue,no_fallback -Q --nue_max_num_vls 8" \
    "$fabric" "$work/$method" > "$work/$method.out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || { cat "$work/$method.out" >&2; exit "$rc"; }   # 77 / 2 pass through
done
cas=$(grep -c '^Ca' "$work/log/fabric.ibnetdiscover")
cmp -s "$work/log/fabric.ibnetdiscover" "$work/pairs/fabric.ibnetdiscover" ||
  diff <(grep -v '^#' "$work/log/fabric.ibnetdiscover") <(grep -v '^#' "$work/pairs/fabric.ibnetdiscover") > /dev/null ||
  fail "the two runs saw different fabrics"
for e in lash nue; do
  grep -v '^#' "$work/log/$e.sl" > "$work/$e.log"
  grep -v '^#' "$work/pairs/$e.sl" > "$work/$e.pairs"
  [ "$(wc -l < "$work/$e.pairs")" = $((cas * (cas - 1))) ] || fail "$e: the per-pair queries answered $(wc -l < "$work/$e.pairs") of $((cas * (cas - 1))) pairs"
  if grep -q ' NA$' "$work/$e.log" "$work/$e.pairs"; then fail "$e: a pair without an answer"; fi
  cmp -s "$work/$e.log" "$work/$e.pairs" || fail "$e: the SLs differ: $(diff "$work/$e.log" "$work/$e.pairs" | head -4)"
done
used=$(awk '{ print $3 }' "$work/lash.log" | sort -u | wc -l)
[ "$used" -ge "$min_sls" ] || fail "LASH uses $used SLs, the test needs at least $min_sls"
# Nue's forward and reverse answers differ on some pair (else the comparison could not tell them apart).
awk '{ sl[$1 " " $2] = $3 } END { for (k in sl) { split(k, p); if (sl[p[2] " " p[1]] != sl[k]) d++ } exit !(d > 0) }' "$work/nue.log" ||
  fail "nue: every pair has the SL of its reverse pair"
echo "opensm_sl_log_test: $fabric: lash ($used SLs) and nue, $((cas * (cas - 1))) CA pairs each: the SA log gives the per-pair queries' SLs ($((SECONDS - start)) s)"
