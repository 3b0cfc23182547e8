#!/usr/bin/env bash
# Static congestion (WORST exact, ABB and AFPB sampled) of routelab's engines and of OpenSM
# 3.3.23's own LFTs (tests/data/opensm: lfts.<engine>.dump[.gz], loaded with the `file`
# engine) on the fixture fabrics. Writes experiments/opensm_fixtures/RESULTS.md.
# Usage: experiments/opensm_fixtures/run.sh [ROUTELAB_BINARY] [FIXTURES_DIR]
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
routelab_binary "${1:-}"
fixtures="${2:-$root/tests/data/opensm}"
seed="${SEED:-1}"
write_atomically "$here/RESULTS.md"
[ -d "$fixtures" ] || { echo "fixtures not found: $fixtures" >&2; exit 1; }

{
echo "# OpenSM fixtures — routelab engines vs OpenSM's own routing tables"
echo
echo "Regenerate: \`experiments/opensm_fixtures/run.sh\` (seed $seed). Fabrics are the fixtures'"
echo "\`topology.net\` files; rows \`OpenSM <engine>\` analyse the LFTs OpenSM 3.3.23 computed for that"
echo "fabric under ibsim (\`--engine file:lfts.<engine>.dump\`), the others routelab's engines."
echo "WORST is exact; ABB/AFPB are means of 1/ML over random bisect / full-permutation patterns"
echo "(± 99% half-width, 1% stopping rule). All routings here are single-path (deterministic)."
echo
} > "$tmp"

metrics() {  # SPEC ENGINE -> "| worst | abb | afpb |" or an error cell
  local spec=$1 engine=$2 w a f err
  if ! w=$("$bin" analyze "$spec" --engine "$engine" --metric worst --load-model first-path --format json 2>"$tmp.err"); then
    err=$(head -c 160 "$tmp.err" | tr '\n|' '  ')
    echo "| n/a | n/a | n/a | ${err#routelab: error: } |"
    return
  fi
  a=$("$bin" analyze "$spec" --engine "$engine" --metric abb --load-model first-path --seed "$seed" --format json)
  f=$("$bin" analyze "$spec" --engine "$engine" --metric afpb --load-model first-path --seed "$seed" --format json)
  echo "| $(jq -r .value <<< "$w") | $(jq -r '"\(.mean * 1000 | round / 1000) ± \(.ci99_halfwidth * 1000 | round / 1000)"' <<< "$a") | $(jq -r '"\(.mean * 1000 | round / 1000) ± \(.ci99_halfwidth * 1000 | round / 1000)"' <<< "$f") | $(jq -r '.channel.description' <<< "$w") |"
}

for fixture in k4n2 k2n4 k4n3 gft_4_4_8 rnd16_s1; do
  dir="$fixtures/$fixture"
  spec="file:$dir/topology.net"
  case $fixture in
    gft_4_4_8) ours="opt opt-balanced dmodk smodk ftree-deterministic minhop" ;;
    rnd16_s1) ours="minhop updown lash" ;;
    *) ours="ftree-deterministic ftree-adaptive dmodk smodk minhop" ;;
  esac
  {
    echo "## $fixture ($(grep -m1 -o '^# origin: .*' "$dir/topology.net" | sed 's/^# origin: //' || echo "$fixture"))"
    echo
    echo "| routing | WORST | ABB | AFPB | WORST channel / note |"
    echo "|---|---|---|---|---|"
  } >> "$tmp"
  for engine in $ours; do
    echo "| routelab $engine $(metrics "$spec" "$engine")" >> "$tmp"
  done
  for dump in ftree updn minhop dnup lash dfsssp nue nue8; do
    file="$dir/lfts.$dump.dump"
    [ -f "$file" ] || file="$file.gz"
    [ -f "$file" ] || continue
    echo "| OpenSM $dump $(metrics "$spec" "file:$file")" >> "$tmp"
  done
  echo >> "$tmp"
done
rm -f "$tmp.err"
{
echo "Notes. The adaptive \`ftree-adaptive\` row uses each pair's first candidate (the path"
echo "WORST and the sampled metrics need a single path; docs/ANALYSIS.md). On the 4-ary 3-tree"
echo "OpenSM's LASH sends all of a leaf's traffic up one port (tests/data/opensm/README.md),"
echo "which shows up as a larger WORST and a lower ABB than minhop/updn/ftree."
} >> "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
