#!/usr/bin/env bash
# The main job on the built-in example: a 4-ary 3-tree, what it is and how it routes.
# Grows with the project (see README "Main job").
set -euo pipefail
routelab=${1:-build/bin/routelab}
fabric=kary-ntree:k=4,n=3
echo "\$ routelab topo $fabric"
"$routelab" topo "$fabric"
