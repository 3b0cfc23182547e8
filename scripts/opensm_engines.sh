#!/usr/bin/env bash
# Run OpenSM's own routing engines on a fabric under ibsim and collect their tables in an
# "OpenSM engine directory" (docs/FORMATS.md), the input of `routelab compare --opensm-dir`
# and of readOpensmEngineDir (src/io/opensm_engine_dir.h). `routelab compare --opensm` runs
# this script (installed as build/bin/routelab-opensm-engines) and caches its directory.
#
#   scripts/opensm_engines.sh [options] FABRIC OUTDIR
#
#   FABRIC              a routelab fabric spec (kary-ntree:k=4,n=2, random:..., net:PATH,
#                       ibnetdiscover:PATH, ...): written as an ibsim net file by `routelab topo`
#   OUTDIR              created if needed; gets fabric.ibnetdiscover and, per engine E,
#                       E.lfts (+ E.sl for lash, dfsssp, nue, torus-2QoS) or E.error, and
#                       E.options: the OpenSM options of the run, one line (file names in it,
#                       e.g. updn.roots, are files of OUTDIR)
#   --routelab BIN      the routelab CLI (default: bin/routelab beside this script, else
#                       build/bin/routelab of this checkout)
#   --engines LIST      subset of: ftree updn dnup minhop lash dfsssp nue sssp dor torus-2QoS
#                       (default: the first eight, "ftree updn dnup minhop lash dfsssp nue sssp")
#   --updn-roots FILE   root switch GUIDs for updn (opensm -a FILE). Default, as OpenSM's
#                       documentation advises: its own root detection (on fat-trees: the top
#                       switches); where that finds no root (most irregular fabrics), the
#                       switch with most switch links (lowest GUID among equals: the root of
#                       routelab's updown) as the root file updn.roots
#   --torus-conf FILE   torus-2QoS's geometry (opensm --torus_config, torus-2QoS.conf(5));
#                       torus-2QoS runs only with it
#   --sl-method M       how the per-pair SLs are asked from OpenSM's SA: `log` (default) one
#                       PathRecord query for all pairs (`saquery -p`), whose answers OpenSM
#                       logs (osm_sa_path_record.c at DEBUG: "Src LID s, Dest LID d" then
#                       "Path params: ... sl = N"); `pairs` one `saquery -p --slid S --dlid D`
#                       per ordered CA pair (0.1-0.3 s each under ibsim; the reference the
#                       test suite checks `log` against)
#   --sl-pairs N        with --sl-method pairs: the first N ordered CA pairs only (0 = all)
#   --jobs N            engines run side by side, each with its own ibsim (default: nproc)
#   --label TEXT        the fabric's name in messages and E.error files (default: FABRIC)
#   --options E=OPTS    run engine E with these OpenSM options instead of its default (e.g.
#                       "nue=-R nue,no_fallback -Q --nue_max_num_vls 8"); repeatable
#
# When they apply: ftree on fat-trees (it refuses other fabrics); updn, dnup, minhop, lash,
# dfsssp, nue and sssp on any fabric (updn, dnup, lash, dfsssp, nue deadlock-free); dor is
# minhop with a dimension order on the port numbers, deadlock-free only on hypercubes and
# meshes cabled as OpenSM's documentation describes (opt-in); torus-2QoS needs a 2D/3D torus
# or mesh and its geometry (--torus-conf). No routelab generator builds those three shapes.
#
# LIDs: OpenSM (minhop) assigns them once; every other engine run starts a fresh ibsim with
# that LID cache (guid2lid), so all files of the directory use the LIDs of
# fabric.ibnetdiscover (checked). Exit 0 done (engines OpenSM refused have their .error), 1 a
# failed run (e.g. OpenSM cannot bring the fabric up), 2 usage, 77 tools missing (2 with
# ROUTELAB_REQUIRE_INTEROP_TOOLS=1). Only processes started here are stopped, by PID; nothing
# is left half-written in OUTDIR (files are moved in complete).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/opensm_lib.sh"
if [ -x "$here/routelab" ]; then routelab=$here/routelab; else routelab=$here/../build/bin/routelab; fi
engines="ftree updn dnup minhop lash dfsssp nue sssp" roots="" torus="" pairs=0 method=log label=""
jobs=$(nproc 2> /dev/null || echo 2)
args=() overrides=()
while [ $# -gt 0 ]; do
  case $1 in
    --routelab|--engines|--updn-roots|--torus-conf|--sl-method|--sl-pairs|--jobs|--label|--options)
      [ $# -ge 2 ] || { echo "opensm_engines.sh: $1 needs a value (see --help)" >&2; exit 2; } ;;&
    --routelab) routelab=$2; shift ;;
    --engines) engines=$2; shift ;;
    --updn-roots) roots=$2; shift ;;
    --torus-conf) torus=$2; shift ;;
    --sl-method) method=$2; shift ;;
    --sl-pairs) pairs=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --label) label=$2; shift ;;
    --options) overrides+=("$2"); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "opensm_engines.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ ${#args[@]} = 2 ] || { echo "usage: opensm_engines.sh [options] FABRIC OUTDIR (see --help)" >&2; exit 2; }
