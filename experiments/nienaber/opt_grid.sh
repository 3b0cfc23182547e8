#!/usr/bin/env bash
# OPT on a grid (engine `opt-grid`, docs/ROUTING.md) against D-mod-k on every T(n+m, r) of
# Nienaber et al. 2011, Tables I-II: WORST (exact) and ABB, AFPB, ADB (same seed, so both
# routings are measured on the same sampled patterns). Writes experiments/nienaber/OPT_GRID.md.
# Usage: experiments/nienaber/opt_grid.sh [ROUTELAB_BINARY]
# Environment: SEED (default 2011), PRECISION (default 0.01), THREADS (default 0 = all).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
routelab_binary "${1:-}"
analysis_settings 2011
write_atomically "$here/OPT_GRID.md"
cell() { jq -r '"\(.mean * 1000 | round / 1000) ± \(.ci99_halfwidth * 1000 | round / 1000)"' <<< "$1"; }
ge() { jq -rn --argjson a "$(jq .mean <<< "$1")" --argjson b "$(jq .mean <<< "$2")" 'if $a >= $b then "yes" else "NO" end'; }

# n m r, Table I's OPT WORST, then Table II's published enhanced-OPT ABB AFPB ADB ("-" = withheld).
# Table II's r is used (T(12+16, 28); Table I prints r = 24, WORST does not depend on r).
rows="9 9 18 3 0.380 0.333 0.334
16 16 32 4 - - -
25 25 50 5 - - -
12 12 24 4 0.333 0.265 0.266
24 24 48 6 - - -
12 4 16 6 - - -
24 9 33 8 - - -
24 16 40 6 - - -
16 8 24 8 - - -
24 8 32 12 - - -
8 16 24 2 0.500 0.500 0.500
12 16 28 3 - - -
10 25 35 2 - - -
8 24 32 2 - - -
16 32 48 4 - - -"

{
echo "# OPT on a grid vs D-mod-k on Nienaber's Tables I–II"
echo
echo "Regenerate: \`experiments/nienaber/opt_grid.sh\` (seed $seed, precision $precision). \`opt-grid\` = OPT on an"
echo "a × b grid of source × destination groups (docs/ROUTING.md); D-mod-k = \`dmodk\`. Both are single-path, so"
echo "every load model gives these numbers. Same seed: both routings see the same sampled patterns."
echo "\"paper\" = Table I's OPT WORST and Table II's published enhanced-OPT values (withheld ones are not shown)."
echo
echo "| type | topology | a × b (tops/m) | WORST paper OPT | WORST opt-grid | WORST D-m-k | ABB paper | ABB opt-grid | ABB D-m-k | AFPB paper | AFPB opt-grid | AFPB D-m-k | ADB paper | ADB opt-grid | ADB D-m-k | ≥ D-m-k (ABB/AFPB/ADB), WORST ≤ paper OPT |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$tmp"
ok=0
while read -r n m r wopt pa pf pd; do
  spec="gft2:n=$n,m=$m,r=$r"
  stats=$("$bin" route "$spec" --engine opt-grid --no-checks --format json | jq -r '.stats')
  shape="$(jq -r '.source_groups' <<< "$stats") × $(jq -r '.destination_groups' <<< "$stats") ($(jq -r '.tops_used' <<< "$stats")/$m)"
  wg=$(analyze "$spec" opt-grid worst | jq -r .value)
  wd=$(analyze "$spec" dmodk worst | jq -r .value)
  ga=$(analyze "$spec" opt-grid abb); da=$(analyze "$spec" dmodk abb)
  gf=$(analyze "$spec" opt-grid afpb); df=$(analyze "$spec" dmodk afpb)
  gd=$(analyze "$spec" opt-grid adb); dd=$(analyze "$spec" dmodk adb)
  w="NO"; [ "$wg" -le "$wopt" ] && w="yes"
  verdict="$(ge "$ga" "$da")/$(ge "$gf" "$df")/$(ge "$gd" "$dd"), $w"
  [ "$verdict" = "yes/yes/yes, yes" ] && ok=$((ok + 1))
  p() { [ "$1" = "-" ] && echo "" || echo "$1"; }
  echo "| $(fat_tree_kind "$n" "$m") | T($n+$m, $r) | $shape | $wopt | $wg | $wd | $(p "$pa") | $(cell "$ga") | $(cell "$da") | $(p "$pf") | $(cell "$gf") | $(cell "$df") | $(p "$pd") | $(cell "$gd") | $(cell "$dd") | $verdict |" >> "$tmp"
done <<< "$rows"
{
echo
echo "**$ok of 15 rows: ABB, AFPB and ADB at least D-mod-k's and WORST at most Table I's OPT.**"
} >> "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
