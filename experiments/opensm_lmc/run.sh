#!/usr/bin/env bash
# Does the real OpenSM load a routing that routelab merged by LMC (route --export lft/sl,
# docs/ROUTING.md "Layered routings as LFT + SL file")? On an ibsim fabric, OpenSM 3.3.23 runs
# its `file` engine (-R file -U DUMP) with LMC 1 and routelab's LIDs (a guid2lid cache made
# from the dump); its own dump of the switches' LFTs after SUBNET UP must hold routelab's
# ports for every CA LID, and routelab verify must pass on OpenSM's dump with routelab's SL
# file. Writes experiments/opensm_lmc/RESULTS.md.
#
# Usage: experiments/opensm_lmc/run.sh [ROUTELAB_BINARY [OUTPUT]]   (OUTPUT: default RESULTS.md here)
# Exit 0 when OpenSM holds every entry and the verdict from its tables is PASS, 1 otherwise
# (the CTest opensm.loads_lmc_merged_lft runs it), 77 without the tools (2 with
# ROUTELAB_REQUIRE_INTEROP_TOOLS=1).
# Environment: SPEC (default random:switches=32,seed=3), ENGINE (default lash:max-layers=2:
# the fabric needs 3 LASH layers, so the UpDown layer of Lysne §8.4 is in use).
# Needs opensm, ibsim-utils, infiniband-diags (scripts/apt-packages.txt); exit 77 without them.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
routelab_binary "${1:-}"
spec="${SPEC:-random:switches=32,seed=3}"
engine="${ENGINE:-lash:max-layers=2}"
for tool in ibsim ibsim-run opensm ibtracert; do
  command -v "$tool" > /dev/null && continue
  echo "$tool not found (install opensm ibsim-utils infiniband-diags)" >&2
  [ "${ROUTELAB_REQUIRE_INTEROP_TOOLS:-0}" = 1 ] && exit 2
  exit 77
done
write_atomically "${2:-$here/RESULTS.md}"
work=$(mktemp -d "${TMPDIR:-/tmp}/routelab-opensm-lmc.XXXXXX")
pids=()
cleanup() {
  # OpenSM first, waited for (it is under `timeout -k 3`: KILL 3 s after the TERM), then ibsim:
  # an OpenSM whose ibsim went first can hang in its shutdown and outlive the script.
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; --i)); do
    kill "${pids[$i]}" 2> /dev/null || true
    wait "${pids[$i]}" 2> /dev/null || true
  done
  [ -n "${KEEP:-}" ] && echo "work directory kept: $work" >&2 || rm -rf "$work"
  rm -f "$tmp"
}
trap cleanup EXIT

"$bin" topo "$spec" --export net "$work/topology.net" > /dev/null
"$bin" route "$spec" --engine "$engine" --export lft "$work/routelab.dump" --export sl "$work/routelab.sl" \
  > "$work/route.txt"
