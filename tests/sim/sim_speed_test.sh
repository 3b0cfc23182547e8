#!/usr/bin/env bash
# scripts/sim_speed.sh: one CSV row per run with the simulated cycles and the time, usage
# errors exit 2, a BookSim that prints no cycle count exits 1.
# usage: sim_speed_test.sh ROUTELAB SCRIPT
set -u
routelab=$1 script=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

"$script" --routelab "$routelab" --terminals 1000 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--terminals 1000 should exit 2"
"$script" --bogus >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown argument should exit 2"
for bad in "--repeat 0" "--repeat abc" "--booksim /nonexistent/booksim"; do
  # shellcheck disable=SC2086 # (the option and its value are two words)
  err=$("$script" --routelab "$routelab" --terminals 256 $bad 2>&1 >/dev/null)
  [ $? -eq 2 ] || fail "$bad should exit 2"
  echo "$err" | grep -q "^sim_speed: " || fail "$bad: message '$err'"
done

out=$("$script" --routelab "$routelab" --terminals 256) || fail "the 256-terminal run failed"
[ "$(echo "$out" | head -1)" = "tool,terminals,threads,cycles,cpu_s,wall_s,cycles_per_cpu_s,cycles_per_wall_s,max_rss_kib" ] ||
  fail "header: $(echo "$out" | head -1)"
row=$(echo "$out" | sed -n 2p)
echo "$row" | grep -Eq '^routelab,256,1,[0-9]{5,},[0-9.]+,[0-9.]+,[0-9]+,[0-9]+,[0-9]+$' || fail "row: $row"
[ "$(echo "$out" | wc -l)" -eq 2 ] || fail "expected one row: $out"

"$script" --routelab "$routelab" --terminals 256 --booksim /bin/false >/dev/null 2>&1
[ $? -eq 1 ] || fail "a BookSim without a cycle count should exit 1"
"$script" --routelab "$routelab" --terminals 256 --overlap >/dev/null 2>&1
[ $? -eq 2 ] || fail "--overlap without --booksim should exit 2"
"$script" --routelab "$routelab" --terminals 256 --booksim /bin/false --overlap >/dev/null 2>&1
[ $? -eq 1 ] || fail "--overlap: a BookSim without a cycle count should exit 1"

# A stand-in for BookSim that prints its cycle count after some CPU time: one row per tool
# and run, and the ratio of the medians on stderr.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/booksim" <<'FAKE'
#!/usr/bin/env bash
i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done
echo "Time taken is 7 cycles"  # few cycles: rounding its cycles/CPU-s would show in the ratio
FAKE
chmod +x "$dir/booksim"
out=$("$script" --routelab "$routelab" --terminals 256 --booksim "$dir/booksim" --repeat 2 2>"$dir/err") ||
  fail "the run with a BookSim failed: $(cat "$dir/err")"
[ "$(echo "$out" | grep -c '^routelab,256,1,')" -eq 2 ] || fail "routelab rows: $out"
[ "$(echo "$out" | grep -Ec '^booksim,256,1,7,[0-9.]+,')" -eq 2 ] || fail "booksim rows: $out"
# The tools alternate round by round (the same machine state for both).
[ "$(echo "$out" | sed 1d | cut -d, -f1 | tr '\n' ' ')" = "routelab booksim routelab booksim " ] ||
  fail "the runs should alternate: $out"
grep -Eq '^sim_speed: machine: .+, [0-9]+ CPUs, L3 .+, load average [0-9.]+ [0-9.]+ [0-9.]+$' "$dir/err" ||
  fail "machine line: $(cat "$dir/err")"
grep -Eq '^sim_speed: 256 terminals, one thread, medians of 2: routelab [0-9]+, BookSim2 [0-9.]+ cycles/CPU-s: [0-9.]+x$' \
  "$dir/err" || fail "ratio line: $(cat "$dir/err")"
# The ratio is that of the medians of cycles / cpu_s (not of the rounded cycles_per_cpu_s column).
expected=$(echo "$out" | awk -F, '$1 != "tool" { r = $4 / $5; if ($1 == "routelab") a[++na] = r; else b[++nb] = r }
  END { printf "%.1f", ((a[1] + a[2]) / 2) / ((b[1] + b[2]) / 2) }')  # the median of two is their mean
printed=$(sed -n 's/^sim_speed: 256 terminals.*: \([0-9.]*\)x$/\1/p' "$dir/err")
# Equal up to the last printed digit (both round at one decimal, from values equal to ~1e-6).
awk -v p="$printed" -v e="$expected" 'BEGIN { exit !(p != "" && (p - e <= 0.1001 && e - p <= 0.1001)) }' ||
  fail "ratio $printed, expected $expected from the rows: $out"
# --overlap: BookSim's runs in the background, routelab's rounds until they end (at least
# --repeat of them); the summary over all rows.
cat >"$dir/booksim" <<'FAKE'
#!/usr/bin/env bash
i=0; while [ $i -lt 600000 ]; do i=$((i + 1)); done
echo "Time taken is 7 cycles"
FAKE
out=$("$script" --routelab "$routelab" --terminals 256 --booksim "$dir/booksim" --repeat 2 --overlap 2>"$dir/err") ||
  fail "the --overlap run failed: $(cat "$dir/err")"
[ "$(echo "$out" | grep -Ec '^booksim,256,1,7,[0-9.]+,')" -eq 2 ] || fail "--overlap booksim rows: $out"
ours=$(echo "$out" | grep -c '^routelab,256,1,')
[ "$ours" -ge 2 ] || fail "--overlap: at least --repeat routelab rows: $out"
grep -Eq "^sim_speed: 256 terminals, one thread, medians of $ours routelab and 2 BookSim2 runs: routelab [0-9]+, BookSim2 [0-9.]+ cycles/CPU-s: [0-9.]+x$" \
  "$dir/err" || fail "--overlap ratio line: $(cat "$dir/err")"
# --overlap: a routelab run that fails stops BookSim's background runs too (none left over).
cat >"$dir/slow-booksim" <<FAKE
#!/usr/bin/env bash
echo \$\$ >"$dir/slow-booksim.pid"
sleep 60
echo "Time taken is 7 cycles"
FAKE
printf '#!/usr/bin/env bash\nsleep 1\nexit 1\n' >"$dir/failing-routelab"  # (fails once BookSim has started)
chmod +x "$dir/slow-booksim" "$dir/failing-routelab"
"$script" --routelab "$dir/failing-routelab" --terminals 256 --booksim "$dir/slow-booksim" --overlap >/dev/null 2>&1
[ $? -eq 1 ] || fail "--overlap: a failed routelab run should exit 1"
sleep 1
[ -s "$dir/slow-booksim.pid" ] || fail "--overlap: BookSim did not start beside routelab"
# (running: its /proc entry says so and is not a zombie waiting to be reaped by init)
state=$(sed 's/.*) //' "/proc/$(cat "$dir/slow-booksim.pid")/stat" 2>/dev/null | cut -d' ' -f1)
if [ -n "$state" ] && [ "$state" != Z ]; then
  kill "$(cat "$dir/slow-booksim.pid")"
  fail "--overlap left BookSim running (state $state)"
fi
echo "ok"
