#!/usr/bin/env bash
# Run OpenSM's own routing engines on a fabric under ibsim and collect their tables in an
# "OpenSM engine directory" (docs/FORMATS.md), the input of `routelab compare --opensm-dir`
# and of readOpensmEngineDir (src/io/opensm_engine_dir.h).
#
#   scripts/opensm_engines.sh [options] FABRIC OUTDIR
#
#   FABRIC              a routelab fabric spec (kary-ntree:k=4,n=2, random:..., net:PATH,
#                       ibnetdiscover:PATH, ...): written as an ibsim net file by `routelab topo`
#   OUTDIR              created if needed; gets fabric.ibnetdiscover and, per engine E,
#                       E.lfts (+ E.sl for lash, dfsssp, nue) or E.error
#   --routelab BIN      the routelab CLI (default: build/bin/routelab of this checkout)
#   --engines LIST      subset of: ftree updn minhop lash dfsssp nue (default: all six)
#   --updn-roots FILE   root switch GUIDs for updn (opensm -a FILE); default: OpenSM's own
#                       root detection (which finds none on most irregular fabrics: updn.error)
#   --sl-pairs N        ask OpenSM's SA for the SL of the first N ordered CA pairs only
#                       (default 0 = all; one saquery per pair, 0.1-0.3 s each under ibsim)
#
# LIDs: OpenSM (minhop) assigns them once; every engine run starts a fresh ibsim with that
# LID cache (guid2lid), so all files of the directory use the LIDs of fabric.ibnetdiscover
# (checked). Exit 0 done (engines OpenSM refused have their .error), 1 a failed run, 2 usage,
# 77 tools missing (2 with ROUTELAB_REQUIRE_INTEROP_TOOLS=1). Only processes started here
# are stopped, by PID; nothing is left half-written in OUTDIR (files are moved in complete).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/opensm_lib.sh"
routelab=$here/../build/bin/routelab engines="ftree updn minhop lash dfsssp nue" roots="" pairs=0
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --routelab) routelab=$2; shift ;;
    --engines) engines=$2; shift ;;
    --updn-roots) roots=$2; shift ;;
    --sl-pairs) pairs=$2; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "opensm_engines.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ ${#args[@]} = 2 ] || { echo "usage: opensm_engines.sh [options] FABRIC OUTDIR (see --help)" >&2; exit 2; }
fabric=${args[0]} out=${args[1]}
case $pairs in ''|*[!0-9]*) echo "opensm_engines.sh: --sl-pairs needs a number, got '$pairs'" >&2; exit 2 ;; esac
declare -A engine_args=(
  [ftree]="-R ftree,no_fallback"
  [updn]="-R updn,no_fallback"
  [minhop]="-R minhop,no_fallback"
  [lash]="-R lash,no_fallback -Q"
  [dfsssp]="-R dfsssp,no_fallback -Q"
  [nue]="-R nue,no_fallback"
)
for e in $engines; do
  [ -n "${engine_args[$e]:-}" ] || { echo "opensm_engines.sh: unknown engine '$e' (ftree updn minhop lash dfsssp nue)" >&2; exit 2; }
done
[ -z "$roots" ] || [ -r "$roots" ] || { echo "opensm_engines.sh: cannot read --updn-roots '$roots'" >&2; exit 2; }
[ -z "$roots" ] || roots=$(cd "$(dirname "$roots")" && pwd)/$(basename "$roots")
osm_require_tools ibsim ibsim-run opensm ibnetdiscover saquery
[ -x "$routelab" ] || { echo "opensm_engines.sh: routelab CLI not found at '$routelab' (build it or pass --routelab)" >&2; exit 2; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/routelab-opensm-engines.XXXXXX")
trap 'osm_cleanup; rm -rf "$scratch"' EXIT
trap 'exit 1' INT TERM
fail() { echo "opensm_engines.sh: $*" >&2; exit 1; }

"$routelab" topo "$fabric" --export net "$scratch/topology.net" > /dev/null 2> "$scratch/topo.err" \
  || fail "routelab topo '$fabric': $(cat "$scratch/topo.err")"

# 1. Discovery: OpenSM assigns the LIDs, ibnetdiscover records them, guid2lid keeps them.
mkdir "$scratch/discover"
osm_start_ibsim "$scratch/topology.net" "$scratch/discover" || exit 1
osm_run_opensm "$scratch/discover" discover -R minhop || fail "OpenSM did not bring the subnet up ($(grep -m1 ERR "$scratch/discover/osm.discover.log" || true))"
(cd "$scratch/discover" && timeout -k 2 60 ibsim-run ibnetdiscover > "$scratch/fabric.ibnetdiscover" 2> ibnetdiscover.err) || fail "ibnetdiscover failed"
osm_cleanup
[ -s "$scratch/discover/guid2lid" ] || fail "OpenSM wrote no LID cache"

# The CA LIDs (for the SA queries) and "port GUID -> LID" of the fabric, from ibnetdiscover.
sed -n 's/^\[[0-9]*\](\([0-9a-f]*\)).*# lid \([0-9]*\) lmc.*/\1 \2/p' "$scratch/fabric.ibnetdiscover" | sort -k2,2n > "$scratch/ca_lids"

# SL of every ordered CA pair (first $2 if > 0), one saquery per pair: multi-MAD SA answers
# come back truncated under ibsim (tests/data/opensm/README.md).
query_path_sls() {  # ca_lids pairs
  local lids count=0 s d sl
  lids=$(awk '{ print $2 }' "$1")
  echo "# slid dlid sl   (OpenSM SA PathRecord SL, from: saquery -p --slid S --dlid D)"
  for s in $lids; do
    for d in $lids; do
      [ "$s" = "$d" ] && continue
      if [ "$2" -gt 0 ] && [ $count -ge "$2" ]; then return 0; fi
      count=$((count + 1))
      sl=$(timeout -k 2 30 ibsim-run saquery -p --slid "$s" --dlid "$d" 2> /dev/null |
        sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-fA-F]*\).*/\1/p' | head -1 || true)
      if [ -n "$sl" ]; then echo "$s $d $((sl))"; else echo "$s $d NA"; fi
    done
  done
}