fabric=${args[0]} out=${args[1]}
label=${label:-$fabric}
case $pairs in ''|*[!0-9]*) echo "opensm_engines.sh: --sl-pairs needs a number, got '$pairs'" >&2; exit 2 ;; esac
case $jobs in ''|0|*[!0-9]*) echo "opensm_engines.sh: --jobs needs a positive number, got '$jobs'" >&2; exit 2 ;; esac
case $method in log|pairs) ;; *) echo "opensm_engines.sh: --sl-method is log or pairs, got '$method'" >&2; exit 2 ;; esac
# The OpenSM options of each engine (-R E,no_fallback: a refusal is recorded, never another
# engine's tables under E's name; -Q: QoS on, so that OpenSM programs the SL2VL tables the
# SL-based engines need).
declare -A engine_args=(
  [ftree]="-R ftree,no_fallback"
  [updn]="-R updn,no_fallback"
  [dnup]="-R dnup,no_fallback"
  [minhop]="-R minhop,no_fallback"
  [lash]="-R lash,no_fallback -Q"
  [dfsssp]="-R dfsssp,no_fallback -Q"
  [nue]="-R nue,no_fallback"
  [sssp]="-R sssp,no_fallback"
  [dor]="-R dor,no_fallback"
  [torus-2QoS]="-R torus-2QoS,no_fallback -Q --torus_config torus-2QoS.conf"
)
for o in "${overrides[@]}"; do
  e=${o%%=*}
  [ "$e" != "$o" ] && [ -n "${engine_args[$e]:-}" ] && [[ ${o#*=} == "-R $e"* ]] ||
    { echo "opensm_engines.sh: --options needs E=OPTS for a known engine E, OPTS starting with '-R E', got '$o'" >&2; exit 2; }
  engine_args[$e]=${o#*=}
done
for e in $engines; do
  [ -n "${engine_args[$e]:-}" ] || { echo "opensm_engines.sh: unknown engine '$e' (ftree updn dnup minhop lash dfsssp nue sssp dor torus-2QoS)" >&2; exit 2; }
  [ "$e" != torus-2QoS ] || [ -n "$torus" ] || { echo "opensm_engines.sh: torus-2QoS needs --torus-conf FILE (its geometry, torus-2QoS.conf(5))" >&2; exit 2; }
done
for f in "$roots" "$torus"; do
  [ -z "$f" ] || [ -r "$f" ] || { echo "opensm_engines.sh: cannot read '$f'" >&2; exit 2; }
done
osm_require_tools ibsim ibsim-run opensm ibnetdiscover saquery
[ -x "$routelab" ] || { echo "opensm_engines.sh: routelab CLI not found at '$routelab' (build it or pass --routelab)" >&2; exit 2; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/routelab-opensm-engines.XXXXXX")
job_pids=()
stop_jobs() {
  local p
  for p in "${job_pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${job_pids[@]}"; do wait "$p" 2> /dev/null || true; done
  job_pids=()
}
trap 'stop_jobs; osm_cleanup; rm -rf "$scratch"' EXIT
trap 'exit 1' INT TERM
fail() { echo "opensm_engines.sh: $*" >&2; exit 1; }
osm_version=$(opensm --version 2> /dev/null | grep -o 'OpenSM [0-9][0-9.]*' | head -1 || true)

"$routelab" topo "$fabric" --export net "$scratch/topology.net" > /dev/null 2> "$scratch/topo.err" \
  || fail "routelab topo '$label': $(cat "$scratch/topo.err")"

# 1. Discovery: OpenSM assigns the LIDs, ibnetdiscover records them, guid2lid keeps them.
mkdir "$scratch/discover"
osm_start_ibsim "$scratch/topology.net" "$scratch/discover" || exit 1
osm_run_opensm "$scratch/discover" discover -R minhop ||
  fail "OpenSM did not bring the subnet of '$label' up ($(grep -m1 -E 'ERR|error' "$scratch/discover/osm.discover.log" 2> /dev/null || tail -1 "$scratch/discover/osm.discover.stdout"))"
(cd "$scratch/discover" && timeout -k 2 60 ibsim-run ibnetdiscover > "$scratch/fabric.ibnetdiscover" 2> ibnetdiscover.err) || fail "ibnetdiscover failed"
osm_cleanup
[ -s "$scratch/discover/guid2lid" ] || fail "OpenSM wrote no LID cache"

# "port GUID LID" of every CA port, and the UpDown fallback root, from ibnetdiscover.
sed -n 's/^\[[0-9]*\](\([0-9a-f]*\)).*# lid \([0-9]*\) lmc.*/\1 \2/p' "$scratch/fabric.ibnetdiscover" | sort -k2,2n > "$scratch/ca_lids"
[ -s "$scratch/ca_lids" ] || fail "'$label' has no channel adapter (terminal) for OpenSM's path records"
best_connected_switch() {  # ibnetdiscover: the switch with most switch links, lowest GUID among equals
  awk '/^switchguid=/ { sw = $0; sub(/^switchguid=/, "", sw); sub(/\(.*/, "", sw); sub(/^0x/, "", sw)
                        g = sprintf("%016s", sw); gsub(/ /, "0", g); guids[g] = 1; deg[g] += 0; next }
       /^Ca/ { sw = ""; next }
       /^\[/ && sw != "" && /"S-[0-9a-f]+"/ { deg[g]++ }
       END { for (x in guids) if (best == "" || deg[x] > deg[best] || (deg[x] == deg[best] && x < best)) best = x
             print "0x" best }' "$1"
}

# SL of every ordered CA pair as OpenSM's SA answers a PathRecord query. Writes "slid dlid sl"
# lines (NA: no answer) for all ordered CA pairs (the first $pairs with `pairs` when > 0).
sl_header() { echo "# slid dlid sl   (OpenSM SA PathRecord SL, $1)"; }
query_path_sls_pairs() {  # work
  local lids count=0 s d sl
  lids=$(awk '{ print $2 }' "$scratch/ca_lids")
  sl_header "from: saquery -p --slid S --dlid D"
  for s in $lids; do
    for d in $lids; do
      [ "$s" = "$d" ] && continue
      if [ "$pairs" -gt 0 ] && [ $count -ge "$pairs" ]; then return 0; fi
      count=$((count + 1))
      sl=$(cd "$1" && timeout -k 2 30 ibsim-run saquery -p --slid "$s" --dlid "$d" 2> /dev/null |
        sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-fA-F]*\).*/\1/p' | head -1 || true)
      if [ -n "$sl" ]; then echo "$s $d $((sl))"; else echo "$s $d NA"; fi
    done
  done
}
# One GetTable query for every path (pr_rcv_process_world); under ibsim the multi-MAD answer
# comes back truncated, but OpenSM has logged every pair it computed, per SA thread:
# "pr_rcv_get_lid_pair_path: Src LID s, Dest LID d", then (if a path exists) the forward
# path's "pr_rcv_get_path_parms: Path params: ... sl = N" before the reverse path's.
# saquery's own wait ends long before OpenSM's answer on a large fabric (and a resent query is
# computed again), so it waits long, and the log's "osm_sa_respond: Returning N records"
# (osm_sa.c at DEBUG) says when every pair has been logged; then saquery is stopped.
query_path_sls_log() {  # work tag
  local qpid
  (cd "$1" && exec timeout -k 2 300 ibsim-run saquery -t 300000 -p > saquery-world.out 2>&1) &
  qpid=$!
  osm_wait_for "$1/osm.$2.log" 'osm_sa_respond: Returning [0-9]+ records' 300 "$osm_opensm_pid" ||
    { kill "$qpid" 2> /dev/null; wait "$qpid" 2> /dev/null; echo "$2: OpenSM's SA did not answer the PathRecord query" > "$1/failed"; return 1; }
  kill "$qpid" 2> /dev/null || true
  wait "$qpid" 2> /dev/null || true
  sl_header "from one saquery -p: OpenSM's osm_sa_path_record.c DEBUG log"
  awk 'FNR == NR { ca[$2] = 1; n++; order[n] = $2; next }
       / pr_rcv_get_lid_pair_path: Src LID [0-9]+, Dest LID [0-9]+$/ {
         s = $(NF - 3); sub(/,$/, "", s); cur[$5] = s " " $NF; open[$5] = 1; next }
       / pr_rcv_get_path_parms: Path params: .* sl = [0-9]+$/ {
         if (open[$5]) { sl[cur[$5]] = $NF; open[$5] = 0 } }
       END { for (i = 1; i <= n; ++i) for (j = 1; j <= n; ++j) if (i != j) {
               k = order[i] " " order[j]; print k, (k in sl) ? sl[k] : "NA" } }' \
    "$scratch/ca_lids" "$1/osm.$2.log"
}

# One engine in its own work directory, ibsim and OpenSM: E.lfts (+ E.sl) or E.error, and
# E.options, into $scratch/result.
run_engine() {  # engine
  local e=$1 work=$scratch/$1 res=$scratch/result opts shown
  # (a subshell: the caller's traps are reset here; a TERM from stop_jobs must still stop
  # this engine's ibsim and OpenSM)
  trap osm_cleanup EXIT
  trap 'exit 1' INT TERM
  mkdir "$work"
  cp "$scratch/discover/guid2lid" "$work/guid2lid"
  read -r -a opts <<< "${engine_args[$e]}"
  [ "$e" != torus-2QoS ] || opts=("${opts[@]/torus-2QoS.conf/$res/torus-2QoS.conf}")
  [ "$e" != updn ] || [ -z "$roots" ] || opts+=(-a "$res/updn.roots")
  # DEBUG for the SA's path record code and its reply only (the SL log), flushed line by line.
  printf 'osm_sa_path_record.c 0x0f\nosm_sa.c 0x0f\n' > "$work/per-module-logging.conf"
  printf 'per_module_logging_file %s\nforce_log_flush TRUE\n' "$work/per-module-logging.conf" > "$work/opensm.conf"
  local try=1 ok=0
  while :; do
    osm_start_ibsim "$scratch/topology.net" "$work" || exit 1
    if osm_run_opensm "$work" "$e" -F "$work/opensm.conf" "${opts[@]}" &&
      grep -q "$e tables configured on all switches" "$work/osm.$e.log"; then
      ok=1
      break
    fi
    # updn: OpenSM found no root of its own: the best-connected switch as the root file.
    if [ "$e" = updn ] && [ -z "$roots" ] && [ $try = 1 ] && grep -q 'no root nodes were found' "$work/osm.$e.log"; then
      osm_cleanup
      best_connected_switch "$scratch/fabric.ibnetdiscover" > "$res/updn.roots"
      opts+=(-a "$res/updn.roots")
      mv "$work/osm.$e.log" "$work/osm.$e.autodetect.log"
      cp "$scratch/discover/guid2lid" "$work/guid2lid"
      try=2
      continue
    fi
    break
  done
  shown="${opts[*]}"
  shown=${shown//$res\//}
  shown=${shown//$scratch\//}
  echo "$shown" > "$res/$e.options.tmp"
  if [ $ok = 1 ]; then
    [ -s "$work/opensm-lfts.dump" ] || { echo "$e: OpenSM wrote no opensm-lfts.dump" > "$work/failed"; exit 1; }
    case $e in
      lash|dfsssp|nue|torus-2QoS)
        if [ "$method" = log ]; then query_path_sls_log "$work" "$e"; else query_path_sls_pairs "$work"; fi > "$res/$e.sl.tmp" ||
          exit 1
        mv "$res/$e.sl.tmp" "$res/$e.sl" ;;
    esac
    cp "$work/opensm-lfts.dump" "$res/$e.lfts.tmp"
    mv "$res/$e.lfts.tmp" "$res/$e.lfts"
  else
    # OpenSM's reason: its error lines (not the harmless "Failed to setup routing engine
    # 'no_fallback'", see tests/data/opensm/README.md), else the last lines of its log.
    { echo "# $osm_version refused '$e' on $label (opensm $shown)"
      grep -E ' ERR |0x01 -> ' "$work/osm.$e.log" 2> /dev/null | grep -v "routing engine 'no_fallback'" |
        sed -E 's/^[A-Z][a-z]{2} +[0-9]+ [0-9:]{8} [0-9]{6} \[[0-9A-F]+\] //' || true
    } > "$res/$e.error.tmp"
    [ "$(wc -l < "$res/$e.error.tmp")" -gt 1 ] || tail -5 "$work/osm.$e.log" >> "$res/$e.error.tmp" 2> /dev/null || true
    mv "$res/$e.error.tmp" "$res/$e.error"
  fi
  mv "$res/$e.options.tmp" "$res/$e.options"
  osm_cleanup
}

# 2. The engines, up to $jobs side by side (the files their options name are in the result).
mkdir "$scratch/result"
[[ " $engines " != *" updn "* ]] || [ -z "$roots" ] || cp "$roots" "$scratch/result/updn.roots"
[[ " $engines " != *" torus-2QoS "* ]] || cp "$torus" "$scratch/result/torus-2QoS.conf"
for e in $engines; do
  while [ ${#job_pids[@]} -ge "$jobs" ]; do
    wait -n 2> /dev/null || true
    alive=()
    for p in "${job_pids[@]}"; do kill -0 "$p" 2> /dev/null && alive+=("$p"); done
    job_pids=("${alive[@]}")
  done
  (run_engine "$e") > "$scratch/job.$e.out" 2>&1 &
  job_pids+=("$!")
done
failed=0
for p in "${job_pids[@]}"; do wait "$p" || failed=1; done
job_pids=()
for e in $engines; do
  [ -f "$scratch/result/$e.options" ] || fail "$e: the OpenSM run failed: $(cat "$scratch/$e/failed" 2> /dev/null || tail -3 "$scratch/job.$e.out")"
done
[ $failed = 0 ] || fail "an engine run failed: $(cat "$scratch"/job.*.out | tail -3)"

# 3. Every dump uses the fabric's LIDs: "LID port-GUID" of each dump = ibnetdiscover's.
sed -n 's/^\[[0-9]*\](\([0-9a-f]*\)).*# lid \([0-9]*\) lmc.*/\2 \1/p; s/^switchguid=0x\([0-9a-f]*\).*/S \1/p; s/^Switch.*port 0 lid \([0-9]*\) .*/L \1/p' \
  "$scratch/fabric.ibnetdiscover" |
  awk '$1 == "S" { g = $2; next } $1 == "L" { print $2, g; next } { print }' | sed 's/ 0*/ /' | sort -u > "$scratch/lids.fabric"
hexlid='function num(s,  i, v) { s = tolower(substr(s, 3)); v = 0
                                 for (i = 1; i <= length(s); ++i) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                                 return v }'
for f in "$scratch"/result/*.lfts; do
  [ -e "$f" ] || continue
  grep -o '^0x[0-9a-f]* [0-9]* # [A-Za-z ]*portguid 0x[0-9a-f]*' "$f" |
    awk "$hexlid"'{ g = $NF; sub(/^0x0*/, "", g); print num($1), g }' | sort -u > "$scratch/lids.dump"
  comm -13 "$scratch/lids.fabric" "$scratch/lids.dump" | grep -q . && fail "$(basename "$f"): LIDs differ from fabric.ibnetdiscover's"
done

# 4. Into OUTDIR, each file complete (stale files of the engines run here removed).
mkdir -p "$out"
for e in $engines; do rm -f "$out/$e.lfts" "$out/$e.sl" "$out/$e.error" "$out/$e.options"; done
[[ " $engines " != *" updn "* ]] || rm -f "$out/updn.roots"
[[ " $engines " != *" torus-2QoS "* ]] || rm -f "$out/torus-2QoS.conf"
mv "$scratch/fabric.ibnetdiscover" "$out/fabric.ibnetdiscover"
mv "$scratch"/result/* "$out/"
summary=""
for e in $engines; do
  if [ -f "$out/$e.lfts" ]; then summary+=" $e"; [ -f "$out/$e.sl" ] && summary+="+sl"; else summary+=" $e:error"; fi
done
echo "opensm_engines.sh: $out:$summary"
