#!/usr/bin/env bash
# scripts/setup.sh refuses a run the disk cannot hold before it builds anything, naming the
# space it needs and what is free, and lets a run that fits go on. setup.sh runs from a copy
# (scripts/ alone, so nothing could be built even if the check let it through), with `df`
# replaced by one that reports the free space of each case; a run let through stops at CMake,
# which finds no CMakeLists.txt there.
set -euo pipefail
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo/scripts" "$work/bin"
cp "$source_dir/scripts/setup.sh" "$source_dir/scripts/apt-packages.txt" "$work/repo/scripts/"
failures=0

# case: mode, free KiB, extra environment; expected exit status and whether the refusal shows
check() {
  local name=$1 mode=$2 free_kib=$3 want_refused=$4; shift 4
  printf '#!/bin/sh\necho "Filesystem 1024-blocks Used Available Capacity Mounted on"\necho "/dev/x 999999999 1 %s 1%% /"\n' \
    "$free_kib" > "$work/bin/df"
  chmod +x "$work/bin/df"
  [ -n "${KEEP_DIRS:-}" ] || rm -rf "$work/repo/build"*
  local out status=0
  out=$(cd "$work/repo" && env PATH="$work/bin:$PATH" ROUTELAB_SKIP_INSTALL=1 "$@" scripts/setup.sh "$mode" 2>&1) || status=$?
  if [ "$want_refused" = yes ]; then
    if [ $status -ne 1 ] || ! grep -q "^setup: scripts/setup.sh $mode needs about [0-9]* MiB more disk for" <<<"$out" ||
       ! grep -q "$(( free_kib / 1024 )) MiB free there" <<<"$out" || grep -q CMakeLists.txt <<<"$out"; then
      echo "FAIL $name: expected a refusal before building (status $status): $out"; failures=$((failures + 1))
    fi
  elif grep -q "more disk" <<<"$out" || ! grep -q "does not appear to contain CMakeLists.txt" <<<"$out"; then
    echo "FAIL $name: expected the run to go on past the check (status $status): $out"; failures=$((failures + 1))
  fi
}

mib=1024
check "test, 1 GiB free" test $((1024 * mib)) yes
check "test, 1 KiB less than 12,650 MiB free" test $((12650 * mib - 1)) yes
check "test, 12,650 MiB free" test $((12650 * mib)) no
check "test without ASan and mutants, 4,750 MiB free" test $((4750 * mib)) no ROUTELAB_SKIP_ASAN=1 ROUTELAB_SKIP_MUTATION=1
check "test without ASan and mutants, 1 KiB less" test $((4750 * mib - 1)) yes ROUTELAB_SKIP_ASAN=1 ROUTELAB_SKIP_MUTATION=1
check "run, 1,400 MiB free" run $((1400 * mib)) no
check "run, 1 KiB less" run $((1400 * mib - 1)) yes
# What a directory already holds counts (`du` replaced too, as if each held 4 GiB): with every
# directory there, build-asan/ (4,400 MiB) misses 304.
printf '#!/bin/sh\nprintf "4194304\\t%%s\\n" "$2"\n' > "$work/bin/du"
chmod +x "$work/bin/du"
check_held() {
  mkdir -p "$work/repo/build" "$work/repo/build-asan" "$work/repo/build-tsan" "$work/repo/build-fuzz" \
    "$work/repo/build-mutation"
  KEEP_DIRS=1 check "$@"
}
check_held "test, everything built, 304 MiB free" test $((304 * mib)) no
check_held "test, everything built, 1 KiB less than 304 MiB free" test $((304 * mib - 1)) yes
[ $failures -eq 0 ] && echo "setup disk check: 9 cases pass"
exit $((failures > 0))
