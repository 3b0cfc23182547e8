#!/usr/bin/env bash
# Regenerate (or check) routelab's OpenSM/ibsim test data with the real Debian tools.
#
#   tests/data/opensm/make.sh [options]
#
#   --check            regenerate into a scratch directory and compare with the committed files
#                      (modulo the normalisations listed in README.md); exit 1 on any difference
#   --out DIR          write the data set to DIR (default: this script's directory)
#   --routelab BIN     the routelab CLI that writes the topology files (default: build/bin/routelab)
#   --topologies LIST  space-separated subset of: k4n2 k2n4 k4n3 gft_4_4_8 rnd16_s1 k6n2 (default: all)
#   --engines LIST     subset of: minhop updn dnup ftree lash dfsssp nue nue8 (default: all that
#                      apply to the topology)
#   --pairs N          ask OpenSM's SA for the SL of the first N ordered CA pairs only (default:
#                      all pairs; --check with N compares those pairs' lines). A full run asks
#                      about 22,000 PathRecords one by one and takes 30-60 minutes; see README.md.
#   --keep-work DIR    keep the per-run work directories (OpenSM logs, ibsim output) in DIR
#
# Needs the Debian packages opensm, ibsim-utils and infiniband-diags (scripts/apt-packages.txt)
# and a built routelab. Exit: 0 done / identical, 1 difference or failed run, 2 usage error,
# 77 tools not installed (2 with ROUTELAB_REQUIRE_INTEROP_TOOLS=1). Only processes started
# here are stopped, by PID.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mode=generate out=$here routelab=$root/build/bin/routelab pairs=0 keep_work=""
topologies="k4n2 k2n4 k4n3 gft_4_4_8 rnd16_s1 k6n2"
engines_override=""
while [ $# -gt 0 ]; do
  case $1 in
    --check) mode=check ;;
    --out) out=$2; shift ;;
    --routelab) routelab=$2; shift ;;
    --topologies) topologies=$2; shift ;;
    --engines) engines_override=$2; shift ;;
    --pairs) pairs=$2; shift ;;
    --keep-work) keep_work=$2; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case $pairs in ''|*[!0-9]*) echo "make.sh: --pairs needs a number, got '$pairs'" >&2; exit 2 ;; esac

# A missing tool exits 77 (CTest's skip code) unless ROUTELAB_REQUIRE_INTEROP_TOOLS=1, which
# scripts/setup.sh sets after installing them: there a missing tool is an error (exit 2).
for tool in ibsim ibsim-run opensm ibnetdiscover saquery ibroute ibtracert dump_fts ibswitches ibhosts; do
  command -v "$tool" >/dev/null && continue
  echo "make.sh: '$tool' not found (install opensm ibsim-utils infiniband-diags)" >&2
  [ "${ROUTELAB_REQUIRE_INTEROP_TOOLS:-0}" = 1 ] && exit 2
  exit 77
done
[ -x "$routelab" ] || { echo "make.sh: routelab CLI not found at '$routelab' (build it or pass --routelab)" >&2; exit 2; }
routelab=$(cd "$(dirname "$routelab")" && pwd)/$(basename "$routelab")

# The fabrics, as routelab specs (the topology files are routelab's own ibsim net export).
declare -A spec=(
  [k4n2]="kary-ntree:k=4,n=2"
  [k2n4]="kary-ntree:k=2,n=4"
  [k4n3]="kary-ntree:k=4,n=3"
  [gft_4_4_8]="gft2:n=4,m=4,r=8"
  [rnd16_s1]="random:switches=16,links=32,terminals=1,radix=16,seed=1"
  [k6n2]="kary-ntree:k=6,n=2"
)
# Engine label -> OpenSM routing engine and options.
declare -A engine_args=(
  [minhop]="-R minhop"
  [updn]="-R updn"
  [dnup]="-R dnup,no_fallback"
  [ftree]="-R ftree,no_fallback"
  [lash]="-R lash,no_fallback -Q"
  [dfsssp]="-R dfsssp,no_fallback -Q"
  [nue]="-R nue,no_fallback"
  [nue8]="-R nue,no_fallback -Q --nue_max_num_vls 8"
)
engines_for() {  # topology -> engine labels
  if [ -n "$engines_override" ]; then echo "$engines_override"; return; fi
  case $1 in
    rnd*) echo "minhop updn dnup ftree lash dfsssp nue nue8" ;;
    k6n2) echo "minhop updn ftree" ;;  # 12-port switches: ports 10-12 in every dump
    *) echo "minhop updn ftree lash dfsssp nue nue8" ;;
  esac
}
for t in $topologies; do
  [ -n "${spec[$t]:-}" ] || { echo "make.sh: unknown topology '$t'" >&2; exit 2; }
  for e in $(engines_for "$t"); do
    [ -n "${engine_args[$e]:-}" ] || { echo "make.sh: unknown engine '$e'" >&2; exit 2; }
  done
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/routelab-opensm-data.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
[ "$mode" = check ] && target=$scratch/data || target=$out
mkdir -p "$target"
workroot=${keep_work:-$scratch/work}
mkdir -p "$workroot"

