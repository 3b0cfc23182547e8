#!/usr/bin/env bash
# Scaling curve of every stage (issue 13, item 2): generate, route, verify, WORST, ABB and
# schedule over k-ary n-trees, slimmed XGFTs and random irregular fabrics of 256 to 65,536
# terminals. Every run is one `routelab` process under `/usr/bin/time` (user + sys CPU, wall,
# maximum resident set size), single-threaded (OMP_NUM_THREADS=1, analyze --threads 1), under
# `timeout`. A timeout, a refused run or a stage skipped for memory is a row, not a failure.
#
# Usage: experiments/scaling/run.sh [ROUTELAB_BINARY [OUTPUT_CSV]]
#   ROUTELAB_BINARY  default build/bin/routelab
#   OUTPUT_CSV       default experiments/scaling/results/scaling.csv. Beside it (same name,
#                    other endings): .meta.txt (machine, load, settings), .fit.md (fit.py's
#                    table), .dat (plot data), _cpu.png/.svg and _memory.png/.svg (plot.gp).
# Environment:
#   MAX_TERMINALS=65536          run only fabrics with at most this many terminals
#   TIMEOUT=900                  seconds per run (timeout(1); the row says "timeout")
#   MEM_LIMIT_MIB=<60% of RAM>   skip a stage whose estimated peak memory exceeds this
#                                (estimates below; the row says "skipped" and why)
#   ABB_SAMPLES=4000             bisect samples per ABB run (fixed: 1000 x 2^j, --precision 1e-9
#                                so that sampling never converges early)
#   SCHEDULE_PERMUTATIONS=10000  random permutations per schedule run
#   FAMILIES="kary-ntree xgft random"   STAGES="generate route verify worst abb schedule"
#   LIST=1                       print the fabric list (family terminals spec ...) and exit
#
# Stages and their inherent work (column `work`, unit in `work_unit`):
#   generate  routelab topo SPEC --format json                    channels
#   route     routelab route SPEC --engine E --no-checks          table entries = switches x addresses
#   verify    routelab verify SPEC --engine E                     channels x destinations
#   worst     routelab analyze SPEC --engine E --metric worst     terminal pairs N(N-1)
#   abb       routelab analyze SPEC --engine E --metric abb       samples x terminals
#   schedule  routelab schedule FT --permutations P               circuits requested ~ P x terminals
# E = dmodk on the fat trees, updown on the random fabrics. schedule runs on Ding's FT(l, m, w)
# (the k-ary n-tree is FT(n, k, k), the same XGFT) and on the XGFTs as they are; it needs an
# XGFT, so the random fabrics get an "n/a" row. verify and analyze build the routing too, and
# topo prints the summary (the random fabrics' terminal diameter is a BFS from every switch).
#
# Memory estimates (bytes; fitted to the peak RSS at <= 4096 terminals, RelWithDebInfo,
# 2026-11-23): ABB builds PairPaths (src/analysis/paths.h: 4 bytes per channel of every pair's
# path), about 5 bytes per pair and hop: abb = 5 N^2 D (D = terminal diameter, an upper bound
# of the hops); WORST stores no pair paths (per-channel counts and the pairs of the channels it
# solves: worst.h), so like route and verify 1.5 bytes per table entry + 64 MiB. Raise
# MEM_LIMIT_MIB to run a skipped stage anyway.
#
# The simulator is a stage here once it lands: add it to `stages` and to run_fabric.
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../common.sh
. "$here/../common.sh"

usage() {
  sed -n '2,/^$/p' "$0" | sed -n 's/^# \{0,1\}//p'
}
case "${1:-}" in
  -h | --help) usage; exit 0 ;;
  -*) usage >&2; exit 2 ;;
