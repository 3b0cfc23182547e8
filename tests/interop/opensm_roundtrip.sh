#!/usr/bin/env bash
# Round trip through the real OpenSM: does the fabric hold exactly routelab's routes?
#
#   tests/interop/opensm_roundtrip.sh [--lmc L] ROUTELAB SPEC ENGINE [KEEP_DIR]
#
# 1. `routelab topo SPEC --export net` -> ibsim; OpenSM (minhop, --lmc L) discovers the fabric
#    and assigns LIDs (2^L per CA port); `ibnetdiscover` writes the fabric with those LIDs;
#    OpenSM is stopped.
# 2. `routelab route ibnetdiscover:FABRIC --engine ENGINE --lmc L --switch-addresses --export
#    lft --export sl`: the dump and SL file on the fabric's own LIDs (docs/FORMATS.md "Fabric
#    LIDs"); with L > 0 every CA LID of an LMC block carries its own path.
# 3. A new OpenSM (same LID cache) loads the dump: `opensm -R file,no_fallback -U DUMP --lmc L`.
# 4. Read the switches back with `ibroute <switch LID>`, every switch: the set of (switch
#    GUID, LID, port) must equal the dump's, entry for entry (and every LID of the dump must
#    be the one ibnetdiscover shows for that port). `ibtracert` for a few CA pairs: every
#    hop leaves through the dump's port. `routelab verify` on the tables read back (as an
#    LFT dump) with routelab's SL file must pass (for LASH: its layers are deadlock-free on
#    the switches' real tables).
# Exit 0 all equal, 1 a difference or a failed step, 2 usage, 77 tools missing (2 with
# ROUTELAB_REQUIRE_INTEROP_TOOLS=1). Everything lives in a fresh mktemp directory (or
# KEEP_DIR, kept) with its own ibsim socket; ibsim and opensm are stopped by PID on exit.
set -euo pipefail
lmc=0
if [ "${1:-}" = --lmc ]; then lmc=${2:-}; shift 2 || true; fi
case $lmc in [0-7]) ;; *) echo "opensm_roundtrip: --lmc needs 0..7, got '$lmc'" >&2; exit 2 ;; esac
[ $# -ge 3 ] || { sed -n '2,4p' "$0" >&2; exit 2; }
routelab=$1 spec=$2 engine=$3 keep=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/opensm_lib.sh"
osm_require_tools ibsim ibsim-run opensm ibnetdiscover ibroute ibtracert
[ -x "$routelab" ] || { echo "opensm_roundtrip: no routelab binary at '$routelab'" >&2; exit 2; }
if [ -n "$keep" ]; then
  rm -rf "$keep"; mkdir -p "$keep"; work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/routelab-roundtrip.XXXXXX")
fi
finish() {
  osm_cleanup
  [ -n "$keep" ] || rm -rf "$work"
}
trap finish EXIT
trap 'exit 1' INT TERM
fail() { echo "opensm_roundtrip: $spec, $engine: $*" >&2; exit 1; }
start=$SECONDS

"$routelab" topo "$spec" --export net "$work/topology.net" > /dev/null
osm_start_ibsim "$work/topology.net" "$work" || exit 1
osm_run_opensm "$work" discover -R minhop --lmc "$lmc" || fail "OpenSM did not bring the subnet up (osm.discover.log)"
(cd "$work" && timeout -k 2 60 ibsim-run ibnetdiscover > fabric.ibnetdiscover 2> ibnetdiscover.err) || fail "ibnetdiscover failed"
osm_stop_opensm
[ -s "$work/guid2lid" ] || fail "OpenSM wrote no LID cache"

"$routelab" route "ibnetdiscover:$work/fabric.ibnetdiscover" --engine "$engine" --lmc "$lmc" --switch-addresses \
  --export lft "$work/routelab.lfts" --export sl "$work/routelab.sl" > "$work/route.txt" 2>&1 \
  || fail "routelab route failed: $(tail -3 "$work/route.txt")"
grep -q "^lids        the fabric's own" "$work/route.txt" || fail "route did not use the fabric's LIDs"

# awk helpers (mawk: no strtonum): hex -> number (LIDs), GUID -> canonical text (64 bits).
fn='function num(s,  i, v) { if (s !~ /^0x/) return s + 0; s = tolower(substr(s, 3)); v = 0
                             for (i = 1; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                             return v }
    function guid(s) { s = tolower(s); sub(/^0x/, "", s); sub(/^0+/, "", s); return s }'
# Every LID of the dump is one ibnetdiscover shows for that port (switch headers and
# destinations; a port with LMC m owns LIDs base .. base + 2^m - 1), and every such LID is in
# the dump: ibnetdiscover -> "portguid lid", dump -> "portguid lid".
awk "$fn"'
     function block(g, base, m,  k) { for (k = 0; k < 2 ^ m; ++k) print g, base + k }
     /^switchguid=/ { split($0, a, "[=(]"); sw = guid(a[2]) }
     /^Switch/ { for (i = 1; i <= NF; ++i) if ($i == "lid") { block(sw, $(i + 1), $(i + 3)); break } }
     /^\[[0-9]+\]\(/ { split($0, a, "[()]"); for (i = 1; i <= NF; ++i) if ($i == "lid") { block(guid(a[2]), $(i + 1), $(i + 3)); break } }' \
  "$work/fabric.ibnetdiscover" | sort -u > "$work/lids.fabric"
awk "$fn"'
     /^Unicast lids/ { print guid($9), $7 }
     /portguid/ { g = $0; sub(/.* portguid /, "", g); sub(/:.*/, "", g); print guid(g), num($1) }' "$work/routelab.lfts" |
  sort -u > "$work/lids.dump"
cmp -s "$work/lids.fabric" "$work/lids.dump" || fail "the dump's LIDs differ from ibnetdiscover's: $(diff "$work/lids.fabric" "$work/lids.dump" | head -5)"

# The file engine's own messages (remapped LIDs, unknown switches) are VERBOSE/DEBUG: logged for
# osm_ucast_file.c only.
printf 'osm_ucast_file.c 0x0f\n' > "$work/per-module-logging.conf"
printf 'per_module_logging_file %s\n' "$work/per-module-logging.conf" > "$work/opensm.conf"
osm_run_opensm "$work" file -F "$work/opensm.conf" -R file,no_fallback -U "$work/routelab.lfts" --lmc "$lmc" \
  || fail "OpenSM did not load the dump (osm.file.log)"
grep -q "file tables configured on all switches" "$work/osm.file.log" || fail "OpenSM's file engine did not configure the fabric"
added=$(grep -c 'add_path: route' "$work/osm.file.log" || true)
[ "$added" = "$(grep -c '^0x' "$work/routelab.lfts")" ] || fail "OpenSM's file engine added $added routes, the dump has $(grep -c '^0x' "$work/routelab.lfts")"
# add_path logs "route 0xLID(was 0xLID) ...": a LID the dump names differently from the fabric
# would show another "was".
if grep -iE 'remap|cannot find|collision|ERR ' "$work/osm.file.log" > "$work/file-engine-complaints.txt" ||
  grep 'add_path: route' "$work/osm.file.log" | grep -vE 'route (0x[0-9a-f]+)\(was \1\)' >> "$work/file-engine-complaints.txt"; then
  fail "OpenSM remapped or refused entries: $(head -3 "$work/file-engine-complaints.txt")"
fi

# Read every switch back (LID-routed SMPs: they travel on the tables just loaded).
: > "$work/readback.lfts"
for lid in $(awk '/^Unicast lids/ { print $7 }' "$work/routelab.lfts"); do
  (cd "$work" && timeout -k 2 30 ibsim-run ibroute "$lid" > "ibroute.$lid.txt" 2>&1) || fail "ibroute $lid failed: $(tail -2 "$work/ibroute.$lid.txt")"
  # ibroute's format -> OpenSM's dump format (routelab reads it back below).
  awk "$fn"'
       /^Unicast lids/ { split($3, r, "[-\\]]"); d = $0; sub(/^[^(]*\(/, "", d); sub(/\):$/, "", d)
                         printf "Unicast lids [0-%d] of switch Lid %s guid %s (\x27%s\x27):\n", num(r[2]), $7, $9, d }
       /^0x[0-9a-f]+ [0-9]+ : \(/ { e = $0; sub(/^[^(]*\(/, "", e); sub(/\)$/, "", e)
                                    # LMC: "path #2 out of 2: portguid G" names the port of the block'"'"'s base LID
                                    g = e; sub(/.*portguid /, "", g); sub(/:.*/, "", g)
                                    if (e ~ /^path #[0-9]+ out of [0-9]+:/) e = seen[g]; else seen[g] = e
                                    printf "%s %s # %s\n", $1, $2, e }' \
    "$work/ibroute.$lid.txt" >> "$work/readback.lfts"
done
entries() { awk '/^Unicast lids/ { sw = $9 } /^0x/ { print sw, $1, $2 }' "$1" | sort; }
entries "$work/routelab.lfts" > "$work/entries.ours"
entries "$work/readback.lfts" > "$work/entries.fabric"
ours=$(wc -l < "$work/entries.ours") theirs=$(wc -l < "$work/entries.fabric")
switches=$(grep -c '^Unicast lids' "$work/routelab.lfts")
[ "$(grep -c '^Unicast lids' "$work/readback.lfts")" = "$switches" ] || fail "ibroute read $(grep -c '^Unicast lids' "$work/readback.lfts") of $switches switches"
cmp -s "$work/entries.ours" "$work/entries.fabric" \
  || fail "the switches hold other routes than the dump ($ours entries ours, $theirs on the fabric): $(diff "$work/entries.ours" "$work/entries.fabric" | head -6)"

# ibtracert for a few CA pairs (first -> last, last -> first, and two in between).
mapfile -t cas < <(grep 'Channel Adapter' "$work/routelab.lfts" | awk "$fn"'{ print num($1) }' | sort -nu)
n=${#cas[@]}
traced=0
for pair in "0 $((n - 1))" "$((n - 1)) 0" "1 $((n / 2))" "$((n / 2)) 1"; do
  read -r a b <<< "$pair"
  s=${cas[$a]} d=${cas[$b]}
  [ "$s" != "$d" ] || continue
  (cd "$work" && timeout -k 2 30 ibsim-run ibtracert "$s" "$d" > "ibtracert.$s.$d.txt" 2>&1) || fail "ibtracert $s $d failed"
  # (the arrival line shows the LMC block: "lid BASE-LAST")
  awk -v d="$d" '/^To ca/ && match($0, / lid [0-9]+-[0-9]+ /) {
                  split(substr($0, RSTART + 5, RLENGTH - 6), r, "-"); if (r[1] <= d + 0 && d + 0 <= r[2]) ok = 1 }
                END { exit !ok }' \
    "$work/ibtracert.$s.$d.txt" || fail "ibtracert $s $d did not arrive"
  # Each hop: the switch arrived at, then the port it leaves by (next line) = the dump's entry.
  awk -v dlid="$d" '/^\[[0-9]+\] ->/ {
         p = $1; gsub(/[\[\]]/, "", p)
         if (prev != "") printf "%s 0x%04x %03d\n", prev, dlid, p
         prev = ""
         if ($3 == "switch") { prev = $5; sub(/^\{/, "", prev); sub(/\}.*/, "", prev) }
       }' \
    "$work/ibtracert.$s.$d.txt" > "$work/hops.$s.$d"
  [ -s "$work/hops.$s.$d" ] || fail "ibtracert $s $d shows no switch hop"
  missing=$(sort "$work/hops.$s.$d" | comm -23 - "$work/entries.ours" | head -3)
  [ -z "$missing" ] || fail "ibtracert $s $d leaves by other ports than the dump: $missing"
  traced=$((traced + 1))
done

# routelab verify on the tables read back from the switches, with routelab's SL file.
verdict=0
"$routelab" verify "ibnetdiscover:$work/fabric.ibnetdiscover" --engine "file:$work/readback.lfts" \
  --sl "$work/routelab.sl" > "$work/verify.txt" 2>&1 || verdict=$?
[ "$verdict" = 0 ] || fail "verify on the fabric's tables with routelab's SLs: exit $verdict: $(grep -E 'verdict|error' "$work/verify.txt")"
layers=$(sed -n 's/^layers *\([0-9]*\) used.*/\1/p' "$work/verify.txt")
if [ "${layers:-1}" -gt 1 ]; then
  # The SLs matter: on one layer (no SL file) the same tables are deadlock-prone (exit 4).
  verdict=0
  "$routelab" verify "ibnetdiscover:$work/fabric.ibnetdiscover" --engine "file:$work/readback.lfts" \
    > "$work/verify-no-sl.txt" 2>&1 || verdict=$?
  [ "$verdict" = 4 ] || fail "verify without the SL file: exit $verdict, expected 4 (deadlock-prone on one layer)"
fi
echo "opensm_roundtrip: $spec, $engine, LMC $lmc: $switches switches, $ours LFT entries equal on the fabric (ibroute)," \
  "$traced ibtracert paths as dumped, verify PASS with $layers SL layer(s) on the read-back tables ($((SECONDS - start)) s)"
