# Shared by scripts/opensm_engines.sh and tests/interop/opensm_roundtrip.sh (sourced, bash):
# run ibsim and OpenSM on a fabric, each with a unique socket and work directory, stopped by
# PID on exit (also on failure or a signal). Pitfalls of opensm under ibsim:
# tests/data/opensm/README.md.
#
#   osm_require_tools TOOL...        exit 77 when one is missing (2 with ROUTELAB_REQUIRE_INTEROP_TOOLS=1)
#   osm_start_ibsim NET WORK         start ibsim on NET, wait for "Network simulator ready"
#   osm_run_opensm WORK TAG ARGS...  start opensm (cache, dumps and log osm.TAG.log in WORK);
#                                    returns 0 at SUBNET UP with opensm left running (osm_stop_opensm),
#                                    1 if it failed (log in WORK/osm.TAG.log)
#   osm_stop_opensm                  stop the running opensm
#   osm_cleanup                      stop everything started here (installed as the EXIT trap)

osm_pids=()
osm_opensm_pid=""
OSM_TIMEOUT=${OSM_TIMEOUT:-60}   # seconds for ibsim to start and for OpenSM to reach SUBNET UP

osm_require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" > /dev/null && continue
    echo "${0##*/}: '$tool' not found (install opensm ibsim-utils infiniband-diags)" >&2
    [ "${ROUTELAB_REQUIRE_INTEROP_TOOLS:-0}" = 1 ] && exit 2
    exit 77
  done
}

# Every process runs under `timeout -k 3`: a TERM (ours, or the time limit) reaches the tool,
# and a KILL follows 3 s later if it is still there (OpenSM under umad2sim can hang in its
# shutdown when ibsim went first). Stopped newest first: OpenSM before ibsim.
osm_cleanup() {
  local i
  for ((i = ${#osm_pids[@]} - 1; i >= 0; --i)); do
    kill "${osm_pids[$i]}" 2> /dev/null || true
    wait "${osm_pids[$i]}" 2> /dev/null || true
  done
  osm_pids=()
}

osm_wait_for() {  # file regex seconds pid
  local i
  for ((i = 0; i < $3 * 10; ++i)); do
    grep -qE "$2" "$1" 2> /dev/null && return 0
    kill -0 "$4" 2> /dev/null || { grep -qE "$2" "$1" 2> /dev/null; return; }
    sleep 0.1
  done
  return 1
}

osm_start_ibsim() {  # net work
  export IBSIM_SOCKNAME="routelab_ibsim_$$_${RANDOM}${RANDOM}"
  # A hard time limit, so that nothing outlives a killed test.
  timeout -k 3 300 ibsim -s -n "$1" > "$2/ibsim.out" 2>&1 &
  local pid=$!
  osm_pids+=("$pid")
  if ! osm_wait_for "$2/ibsim.out" 'Network simulator ready' "$OSM_TIMEOUT" "$pid"; then
    echo "${0##*/}: ibsim did not start on $1:" >&2
    tail -5 "$2/ibsim.out" >&2
    return 1
  fi
}

osm_run_opensm() {  # work tag opensm-args...
  local work=$1 tag=$2
  shift 2
  # (cwd = work: ibsim-run's umad2sim makes its fake sysfs, sys-<pid>/, in the current directory)
  (cd "$work" && OSM_CACHE_DIR=$work OSM_TMP_DIR=$work exec timeout -k 3 300 ibsim-run opensm -s 0 -e \
    -f "$work/osm.$tag.log" -D 0x43 -d2 --dump_files_dir "$work" "$@" > "$work/osm.$tag.stdout" 2>&1) &
  osm_opensm_pid=$!
  osm_pids+=("$osm_opensm_pid")
  osm_wait_for "$work/osm.$tag.log" 'SUBNET UP|ERRORS DURING INITIALIZATION|No routing engine able' \
    "$OSM_TIMEOUT" "$osm_opensm_pid" || true
  grep -q 'SUBNET UP' "$work/osm.$tag.log" 2> /dev/null
}

osm_stop_opensm() {
  [ -n "$osm_opensm_pid" ] || return 0
  kill "$osm_opensm_pid" 2> /dev/null || true
  wait "$osm_opensm_pid" 2> /dev/null || true
  local p kept=()
  for p in "${osm_pids[@]}"; do [ "$p" = "$osm_opensm_pid" ] || kept+=("$p"); done
  osm_pids=("${kept[@]}")
  osm_opensm_pid=""
}