esac
[ $# -le 2 ] || { usage >&2; exit 2; }

# Fabrics: family, terminals, spec, routing engine, schedule spec ("-": none).
# k-ary n-trees as Gómez §2 (2048 and 8192 terminals have no k-ary n-tree with a switch of at most
# 254 ports but the 2-ary ones, whose 11- and 13-level paths would dominate the curve); slimmed
# XGFTs XGFT(3; 16, a, b; 1, 8, a/2) (2:1 at the leaves and at level 2: doubling steps);
# random irregular fabrics as Lysne §8 (links = 2 x switches, radix 16) with 4 terminals per switch.
fabrics() {
  cat << 'EOF'
kary-ntree 256 kary-ntree:k=4,n=4 dmodk ft:l=4,m=4,w=4
kary-ntree 512 kary-ntree:k=8,n=3 dmodk ft:l=3,m=8,w=8
kary-ntree 1024 kary-ntree:k=4,n=5 dmodk ft:l=5,m=4,w=4
kary-ntree 4096 kary-ntree:k=16,n=3 dmodk ft:l=3,m=16,w=16
kary-ntree 4096 kary-ntree:k=8,n=4 dmodk ft:l=4,m=8,w=8
kary-ntree 4096 kary-ntree:k=4,n=6 dmodk ft:l=6,m=4,w=4
kary-ntree 16384 kary-ntree:k=4,n=7 dmodk ft:l=7,m=4,w=4
kary-ntree 32768 kary-ntree:k=32,n=3 dmodk ft:l=3,m=32,w=32
kary-ntree 32768 kary-ntree:k=8,n=5 dmodk ft:l=5,m=8,w=8
kary-ntree 65536 kary-ntree:k=16,n=4 dmodk ft:l=4,m=16,w=16
xgft 256 xgft:h=3,m=16.4.4,w=1.8.2 dmodk xgft:h=3,m=16.4.4,w=1.8.2
xgft 512 xgft:h=3,m=16.8.4,w=1.8.4 dmodk xgft:h=3,m=16.8.4,w=1.8.4
xgft 1024 xgft:h=3,m=16.8.8,w=1.8.4 dmodk xgft:h=3,m=16.8.8,w=1.8.4
xgft 2048 xgft:h=3,m=16.16.8,w=1.8.8 dmodk xgft:h=3,m=16.16.8,w=1.8.8
xgft 4096 xgft:h=3,m=16.16.16,w=1.8.8 dmodk xgft:h=3,m=16.16.16,w=1.8.8
xgft 8192 xgft:h=3,m=16.32.16,w=1.8.16 dmodk xgft:h=3,m=16.32.16,w=1.8.16
xgft 16384 xgft:h=3,m=16.32.32,w=1.8.16 dmodk xgft:h=3,m=16.32.32,w=1.8.16
xgft 32768 xgft:h=3,m=16.64.32,w=1.8.32 dmodk xgft:h=3,m=16.64.32,w=1.8.32
xgft 65536 xgft:h=3,m=16.64.64,w=1.8.32 dmodk xgft:h=3,m=16.64.64,w=1.8.32
random 256 random:switches=64,terminals=4,seed=1 updown -
random 512 random:switches=128,terminals=4,seed=1 updown -
random 1024 random:switches=256,terminals=4,seed=1 updown -
random 2048 random:switches=512,terminals=4,seed=1 updown -
random 4096 random:switches=1024,terminals=4,seed=1 updown -
random 8192 random:switches=2048,terminals=4,seed=1 updown -
random 16384 random:switches=4096,terminals=4,seed=1 updown -
random 32768 random:switches=8192,terminals=4,seed=1 updown -
random 65536 random:switches=16384,terminals=4,seed=1 updown -
EOF
}
if [ "${LIST:-0}" = 1 ]; then fabrics; exit 0; fi

routelab_binary "${1:-}"
out_arg="${2:-$here/results/scaling.csv}"
[[ "$out_arg" == *.csv ]] || { echo "OUTPUT_CSV must end in .csv, got $out_arg" >&2; exit 2; }
mkdir -p "$(dirname "$out_arg")"
write_atomically "$out_arg"
meta="${out%.csv}.meta.txt"

natural() { [[ "$2" =~ ^[0-9]+$ ]] || { echo "$1 must be a non-negative integer, got '$2'" >&2; usage >&2; exit 2; }; }
max_terminals="${MAX_TERMINALS:-65536}"; natural MAX_TERMINALS "$max_terminals"
timeout_s="${TIMEOUT:-900}"; natural TIMEOUT "$timeout_s"
[ "$timeout_s" -ge 1 ] || { echo "TIMEOUT must be at least 1 s" >&2; exit 2; }
abb_samples="${ABB_SAMPLES:-4000}"; natural ABB_SAMPLES "$abb_samples"
permutations="${SCHEDULE_PERMUTATIONS:-10000}"; natural SCHEDULE_PERMUTATIONS "$permutations"
mem_limit_mib="${MEM_LIMIT_MIB:-$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.6 }' /proc/meminfo)}"
natural MEM_LIMIT_MIB "$mem_limit_mib"
families="${FAMILIES:-kary-ntree xgft random}"
stages="${STAGES:-generate route verify worst abb schedule}"
# one_of NAME VALUE ALLOWED...: every word of VALUE must be one of ALLOWED.
one_of() {
  local name="$1" value="$2" word
  shift 2
  [ -n "${value// /}" ] || { echo "$name is empty (allowed: $*)" >&2; exit 2; }
  for word in $value; do
    [[ " $* " == *" $word "* ]] || { echo "$name: unknown '$word' (allowed: $*)" >&2; exit 2; }
  done
}
one_of FAMILIES "$families" kary-ntree xgft random
one_of STAGES "$stages" generate route verify worst abb schedule
s=1000
while [ "$s" -lt "$abb_samples" ]; do s=$((s * 2)); done
[ "$s" -eq "$abb_samples" ] || { echo "ABB_SAMPLES must be 1000 x 2^j (the sampler doubles from 1000), got $abb_samples" >&2; exit 2; }
for tool in /usr/bin/time timeout jq; do
  command -v "$tool" > /dev/null || { echo "$tool not found" >&2; exit 1; }
done

work_dir=$(mktemp -d "${TMPDIR:-/tmp}/routelab-scaling.XXXXXX")
trap 'rm -f "$tmp"; rm -rf "$work_dir"' EXIT
export OMP_NUM_THREADS=1

# One CSV field: quoted when it holds a comma, a quote or a space, quotes doubled.
csv() {
  local v="$1"
  if [[ "$v" == *[,\"\ ]* ]]; then v="\"${v//\"/\"\"}\""; fi
  printf '%s' "$v"
}
row() { # fields...
  local sep="" f
  for f in "$@"; do printf '%s' "$sep"; csv "$f"; sep=","; done
  printf '\n'
}
columns=(family spec terminals switches channels stage command cpu_s wall_s peak_rss_mib work work_unit
  status exit_code est_mib note)
row "${columns[@]}" > "$tmp"

# Fabric of the current run (set by run_fabric): family spec terminals switches channels diameter.
family="" spec="" terminals="" switches="" channels="" diameter=""
runs=0

# timed COMMAND...: runs it under /usr/bin/time and timeout, its stdout in $work_dir/stdout;
# sets m_text m_cpu m_wall m_rss m_rc m_status m_note. Returns 0 when the command succeeded.
timed() {
  local tf="$work_dir/time" user="" sys="" wall="" rss=""
  m_text="routelab ${*:2}" m_rc=0 m_note=""
  runs=$((runs + 1))
  : > "$tf"
  /usr/bin/time -o "$tf" -f '%U %S %e %M' timeout --kill-after=10 "$timeout_s" "$@" > "$work_dir/stdout" \
    2> "$work_dir/stderr" || m_rc=$?
  # GNU time writes "Command exited with non-zero status N" (or "terminated by signal") first.
  read -r user sys wall rss < <(tail -n 1 "$tf") || true
  m_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  m_wall="$wall"
  m_rss=$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')
  case "$m_rc" in
    0) m_status=ok ;;
    124 | 137) m_status=timeout; m_note="killed after TIMEOUT=$timeout_s s" ;;
    *) m_status=error; m_note="$(grep -v '^$' "$work_dir/stderr" | head -n 1 | cut -c 1-200 || true)" ;;
  esac
  [ "$m_rc" -eq 0 ]
}

# emit STAGE WORK WORK_UNIT EST_MIB: the row of the last timed run.
emit() {
  row "$family" "$spec" "$terminals" "$switches" "$channels" "$1" "$m_text" "$m_cpu" "$m_wall" "$m_rss" "$2" "$3" \
    "$m_status" "$m_rc" "$4" "$m_note" >> "$tmp"
  echo "  $1: $m_status, $m_cpu s CPU, $m_wall s wall, $m_rss MiB${m_note:+ ($m_note)}" >&2
}

# measure STAGE WORK WORK_UNIT EST_MIB COMMAND...: one timed run and its row, or a "skipped"
# row when the estimated peak memory is above MEM_LIMIT_MIB.
measure() {
  local stage="$1" work="$2" unit="$3" est="$4"
  shift 4
  if [ "$est" -gt "$mem_limit_mib" ]; then
    row "$family" "$spec" "$terminals" "$switches" "$channels" "$stage" "routelab ${*:2}" "" "" "" "$work" "$unit" \
      skipped "" "$est" "estimated peak memory $est MiB > MEM_LIMIT_MIB=$mem_limit_mib" >> "$tmp"
    echo "  $stage: skipped (estimated $est MiB > $mem_limit_mib MiB)" >&2
    return 0
  fi
  timed "$@" || true
  emit "$stage" "$work" "$unit" "$est"
}

# not_run STAGE WORK UNIT STATUS NOTE: a row for a stage that does not apply or cannot run.
not_run() {
  row "$family" "$spec" "$terminals" "$switches" "$channels" "$1" "" "" "" "" "$2" "$3" "$4" "" "" "$5" >> "$tmp"
  echo "  $1: $4 ($5)" >&2
}

wanted() { [[ " $stages " == *" $1 "* ]]; }

run_fabric() { # ENGINE SCHEDULE_SPEC
  local engine="$1" ft="$2" n="$terminals" mib
  # generate: always run (it gives the fabric's size); its row only when asked for.
  if ! timed "$bin" topo "$spec" --format json; then
    emit generate "" channels 0
    for stage in route verify worst abb schedule; do
      wanted "$stage" && not_run "$stage" "" "" skipped "generate failed"
    done
    return 0
  fi
  switches=$(jq -r .switches "$work_dir/stdout")
  channels=$(jq -r .channels "$work_dir/stdout")
  diameter=$(jq -r .diameter "$work_dir/stdout")
  [ "$(jq -r .terminals "$work_dir/stdout")" = "$n" ] ||
    { echo "$spec: $(jq -r .terminals "$work_dir/stdout") terminals, the list says $n" >&2; exit 1; }
  if wanted generate; then emit generate "$channels" channels 0; fi
  local entries=$((switches * n)) pairs=$((n * (n - 1)))
  if wanted route; then
    mib=$((entries * 3 / 2 / 1048576 + 64))
    measure route "$entries" "table entries (switches x addresses)" "$mib" \
      "$bin" route "$spec" --engine "$engine" --no-checks --format json
  fi
  if wanted verify; then
    mib=$((entries * 3 / 2 / 1048576 + 64))
    measure verify "$((channels * n))" "channels x destinations" "$mib" \
      "$bin" verify "$spec" --engine "$engine" --format json
  fi
  if wanted worst; then
    mib=$((entries * 3 / 2 / 1048576 + 64))
    measure worst "$pairs" "terminal pairs N(N-1)" "$mib" \
      "$bin" analyze "$spec" --engine "$engine" --metric worst --threads 1 --format json
  fi
  if wanted abb; then
    mib=$((5 * n * n * diameter / 1048576 + 64))
    measure abb "$((abb_samples * n))" "samples x terminals" "$mib" \
      "$bin" analyze "$spec" --engine "$engine" --metric abb --threads 1 --seed 1 --precision 1e-9 \
      --max-samples "$abb_samples" --format json
  fi
  if wanted schedule; then
    if [ "$ft" = - ]; then
      not_run schedule "" "circuits (permutations x terminals)" n/a "schedule needs an XGFT (fat-tree) fabric"
    else
      measure schedule "$((permutations * n))" "circuits (permutations x terminals)" 64 \
        "$bin" schedule "$ft" --permutations "$permutations" --seed 1 --format json
    fi
  fi
}

{
  echo "started  $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "binary   $bin ($("$bin" --version))"
  echo "commit   $(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo unknown)"
  echo "host     $(uname -srm), $(getconf _NPROCESSORS_ONLN) cores, $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "load     $(cut -d ' ' -f 1-3 /proc/loadavg) (1, 5, 15 min) at start"
  echo "settings MAX_TERMINALS=$max_terminals TIMEOUT=$timeout_s MEM_LIMIT_MIB=$mem_limit_mib ABB_SAMPLES=$abb_samples"
  echo "         SCHEDULE_PERMUTATIONS=$permutations OMP_NUM_THREADS=1"
  echo "         FAMILIES=\"$families\" STAGES=\"$stages\""
} > "$work_dir/meta"
start=$SECONDS
while read -r family n spec engine ft; do
  [[ " $families " == *" $family "* ]] || continue
  if [ "$n" -gt "$max_terminals" ]; then
    echo "$family $spec ($n terminals): above MAX_TERMINALS=$max_terminals, not run" >&2
    continue
  fi
  echo "$family $spec ($n terminals)" >&2
  terminals="$n" switches="" channels="" diameter=""
  run_fabric "$engine" "$ft"
done < <(fabrics)
{
  echo "finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $((SECONDS - start)) s wall for $runs runs"
  echo "load     $(cut -d ' ' -f 1-3 /proc/loadavg) (1, 5, 15 min) at the end"
} >> "$work_dir/meta"
mv "$tmp" "$out"
cp "$work_dir/meta" "$meta"
trap 'rm -rf "$work_dir"' EXIT
stem="${out%.csv}"
python3 "$here/fit.py" "$out" --plot-data "$stem.dat" > "$stem.fit.md"
plots=", ${stem}_{cpu,memory}.{png,svg}"
if ! command -v gnuplot > /dev/null; then
  plots=""
  echo "gnuplot not found: no plots (apt-get install gnuplot-nox)" >&2
elif ! gnuplot -e "stem='$stem'" "$here/plot.gp" 2> >(grep -v 'Skipping data file with no valid points' >&2); then
  # e.g. every point below the plot's 10 ms floor: the CSV and the fit stand, no half plot.
  rm -f "${stem}_cpu.png" "${stem}_cpu.svg" "${stem}_memory.png" "${stem}_memory.svg"
  plots=""
  echo "no plots: gnuplot found nothing to draw (too few points above 10 ms?); $out and $stem.fit.md are complete" >&2
fi
echo "wrote $out ($runs runs, $((SECONDS - start)) s), $meta, $stem.fit.md, $stem.dat$plots" >&2