wait_for() {  # file regex seconds pid -> 0 when the regex appears, 1 on timeout or exit of pid
  local file=$1 regex=$2 limit=$(( $3 * 10 )) pid=$4 i
  for ((i = 0; i < limit; ++i)); do
    grep -qE "$regex" "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { grep -qE "$regex" "$file" 2>/dev/null && return 0; return 1; }
    sleep 0.1
  done
  return 1
}

# SL of every ordered pair of the CA LIDs in $1 (first $2 pairs if $2 > 0), one saquery per pair:
# multi-MAD SA answers come back truncated under ibsim (saquery -p without LIDs gives 3 records).
query_path_sls() {
  local lids count=0
  lids=$(awk '{print $1 + 0}' "$1")
  echo "# slid dlid sl   (OpenSM SA PathRecord SL, from: saquery -p --slid S --dlid D)"
  for s in $lids; do
    for d in $lids; do
      [ "$s" = "$d" ] && continue
      if [ "$2" -gt 0 ] && [ $count -ge "$2" ]; then return 0; fi
      count=$((count + 1))
      local sl
      sl=$(saquery -p --slid "$s" --dlid "$d" 2>/dev/null | sed -n 's/^[[:space:]]*sl\.*\(0x[0-9a-fA-F]*\).*/\1/p' | head -1)
      if [ -n "$sl" ]; then echo "$s $d $((sl))"; else echo "$s $d NA"; fi
    done
  done
}

# One OpenSM run on a fresh ibsim fabric: run_opensm NET WORKDIR PER_MODULE_EXTRA OPENSM_ARGS...
# Leaves OpenSM's dumps and log in WORKDIR; while OpenSM is master (after SUBNET UP) runs
# the function `post_commands` under ibsim-run with WORKDIR as the current directory.
run_opensm() {
  local net=$1 work=$2 extra=$3; shift 3
  rm -rf "$work"; mkdir -p "$work"
  printf 'osm_ucast_mgr.c 0x07\n%s\n' "$extra" > "$work/per-module-logging.conf"
  printf 'per_module_logging_file %s\n' "$work/per-module-logging.conf" > "$work/opensm.conf"
  export IBSIM_SOCKNAME="routelab_ibsim_$$_${RANDOM}"
  timeout 7200 ibsim -s -n "$net" > "$work/ibsim.out" 2>&1 &
  local ibsim_pid=$!; pids+=("$ibsim_pid")
  wait_for "$work/ibsim.out" 'Network simulator ready' 60 "$ibsim_pid" \
    || { echo "make.sh: ibsim did not start on $net:" >&2; tail -5 "$work/ibsim.out" >&2; return 1; }
  OSM_CACHE_DIR=$work OSM_TMP_DIR=$work timeout 7000 ibsim-run opensm -F "$work/opensm.conf" -s 0 -e \
    -f "$work/osm.log" -D 0x43 -d2 --dump_files_dir "$work" "$@" > "$work/osm.stdout" 2>&1 &
  local osm_pid=$!; pids+=("$osm_pid")
  local ok=1
  wait_for "$work/osm.log" 'SUBNET UP|ERRORS DURING INITIALIZATION|No routing engine able' 600 "$osm_pid" || ok=0
  if [ $ok = 1 ] && grep -q 'SUBNET UP' "$work/osm.log"; then
    sleep 1
    (cd "$work" && OSM_TMP_DIR=$work timeout 7000 ibsim-run bash -c "$(declare -f query_path_sls post_commands); post_commands" \
       > "$work/post.out" 2> "$work/post.err") || { echo "make.sh: post commands failed in $work" >&2; ok=0; }
  fi
  kill "$osm_pid" 2>/dev/null || true; wait "$osm_pid" 2>/dev/null || true
  kill "$ibsim_pid" 2>/dev/null || true; wait "$ibsim_pid" 2>/dev/null || true
  [ $ok = 1 ]
}