# 2. One fresh ibsim per engine, OpenSM with the discovery's LID cache.
mkdir "$scratch/result"
for e in $engines; do
  work=$scratch/$e
  mkdir "$work"
  cp "$scratch/discover/guid2lid" "$work/guid2lid"
  read -r -a opts <<< "${engine_args[$e]}"
  [ "$e" = updn ] && [ -n "$roots" ] && opts+=(-a "$roots")
  osm_start_ibsim "$scratch/topology.net" "$work" || exit 1
  if osm_run_opensm "$work" "$e" "${opts[@]}" && grep -q "$e tables configured on all switches" "$work/osm.$e.log"; then
    [ -s "$work/opensm-lfts.dump" ] || fail "$e: OpenSM wrote no opensm-lfts.dump"
    cp "$work/opensm-lfts.dump" "$scratch/result/$e.lfts"
    case $e in
      lash|dfsssp|nue) (cd "$work" && query_path_sls "$scratch/ca_lids" "$pairs") > "$scratch/result/$e.sl" ;;
    esac
  else
    # OpenSM's reason: its error lines (not the harmless "Failed to setup routing engine
    # 'no_fallback'", see tests/data/opensm/README.md), else the last lines of its log.
    { echo "# OpenSM $(opensm --version 2> /dev/null | grep -o '[0-9][0-9.]*' | head -1) refused '$e' on $fabric (opensm ${opts[*]})"
      grep -E ' ERR |0x01 -> ' "$work/osm.$e.log" 2> /dev/null | grep -v "routing engine 'no_fallback'" |
        sed -E 's/^[A-Z][a-z]{2} +[0-9]+ [0-9:]{8} [0-9]{6} \[[0-9A-F]+\] //' || true
    } > "$scratch/result/$e.error"
    [ "$(wc -l < "$scratch/result/$e.error")" -gt 1 ] || tail -5 "$work/osm.$e.log" >> "$scratch/result/$e.error" 2> /dev/null || true
  fi
  osm_cleanup
done

# 3. Every dump uses the fabric's LIDs: "LID port-GUID" of each dump = ibnetdiscover's.
sed -n 's/^\[[0-9]*\](\([0-9a-f]*\)).*# lid \([0-9]*\) lmc.*/\2 \1/p; s/^switchguid=0x\([0-9a-f]*\).*/S \1/p; s/^Switch.*port 0 lid \([0-9]*\) .*/L \1/p' \
  "$scratch/fabric.ibnetdiscover" |
  awk '$1 == "S" { g = $2; next } $1 == "L" { print $2, g; next } { print }' | sed 's/ 0*/ /' | sort -n > "$scratch/lids.fabric"
for f in "$scratch"/result/*.lfts; do
  [ -e "$f" ] || continue
  grep -o '^0x[0-9a-f]* [0-9]* # [A-Za-z ]*portguid 0x[0-9a-f]*' "$f" | awk '{ print $1, $NF }' | sort -u |
    while read -r lid guid; do g=${guid#0x}; g=$(echo "$g" | sed 's/^0*//'); echo "$((lid)) $g"; done | sort -n > "$scratch/lids.dump"
  comm -13 "$scratch/lids.fabric" "$scratch/lids.dump" | grep -q . && fail "$(basename "$f"): LIDs differ from fabric.ibnetdiscover's"
done

# 4. Into OUTDIR, each file complete (stale files of the engines run here removed).
mkdir -p "$out"
for e in $engines; do rm -f "$out/$e.lfts" "$out/$e.sl" "$out/$e.error"; done
mv "$scratch/fabric.ibnetdiscover" "$out/fabric.ibnetdiscover"
mv "$scratch"/result/* "$out/"
summary=""
for e in $engines; do
  if [ -f "$out/$e.lfts" ]; then summary+=" $e"; [ -f "$out/$e.sl" ] && summary+="+sl"; else summary+=" $e:error"; fi
done
echo "opensm_engines.sh: $out:$summary"
