#!/usr/bin/env bash
# The routing `routelab compare` recommends, deployed with the commands of its deployment
# profile, is the routing the real OpenSM then holds (docs/COMPARE.md "Deployment model").
#
#   tests/interop/deploy_recommended.sh ROUTELAB SPEC [compare options...]
#
# 1. `routelab compare SPEC --format json` (no simulation: the static decision is enough here)
#    names the recommended routing and its deploy commands.
# 2. The commands are the ones this test runs: `routelab route ... --switch-addresses
#    --export lft routing.lfts [--export sl routing.sl]` and `opensm -R file -U routing.lfts
#    [--lmc L]`; tests/interop/opensm_roundtrip.sh runs them on ibsim for the recommended
#    engine spec and LMC, reads every switch back and verifies the tables OpenSM holds.
# Exit 0 equal, 1 a difference or a failed step, 2 usage, 77 tools missing (2 with
# ROUTELAB_REQUIRE_INTEROP_TOOLS=1).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,4p' "$0" >&2; exit 2; }
routelab=$1 spec=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/opensm_lib.sh"
osm_require_tools ibsim ibsim-run opensm ibnetdiscover ibroute ibtracert
work=$(mktemp -d "${TMPDIR:-/tmp}/routelab-deploy.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$routelab" compare "$spec" --quiet --no-simulate --format json --output "$work/report" "$@" > "$work/compare.json"
# engine spec, LMC and the deploy commands of the recommended routing
python3 - "$work/compare.json" > "$work/recommended" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
name = d["verdict"]["recommended"]
if not name:
    sys.exit("compare recommends nothing")
e = next(x for x in d["engines"] if x["name"] == name)
if e["origin"] != "routelab":
    sys.exit("the recommended routing is OpenSM's own: " + name)
print(e["effective"])
print(e["deployment"]["lmc"])
for line in e["deployment"]["deploy"]:
    print(line)
PY
engine=$(sed -n 1p "$work/recommended")
lmc=$(sed -n 2p "$work/recommended")
# The round trip lets OpenSM assign the LIDs: it covers routings of one LID block per CA.
[ "$lmc" = 0 ] || { echo "deploy_recommended: $spec: $engine needs LMC $lmc, which this round trip does not cover" >&2; exit 1; }
grep -q "^routelab route .* --engine '$engine' --switch-addresses --export lft routing.lfts" "$work/recommended" \
  || { echo "deploy_recommended: no route command for $engine in: $(cat "$work/recommended")" >&2; exit 1; }
expected="opensm -R file -U routing.lfts"
grep -q "^$expected\( -Q\)\?$" "$work/recommended" \
  || { echo "deploy_recommended: expected '$expected' in: $(cat "$work/recommended")" >&2; exit 1; }
echo "deploy_recommended: $spec: compare recommends $engine (LMC $lmc)"
exec "$here/opensm_roundtrip.sh" "$routelab" "$spec" "$engine"