# OpenSM's LID cache: each CA port keeps the LIDs routelab gave it (base, base + 2^LMC - 1).
declare -A low high
while read -r lid _ _ _ _ _ guid _; do
  guid=${guid%:}
  lid=$((16#${lid#0x}))
  if [ -z "${low[$guid]:-}" ] || [ "$lid" -lt "${low[$guid]}" ]; then low[$guid]=$lid; fi
  if [ -z "${high[$guid]:-}" ] || [ "$lid" -gt "${high[$guid]}" ]; then high[$guid]=$lid; fi
done < <(grep 'Channel Adapter portguid' "$work/routelab.dump")
# OpenSM's persistent-database format: one record per paragraph (a blank line after each).
for guid in "${!low[@]}"; do printf '%s 0x%04x 0x%04x\n' "$guid" "${low[$guid]}" "${high[$guid]}"; done |
  sort > "$work/routelab.guid2lid"
sed 's/$/\n/' "$work/routelab.guid2lid" > "$work/guid2lid"

wait_for() {  # file regex seconds pid
  local i
  for ((i = 0; i < $3 * 10; ++i)); do
    grep -qE "$2" "$1" 2> /dev/null && return 0
    kill -0 "$4" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}
export IBSIM_SOCKNAME="routelab_ibsim_$$"
ibsim -s -n "$work/topology.net" > "$work/ibsim.out" 2>&1 &
pids+=($!)
wait_for "$work/ibsim.out" 'Network simulator ready' 60 "${pids[0]}" || { cat "$work/ibsim.out" >&2; exit 1; }
# (in $work: ibsim-run's umad2sim makes its fake sysfs, sys-<pid>/, in the current directory)
cd "$work"
OSM_CACHE_DIR=$work OSM_TMP_DIR=$work timeout -k 3 300 ibsim-run opensm -s 0 -e -f "$work/osm.log" -D 0x43 -d2 --dump_files_dir "$work" \
  -R file -U "$work/routelab.dump" --lmc 1 > "$work/osm.stdout" 2>&1 &
pids+=($!)
wait_for "$work/osm.log" 'SUBNET UP|ERRORS DURING INITIALIZATION' 300 "${pids[1]}" || { tail "$work/osm.log" >&2; exit 1; }
grep -q 'SUBNET UP' "$work/osm.log" || { tail "$work/osm.log" >&2; exit 1; }
sleep 1
first=$(( $(awk 'NR == 1 { print $2 }' "$work/routelab.guid2lid") ))
last=$(( $(awk 'END { print $3 }' "$work/routelab.guid2lid") ))
ibsim-run ibtracert "$first" "$last" > "$work/ibtracert.txt" 2>&1 || true

# Compare: every (switch, CA LID) entry of routelab's dump in OpenSM's dump of the switches.
awk '/^Unicast lids/ { sw = $9 } /Channel Adapter/ { print sw, $1, $2 }' "$work/routelab.dump" | sort > "$work/ours"
awk '/^Unicast lids/ { sw = $9 } /Channel Adapter/ { print sw, $1, $2 }' "$work/opensm-lfts.dump" | sort > "$work/theirs"
entries=$(wc -l < "$work/ours")
same=$(comm -12 "$work/ours" "$work/theirs" | wc -l)
verdict=0
"$bin" verify "$spec" --engine "file:$work/opensm-lfts.dump" --sl "$work/routelab.sl" > "$work/verify.txt" || verdict=$?
"$bin" verify "$spec" --engine "$engine" > "$work/verify-engine.txt" || true

{
  echo "# OpenSM loads a routing merged by LMC"
  echo
  echo "Regenerate: \`experiments/opensm_lmc/run.sh\` (OpenSM $(opensm --version 2> /dev/null | grep -o '[0-9.]*' | head -1 || echo '?'), ibsim, $(date -u +%Y-%m-%d))."
  echo "Fabric \`$spec\`, engine \`$engine\`: \`routelab route … --export lft --export sl\`, then OpenSM's"
  echo "\`file\` engine (\`opensm -R file -U routelab.dump --lmc 1\`, LIDs from a guid2lid cache made"
  echo "from the dump) on the ibsim fabric."
  echo
  echo '```'
  grep -E '^(engine|lmc tables)' "$work/route.txt"
  echo '```'
  echo
  echo "- OpenSM: $(grep -c 'SUBNET UP' "$work/osm.log") × SUBNET UP; its dump of the switches' LFTs holds"
  echo "  **$same of $entries** (switch, CA LID) entries of routelab's dump with routelab's port."
  echo "- \`routelab verify $spec --engine file:opensm-lfts.dump --sl routelab.sl\` (OpenSM's tables,"
  echo "  routelab's SLs):"
  echo
  echo '```'
  grep -E '^(traffic|connected|loop-free|deadlock-free|layers|verdict)' "$work/verify.txt"
  echo '```'
  echo
  echo "  and on the engine's routing itself:"
  echo
  echo '```'
  grep -E '^(layers|verdict)' "$work/verify-engine.txt"
  echo '```'
  echo
  echo "- \`ibtracert $first $last\` (first CA's first LID to the last CA LID, an UpDown-table LID):"
  echo
  echo '```'
  cat "$work/ibtracert.txt"
  echo '```'
} > "$tmp"
mv "$tmp" "$out"
echo "wrote $out ($same of $entries CA entries equal, verify exit $verdict)"
[ "$same" = "$entries" ] && [ "$entries" -gt 0 ] && [ "$verdict" = 0 ]
