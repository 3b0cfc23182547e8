#!/usr/bin/env bash
# Build the libFuzzer targets (clang, ASan+UBSan+libFuzzer) in build-fuzz/ and run each on
# its seed corpus fuzz/corpus/<target>/ for a bounded time. Fails on any finding: crash,
# uncaught non-routelab exception, sanitizer report, leak, timeout (hang) or out-of-memory.
#
#   scripts/fuzz.sh [seconds-per-target]        (default 20; ROUTELAB_FUZZ_SECONDS overrides)
#   ROUTELAB_FUZZ_TARGETS="lft_dump sl_table"   run only these targets
#
# Findings are written to build-fuzz/findings/<target>/ (crash-*, leak-*, timeout-*, oom-*);
# reproduce one with `build-fuzz/fuzz/fuzz_<target> FILE`; after the fix, commit the input as
# fuzz/regressions/<target>/<name> (tests/io/test_fuzz_regressions.cpp runs every one). New inputs the fuzzer finds go to a scratch corpus in build-fuzz/,
# never into the committed seeds.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-${ROUTELAB_FUZZ_SECONDS:-20}}
jobs=${ROUTELAB_JOBS:-$(nproc)}
dir=build-fuzz

if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found (Debian packages clang, libclang-rt-dev; scripts/apt-packages.txt)" >&2
  exit 1
fi
mkdir -p "$dir"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DROUTELAB_FUZZ=ON -DROUTELAB_TESTS=OFF -DROUTELAB_BENCHMARKS=OFF >"$dir.configure.log" 2>&1 \
  || { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j "$jobs" --target routelab_fuzzers

targets=${ROUTELAB_FUZZ_TARGETS:-$(ls fuzz/corpus)}
status=0
for target in $targets; do
  binary="$dir/fuzz/fuzz_$target"
  [ -x "$binary" ] || { echo "fuzz: no target '$target' ($binary)" >&2; status=1; continue; }
  scratch="$dir/scratch/$target"
  findings="$dir/findings/$target"
  rm -rf "$scratch" "$findings"
  mkdir -p "$scratch" "$findings"
  regressions=""  # past findings (fuzz/regressions/<target>/) seed the run too
  [ -d "fuzz/regressions/$target" ] && regressions="fuzz/regressions/$target"
  echo "== fuzz_$target: ${seconds}s on fuzz/corpus/$target $regressions =="
  # -timeout: one input taking longer is a hang; -rss_limit_mb/-malloc_limit_mb: a parser
  # allocating more than that for a small input is a bug (the library checks sizes first).
  if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$findings/" "$scratch" "fuzz/corpus/$target" $regressions \
        >"$findings.log" 2>&1; then
    status=1
    echo "fuzz: fuzz_$target FOUND A PROBLEM (log $findings.log, inputs $findings/):" >&2
    grep -E "ERROR|SUMMARY|Test unit written|deadly|timeout|out-of-memory" "$findings.log" | head -20 >&2 || true
  else
    grep -E "^stat::number_of_executed_units|^cov:|#[0-9]+.*DONE" "$findings.log" | tail -2 || true
  fi
done
if [ $status -eq 0 ]; then echo "fuzz: no findings (${seconds}s per target)"; else echo "fuzz: FINDINGS" >&2; fi
exit $status