# Files over 200 kB are kept gzip -9 -n (deterministic, no name or time stamp).
keep() {  # source destination-without-.gz
  if [ "$(stat -c %s "$1")" -gt 204800 ]; then gzip -9 -n -c "$1" > "$2.gz"; rm -f "$2"; else cp "$1" "$2"; rm -f "$2.gz"; fi
}

# The root switch UpDown (updn) is given on the random fabric: the switch with most
# switch-to-switch links, the lowest index among equals (the choice of routelab's updown
# engine), written as ibsim's GUID of that switch (switch i of the file = 0x200000 + i).
random_root_guid() {  # net file
  awk '
    FNR == NR { if ($1 == "Switch") { name = $3; gsub(/"/, "", name); order[name] = switches++ } next }
    /^(Switch|Hca)/ { kind = $1; name = $3; gsub(/"/, "", name); next }
    /^\[/ && kind == "Switch" { remote = $2; sub(/\[.*/, "", remote); gsub(/"/, "", remote); if (remote in order) degree[name]++ }
    END {
      best = ""; for (n in order) if (best == "" || degree[n] > degree[best] || (degree[n] == degree[best] && order[n] < order[best])) best = n
      printf "0x%016x\n", 2097152 + order[best]
    }' "$1" "$1"
}

generate_topology() {  # topology label
  local t=$1 dir=$target/$1 e
  mkdir -p "$dir"
  "$routelab" topo "${spec[$t]}" --export net "$dir/topology.net" > /dev/null
  for e in $(engines_for "$t"); do
    local work=$workroot/$t/$e extra="" args
    read -r -a args <<< "${engine_args[$e]}"
    if [ "$e" = updn ] && [[ $t == rnd* ]]; then
      # updn's own root detection finds no root on a random fabric (it then falls back to minhop)
      random_root_guid "$dir/topology.net" > "$dir/updn-root-guids.txt"
      args=(-R updn,no_fallback -a "$dir/updn-root-guids.txt")
    fi
    [ "$e" = dfsssp ] && extra="osm_ucast_dfsssp.c 0x0f"   # its per-pair VL table is DEBUG output
    post_commands() {
      grep "Channel Adapter portguid" opensm-lfts.dump | awk '{print $1}' | sort -u > ca_lids.txt
      case $POST_KIND in
        minhop)
          ibnetdiscover > ibnetdiscover.txt; ibnetdiscover -p > ibnetdiscover-p.txt
          ibswitches > ibswitches.txt; ibhosts > ibhosts.txt
          local sw a b
          sw=$(grep -m1 '^Unicast lids' opensm-lfts.dump | sed 's/.*switch Lid \([0-9]*\) .*/\1/')
          ibroute "$sw" > "ibroute-lid$sw.txt"
          a=$(head -1 ca_lids.txt); b=$(tail -1 ca_lids.txt)
          ibtracert $((a)) $((b)) > ibtracert.txt
          dump_fts > dump_fts.txt ;;
        pathsl) query_path_sls ca_lids.txt "$PAIRS" > pathsl.txt ;;
      esac
    }
    case $e in minhop) POST_KIND=minhop ;; lash|dfsssp|nue|nue8) POST_KIND=pathsl ;; *) POST_KIND=none ;; esac
    export POST_KIND PAIRS=$pairs
    echo "make.sh: $t: opensm ${args[*]}" >&2
    run_opensm "$dir/topology.net" "$work" "$extra" "${args[@]}" || true
    if grep -q 'tables configured on all switches' "$work/osm.log" 2>/dev/null; then
      keep "$work/opensm-lfts.dump" "$dir/lfts.$e.dump"
    elif [ "$e" != ftree ] || [[ $t != rnd* ]]; then
      echo "make.sh: $t: OpenSM $e did not configure the fabric (log: $work/osm.log)" >&2; return 1
    fi
    if [ "$e" = dfsssp ]; then
      { echo "# slid dlid vl   (OpenSM DFSSSP, log line 'vltable_print: route from src_lid=S to dest_lid=D on vl=V', DEBUG)"
        sed -n '/Virtual Lanes per src\/dest combination after balancing/,$p' "$work/osm.log" |
          sed -n 's/.*route from src_lid=\([0-9]*\) to dest_lid=\([0-9]*\) on vl=\([0-9]*\)$/\1 \2 \3/p'; } > "$dir/dfsssp-vl-table.txt"
      grep -v ' 0x08 -> ' "$work/osm.log" > "$dir/osm.$e.log"
    else
      cp "$work/osm.log" "$dir/osm.$e.log"
    fi
    [ -s "$work/pathsl.txt" ] && cp "$work/pathsl.txt" "$dir/pathsl.$e.txt"
    [ "$e" = ftree ] && [ -f "$work/opensm-ftree-ca-order.dump" ] && cp "$work/opensm-ftree-ca-order.dump" "$dir/ftree-ca-order.dump"
    [ "$e" = updn ] && [ -f "$work/opensm-updn-roots.dump" ] && cp "$work/opensm-updn-roots.dump" "$dir/updn-roots.dump"
    if [ "$e" = minhop ]; then
      cp "$work/ibnetdiscover.txt" "$work/ibnetdiscover-p.txt" "$work/guid2lid" "$dir/"
      if [ "$t" = k4n2 ]; then
        mkdir -p "$dir/extra"
        cp "$work"/ibroute-lid*.txt "$work/ibtracert.txt" "$work/dump_fts.txt" "$work/ibswitches.txt" "$work/ibhosts.txt" "$dir/extra/"
      fi
    fi
    if [ "$e" = lash ] && [ "$t" = k4n2 ]; then
      mkdir -p "$dir/extra"
      for f in opensm-subnet.lst opensm.fdbs opensm-lid-matrix.dump opensm-sl2vl.dump; do cp "$work/$f" "$dir/extra/"; done
    fi
  done
}

for t in $topologies; do generate_topology "$t"; done
[ "$mode" = generate ] && { echo "make.sh: wrote $(find "$target" -type f | wc -l) files under $target" >&2; exit 0; }

# ---- check: compare the regenerated files with the committed ones -----------------------
# Normalised away (README.md, "Reproducibility"): OpenSM log time stamps, thread ids and heap
# addresses; ibnetdiscover's "generated on" line; DFSSSP's SA answers, which draw an SL at
# random inside the pair's VL group (base VL + rand() % group size, osm_ucast_dfsssp.c), are
# compared by group: each SL is mapped to the first VL of its group, the groups being the
# distinct base VLs of dfsssp-vl-table.txt. With --pairs N only the first N pairs of each
# pathsl file are compared.
normalise() {  # file -> text on stdout
  local f=$1 name; name=$(basename "${f%.gz}")
  case $name in
    osm.*.log) zcat -f "$f" | sed -E 's/^[A-Z][a-z]{2} +[0-9]+ [0-9:]{8} [0-9]{6} \[[0-9A-F]+\] //; s/\b0x[0-9a-f]{11,12}\b/<address>/g' | LC_ALL=C sort ;;
    ibnetdiscover.txt) zcat -f "$f" | sed 's/^# Topology file: generated on .*/# Topology file: generated on <date>/' ;;
    pathsl.dfsssp.txt)
      zcat -f "$f" | { if [ "$pairs" -gt 0 ]; then head -n $((pairs + 1)); else cat; fi; } |
        awk -v table="$(dirname "$f")/dfsssp-vl-table.txt" '
          BEGIN { while ((getline line < table) > 0) if (line !~ /^#/) { split(line, v, " "); base[v[3] + 0] = 1 } }
          /^#/ { print; next }
          { group = -1; for (b in base) if (b + 0 <= $3 + 0 && b + 0 > group) group = b + 0; print $1, $2, "group-of-vl", group }' ;;
    pathsl.*.txt) zcat -f "$f" | { if [ "$pairs" -gt 0 ]; then head -n $((pairs + 1)); else cat; fi; } ;;
    *) zcat -f "$f" ;;
  esac
}
differences=0 compared=0
while IFS= read -r -d '' new; do
  rel=${new#"$target"/}
  old=$here/$rel
  if [ ! -f "$old" ]; then echo "make.sh: $rel is produced but not committed" >&2; differences=$((differences + 1)); continue; fi
  compared=$((compared + 1))
  if ! cmp -s <(normalise "$new") <(normalise "$old"); then
    echo "make.sh: $rel differs from the committed file:" >&2
    diff <(normalise "$old") <(normalise "$new") | head -10 >&2 || true
    differences=$((differences + 1))
  fi
done < <(find "$target" -type f -print0 | sort -z)
for t in $topologies; do
  while IFS= read -r -d '' old; do
    rel=${old#"$here"/}
    case $rel in */make.sh|README.md) continue ;; esac
    [ -f "$target/$rel" ] || { [ -n "$engines_override" ] || { echo "make.sh: $rel is committed but no longer produced" >&2; differences=$((differences + 1)); }; }
  done < <(find "$here/$t" -type f -print0)
done
if [ $differences -gt 0 ]; then echo "make.sh: $differences difference(s) in $compared compared files" >&2; exit 1; fi
echo "make.sh: $compared files identical to the committed ones (topologies: $topologies; pairs: ${pairs/#0/all})"
